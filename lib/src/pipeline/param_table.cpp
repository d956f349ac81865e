#include "embedpe/param_table.h"

#include <limits>
#include <utility>

#include "embedpe/sink.h"

namespace embedpe {
namespace {

// A weight file's tensor, PATH[:TENSOR]: an empty value is refused.
Param tensor_param(std::string name, std::string* target, std::string help, const char* group,
                   std::string default_text = "") {
  return {.name = std::move(name),
          .target = target,
          .help = std::move(help),
          .group = group,
          .default_text = std::move(default_text),
          .type_name = "PATH[:TENSOR]",
          .path = true};
}

}  // namespace

std::vector<Param> table_params(TableSpec& table) {
  const char* g = kEmbeddingGroup;
  return {
      {.name = "d_model",
       .target = ParamNumber<std::optional<std::size_t>>{&table.d_model, 1, kMaxDModel},
       .help = "Embedding width",
       .group = g,
       .default_text = "512, or the {weights} table's"},
      {.name = "seed",
       .target = ParamNumber<std::optional<std::uint64_t>>{&table.seed, 0, std::numeric_limits<std::uint64_t>::max()},
       .help = "Seed of the generated table (and of the dropout mask)",
       .group = g,
       .default_text = "0"},
      {.name = "init",
       .target =
           param_choice(&table.init, std::vector<std::pair<std::string, Init>>{{"normal", Init::normal},
                                                                               {"scaled-normal", Init::scaled_normal},
                                                                               {"xavier-uniform", Init::xavier_uniform},
                                                                               {"uniform", Init::uniform}}),
       .help = "The generated table: N(0,1) as nn.Embedding; N(0, std 1/sqrt(d_model)); U(±sqrt(6/(vocab+d_model))) as "
               "xavier_uniform_; U(±R) with {init_range}",
       .group = g,
       .default_text = "normal"},
      {.name = "init_range",
       .target = ParamNumber<std::optional<double>>{&table.init_range, 1e-30, 1e6},
       .help = "The bound R of {init} uniform: U(-R, R)",
       .group = g,
       .type_name = "R"},
      tensor_param("weights", &table.weights,
                   "Embedding table: .npy (vocab, d_model) or .safetensors[:TENSOR] (F32/F16/BF16, or int8 from "
                   "embedpe quantize)",
                   g),
      {.name = "padding_idx",
       .target = ParamNumber<std::optional<std::int64_t>>{&table.padding_idx, 0, std::numeric_limits<int>::max()},
       .help = "This row of a generated table is zeros (nn.Embedding padding_idx; a {weights} table's stored row is "
               "used as it is, as the model does)",
       .group = g},
      {.name = "factorize",
       .target = ParamNumber<std::optional<std::size_t>>{&table.factorize, 1, kMaxDModel},
       .help = "Factorized table (ALBERT): generated (vocab, E) rows and a generated projection to {d_model}",
       .group = g,
       .type_name = "E"},
      tensor_param("projection", &table.projection,
                   "Projection of a factorized {weights} table to d_model: (d_model, E) as nn.Linear stores it, or "
                   "(E, d_model); its bias is the NAME.bias beside it",
                   g, "found in {weights} (encoder.embedding_hidden_mapping_in.weight)"),
      // use_projection = false: a switch that counts (the front end's).
      {.name = "no_projection",
       .help = "Do not apply the projection found in {weights}: the (vocab, E) rows as they are",
       .group = g},
  };
}

std::vector<Param> layer_params(LayerSpec& spec) {
  const char* e = kEmbeddingGroup;
  const char* p = kPositionalGroup;
  std::vector<Param> params = {{.name = "pretrained", .group = e}};
  for (Param& t : table_params(spec.table)) params.push_back(std::move(t));
  const std::vector<Param> rest = {
      {.name = "scale", .group = e},
      {.name = "max_len",
       .target = ParamNumber<std::optional<std::size_t>>{&spec.max_len, 1, kMaxPePosition},
       .help = "Size of the PE table: positions 0..N-1 a sequence may use ({seq_len} must fit in it)",
       .group = p,
       .default_text = std::to_string(LayerSpec::kDefaultMaxLen)},
      {.name = "pe", .group = p},
      {.name = "pe_params", .group = p},
      tensor_param("pe_weights", &spec.pe_weights,
                   "Learned position table (max_len, d_model), e.g. GPT-2 wpe or BERT position_embeddings", p,
                   "found in {weights}"),
      {.name = "position_offset",
       .target = ParamNumber<std::optional<std::size_t>>{&spec.position_offset, 0, kMaxPePosition - 1},
       .help = "Token l is at position l+K (BART: 2; fairseq/RoBERTa: padding_idx+1)",
       .group = p,
       .default_text = "the PE kind's: 0, fairseq convention padding_idx+1",
       .type_name = "K"},
      {.name = "pad_position",
       .target = ParamNumber<std::optional<std::size_t>>{&spec.pad_position, 0, kMaxPePosition - 1},
       .help = "Padding tokens use this position (RoBERTa: padding_idx, with {position_offset} padding_idx+1)",
       .group = p,
       .default_text = "their own column's, or 0 with {padding_side} left"},
      {.name = "position_ids",
       .target =
           param_choice(&spec.position_ids,
                        std::vector<std::pair<std::string, PositionIds>>{{"auto", PositionIds::automatic},
                                                                         {"column", PositionIds::column},
                                                                         {"mask", PositionIds::mask},
                                                                         {"padding-idx", PositionIds::padding_idx}}),
       .help = "Token positions: column, l whatever the padding (BART, ALBERT); mask, counted over the attention "
               "mask; padding-idx, counted over ids other than {padding_idx}, which sit at {pad_position} (RoBERTa, "
               "M2M100); auto, column, or mask with {padding_side} left",
       .group = p,
       .default_text = "auto"},
      {.name = "projection_order",
       .target =
           param_choice(&spec.projection_order,
                        std::vector<std::pair<std::string, ProjectionOrder>>{{"first", ProjectionOrder::first},
                                                                             {"albert", ProjectionOrder::albert},
                                                                             {"deberta", ProjectionOrder::deberta}}),
       .help = "Where a factorized table's projection applies: first, (E[ids]·P+b)×scale+PE; albert, after the sum "
               "and LayerNorm in E dimensions, as ALBERT; deberta, after the sum in E dimensions and before "
               "LayerNorm, as DeBERTa-v2's embed_proj",
       .group = e,
       .default_text = "first"},
      {.name = "layernorm",
       .target = ParamSwitch{&spec.layernorm},
       .help = "LayerNorm after the sum (BERT, BART layernorm_embedding)",
       .group = e},
      // Refused without a LayerNorm (layernorm, or a pretrained one's), never ignored.
      {.name = "layernorm_eps",
       .target = ParamNumber<double>{&spec.layernorm_eps, 1e-30, 1.0},
       .help = "LayerNorm epsilon (BERT: 1e-12)",
       .group = e},
      tensor_param("layernorm_weight", &spec.layernorm_weight, "LayerNorm gamma", e, "found in {weights}, else 1"),
      tensor_param("layernorm_bias", &spec.layernorm_bias, "LayerNorm beta", e, "found in {weights}, else 0"),
      tensor_param("token_type_weights", &spec.token_type_weights, "Token type table (types, d_model)", e,
                   "found in {weights}"),
      {.name = "mask_output",
       .target = ParamSwitch{&spec.mask_output},
       .help = "Multiply each token's output by its attention mask: padding gives zeros (DeBERTa-v2)",
       .group = e},
  };
  params.insert(params.end(), rest.begin(), rest.end());
  return params;
}

std::vector<Param> text_params(TextSpec& spec) {
  const char* g = kInputGroup;
  InputOptions& reading = spec.reading;
  return {
      {.name = "text",
       .target = &spec.texts,
       .help = "Text to process (repeat for a batch)",
       .group = g,
       .type_name = "TEXT"},
      {.name = "input",
       .target = &spec.inputs,
       .help = "File with one text per line (UTF-8; - reads stdin); repeat to read several in order",
       .group = g,
       .type_name = "PATH|-",
       .path = true},
      {.name = "FILE", .group = g},
      {.name = "ids", .group = g},
      {.name = "text_pair",
       .target = &spec.pairs,
       .help = "Second text of a pair, one per {text}: [CLS] A [SEP] B [SEP], token types 0 and 1 (BERT-style "
               "models)",
       .group = g,
       .type_name = "TEXT"},
      {.name = "input_format",
       .target =
           param_choice(&reading.format,
                        std::vector<std::pair<std::string, InputFormat>>{
                            {"lines", InputFormat::lines}, {"jsonl", InputFormat::jsonl}, {"ids", InputFormat::ids}}),
       .help = "lines: one text per line; jsonl: one JSON object per line, text in {field}; ids: one sequence of "
               "token ids per line (spaces or commas), or a JSON object with input_ids and optionally "
               "attention_mask (0: padding) and token_type_ids, as HF dumps them; used as given: no BOS/EOS, "
               "checked against the embedding table's rows",
       .group = g,
       .default_text = "lines"},
      {.name = "field",
       .target = &reading.field,
       .help = "JSONL member holding the text",
       .group = g,
       .type_name = "NAME"},
      {.name = "skip_empty",
       .target = ParamSwitch{&reading.skip_empty},
       .help = "Drop empty lines and lines of Unicode White_Space only (default: keep them as empty sequences)",
       .group = g},
      {.name = "max_line_bytes",
       .target = ParamNumber<std::size_t>{&reading.max_line_bytes, 1, std::numeric_limits<std::size_t>::max()},
       .help = "Longest input line accepted, in bytes; a longer line is an error naming it, so memory stays bounded "
               "(tokenizing a line takes up to ~300 bytes of memory per byte)",
       .group = g,
       .default_text = "4 MiB"},
      {.name = "shard", .group = g},
      {.name = "shard_seek",
       .target = ParamSwitch{&reading.shard_seek},
       .help = "With {shard}: start at the part's byte offset without counting the lines before it (O(1) for any "
               "K); line numbers then count from the part's first line, and embedpe merge turns them into the "
               "file's",
       .group = g},
  };
}

std::vector<Param> tokenize_params(EncodeRequest& request) {
  const char* g = kTokenizationGroup;
  EncodeOptions& o = request.tokenize;
  const std::vector<std::pair<std::string, Side>> sides = {{"right", Side::right}, {"left", Side::left}};
  return {
      {.name = "model", .group = g},
      {.name = "pretrained", .group = g},
      {.name = "tokenizer", .group = g},
      {.name = "no_bos", .target = ParamSwitch{&o.add_bos, false}, .help = "Do not add the model's BOS id", .group = g},
      {.name = "no_eos", .target = ParamSwitch{&o.add_eos, false}, .help = "Do not add the model's EOS id", .group = g},
      {.name = "pad_id",
       .target = ParamNumber<std::optional<int>>{&o.pad_id, 0, std::numeric_limits<int>::max()},
       .help = "Padding id",
       .group = g,
       .default_text = "the model's pad id, else 0"},
      {.name = "seq_len",
       .target = ParamNumber<std::optional<std::size_t>>{&o.seq_len, 1, kMaxSeqLen},
       .help = "Pad and truncate every sequence to N tokens, keeping BOS/EOS",
       .group = g,
       .default_text = "pad to the longest"},
      {.name = "padding_side",
       .target = param_choice(&request.padding_side, sides),
       .help = "Where padding goes; with left, tokens keep positions 0..n-1, as HF numbers them from the attention "
               "mask",
       .group = g,
       .default_text = "right; with {pretrained}, the directory's"},
      {.name = "truncation_side",
       .target = param_choice(&request.truncation_side, sides),
       .help = "Which end of a text {seq_len} cuts; BOS and EOS are kept either way",
       .group = g,
       .default_text = "right; with {pretrained}, the directory's"},
      {.name = "pad_to_multiple_of",
       .target = ParamNumber<std::optional<std::size_t>>{&o.pad_to_multiple_of, 1, kMaxSeqLen},
       .help = "Pad the longest sequence (a record or line of its own: itself) up to a multiple of N (with "
               "{seq_len}, it must be a multiple of N)",
       .group = g},
  };
}

std::vector<Param> request_params(EncodeRequest& request) {
  const char* g = kEmbeddingGroup;
  return {
      {.name = "token_type_ids", .group = g},
      {.name = "no_token_type",
       .target = ParamSwitch{&request.no_token_type},
       .help = "Do not add the token type embeddings found in {weights} (added by default, type 0)",
       .group = g},
      {.name = "train",
       .target = ParamSwitch{&request.train},
       .help = "Training mode: apply inverted dropout (needs {seed})",
       .group = g},
      {.name = "dropout",
       .target = ParamNumber<std::optional<double>>{&request.dropout, 0.0, 1.0, /*hi_open=*/true},
       .help = "Dropout probability with {train}",
       .group = g,
       .default_text = "0.1",
       .type_name = "P"},
      {.name = "rope_dim",
       .target = ParamNumber<std::optional<std::size_t>>{&request.rope_dim, 2, kMaxDModel},
       .help = "Rotary dimension for {emit} rope_cos,rope_sin",
       .group = kRopeGroup,
       .default_text = "d_model"},
  };
}

std::vector<Param> encode_output_params(EncodeCommand& cmd, EncodeRequest& request) {
  const char* o = kOutputGroup;
  const char* p = kPipelineGroup;
  ParamChoice formats{.set = [&cmd](std::size_t i) { cmd.output.format = sink_formats()[i]; }};
  std::string bf16_formats;  // the formats that can hold it
  for (const SinkFormat* f : sink_formats()) {
    formats.words.emplace_back(f->name);
    if (f->traits.bfloat16) bf16_formats += (bf16_formats.empty() ? "" : ", ") + std::string(f->name);
  }
  return {
      {.name = "format",
       .target = std::move(formats),
       .help = "Output format",
       .group = o,
       .default_text = "from {output_path}'s extension; else a summary on a terminal, json when piped"},
      {.name = "dtype",
       .target = param_choice(&request.dtype, std::vector<std::pair<std::string, DType>>{{"f32", DType::float32},
                                                                                        {"f16", DType::float16},
                                                                                        {"bf16", DType::bfloat16}}),
       .help = "Float tensors as float32, float16, or bfloat16 (bfloat16 only in " + bf16_formats + ")",
       .group = o,
       .default_text = "f32"},
      {.name = "output_path",
       .target = &cmd.output.path,
       .help = "Output path (- for standard output)",
       .group = o,
       .type_name = "PATH",
       .short_name = 'o'},
      {.name = "emit",
       .help = "Tensors to write: input_ids, attention_mask, token_embeddings, positional_encoding, output, all; also "
               "rope_cos, rope_sin, token_type_ids",
       .group = o,
       .default_text = "output for npy; input_ids,attention_mask,output otherwise",
       .type_name = "NAME,..."},
      {.name = "precision",
       .target = ParamNumber<int>{&cmd.precision, 1, 9},
       .help = "Significant digits of floats in json and jsonl",
       .group = o,
       .default_text = "the shortest that reads back exactly"},
      {.name = "batch_size",
       .target = ParamNumber<std::size_t>{&cmd.batch_size, 1, kMaxBatchRows},
       .help = "Lines encoded at a time when streaming (1 to 1048576)",
       .group = p},
      {.name = "threads",
       .target = ParamNumber<std::optional<std::size_t>>{&request.threads, 1, kMaxThreads},
       .help = "Threads for tokenizing, embedding and JSON text (when streaming, one core is left to the writer; at "
               "most 1024)",
       .group = p,
       .default_text = "the cores available"},
      {.name = "output_dir",
       .target = &cmd.output.output_dir,
       .help = "Write part-00000.npz, ... of {shard_rows} sequences each, plus manifest.json",
       .group = p,
       .type_name = "DIR",
       .path = true},
      {.name = "shard_rows",
       .target = ParamNumber<std::size_t>{&cmd.output.shard_rows, 1, kMaxBatchRows},
       .help = "Sequences per part with {output_dir} (1 to 1048576)",
       .group = p},
      {.name = "resume",
       .target = ParamSwitch{&cmd.output.resume},
       .help = "With {output_dir}: continue a run; refused unless the options, model and input are the same; keeps "
               "the parts that still match the manifest, does the rest",
       .group = p},
      {.name = "quiet", .target = ParamSwitch{&cmd.quiet}, .help = "No progress line on a terminal", .group = p,
       .short_name = 'q'},
      {.name = "summary",
       .target = ParamSwitch{&cmd.summary},
       .help = "Print the closing summary to stderr even when it is not a terminal",
       .group = p},
  };
}

}  // namespace embedpe
