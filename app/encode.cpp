// embedpe encode: text → ids → E[ids] × scale + PE → a sink (sink.h: JSON,
// JSON Lines, .npy, .npz, ...). The flags and their checks; the library's
// Encoder (embedpe/encoder.h) does the work.

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "clikit/usage.h"
#include "commands.h"
#include "common.h"
#include "embedpe/encode_request.h"
#include "embedpe/encoder.h"
#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/model_source.h"
#include "embedpe/weights.h"
#include "errors.h"
#include "layer_flags.h"
#include "pe_flags.h"
#include "progress.h"

namespace embedpe::cli {
namespace {

struct EncodeCommand {
  TextSpec text;
  TokenizeFlags tokenize;
  LayerFlags layer;
  const SinkFormat* format = nullptr;  // --format; null: from --output's extension
  EncodeOutput output;  // --output, --output-dir, --shard-rows, --resume; its format is inferred
  std::vector<std::string> emit;
  std::size_t batch_size = 128;
  bool quiet = false;
  bool summary = false;
  int precision = 0;  // --precision: significant digits of floats in json/jsonl; 0: shortest round-trip
};

const SinkFormat& infer_format(const EncodeCommand& cmd) {
  if (cmd.format) {
    if (cmd.output.output_dir.empty()) {
      refuse_contradicting_extension(cmd.output.path, cmd.format->name, sink_extensions());
    }
    return *cmd.format;
  }
  if (!cmd.output.output_dir.empty()) return *find_sink_format("npz");  // its parts
  // A person at a terminal gets a summary; a pipe or a file gets the data.
  if (cmd.output.path == "-" && ::isatty(STDOUT_FILENO)) return *find_sink_format("summary");
  std::vector<std::pair<std::string, const SinkFormat*>> extensions;
  for (const SinkFormat* f : sink_formats()) {
    for (const std::string& e : f->extensions) extensions.emplace_back(e, f);
  }
  const std::optional<const SinkFormat*> named = format_from_extension(cmd.output.path, extensions);
  return named ? **named : *find_sink_format("json");
}

// One line when --weights holds position or LayerNorm tensors the flags leave
// out: a sum no model computes is otherwise silent.
void warn_unused_tensors(const LayerSpec& layer) {
  const std::vector<UnusedLayerTensor> unused = unused_layer_tensors(layer);
  if (unused.empty()) return;
  std::string names, uses;
  for (const auto& u : unused) {
    names += (names.empty() ? "" : ", ") + u.name;
    const std::string flag = "--" + u.use;
    if (uses.find(flag) == std::string::npos) uses += (uses.empty() ? "" : " and ") + flag;
  }
  std::fprintf(stderr,
               "embedpe: note: %s also holds %s, which these flags leave out (%s would use them; or --pretrained "
               "DIR for the model's whole input layer; --quiet silences this)\n",
               parse_tensor_spec(layer.table.weights).path.c_str(), names.c_str(), uses.c_str());
}

// The model the flags name, opened once: --pretrained's gives the layer and the tokenizer, --model's
// overrides the tokenizer.
ModelSource model_source(const EncodeCommand& cmd) {
  return ModelSource(cmd.tokenize.model, cmd.layer.pretrained, cmd.tokenize.kind);
}

// The front end's way (TakeEncoder): the same checks of the flags, in the
// same order, and the Encoder handed over; texts and outputs are its own.
void take_encoder(const EncodeCommand& cmd, const TakeEncoder& take) {
  const EncodeRequest& request = cmd.tokenize.request;
  const ModelSource source = model_source(cmd);
  const LayerSpec layer = layer_spec(cmd.layer, source, request.dtype);
  std::vector<TensorName> emit = select_tensors(cmd.emit, nullptr);
  const std::optional<Dropout> dropout = training_dropout(request, layer);
  check_seq_len(layer, request.tokenize.seq_len, request.tokenize.pad_to_multiple_of);
  const std::size_t threads = request_threads(request);
  std::optional<Tokenizer> tokenizer = source.tokenizer();
  EncoderSpec spec = encoder_spec(request, source, layer, tokenizer ? &*tokenizer : nullptr, cmd.text,
                                  std::move(emit), threads, dropout, cmd.layer.is_given());
  take(Encoder(std::move(tokenizer), std::move(spec)));
}

void run_encode(const EncodeCommand& cmd) {
  const EncodeRequest& request = cmd.tokenize.request;
  const ModelSource source = model_source(cmd);
  // --pretrained's directory is read first: a bad one is refused before anything else.
  const LayerSpec layer = layer_spec(cmd.layer, source, request.dtype);
  // An output that would overwrite an input is the first thing refused.
  const std::vector<std::pair<std::string, std::string>> inputs =
      as_flags(encode_inputs(cmd.text, cmd.tokenize.model, layer, cmd.layer.pretrained));
  if (cmd.output.output_dir.empty()) {
    refuse_outputs_over_inputs({cmd.output.path}, inputs);
  } else {
    refuse_inputs_in_parts_dir(cmd.output.output_dir, inputs);
  }
  const SinkFormat& format = infer_format(cmd);
  EncodeOutput output = cmd.output;
  output.format = &format;
  if (!output.output_dir.empty()) {
    // On a terminal, over the progress line.
    output.interrupt_note = std::string(::isatty(STDERR_FILENO) ? "\r\x1b[K" : "") + "embedpe: interrupted; " +
                            output.output_dir + " keeps the parts written so far: run the same command with --resume " +
                            "to continue";
  }
  // --output-dir writes .npz parts, which hold any number of tensors.
  std::vector<TensorName> emit = select_tensors(cmd.emit, cmd.output.output_dir.empty() ? &format : nullptr);
  check_encode_output(output, request.dtype, cmd.precision, !cmd.text.texts.empty() || !cmd.text.ids.empty(),
                      cmd.text.reading.shard_seek && cmd.text.shard_given);
  const std::optional<Dropout> dropout = training_dropout(request, layer);
  if (format.traits.binary && cmd.output.output_dir.empty()) {
    refuse_binary_to_terminal(cmd.output.path, "." + std::string(format.name));
  }
  check_seq_len(layer, request.tokenize.seq_len, request.tokenize.pad_to_multiple_of);
  const std::size_t threads = request_threads(request);

  const auto note = [&cmd](const Error& e) {
    if (cmd.quiet) return;
    std::fprintf(stderr, "embedpe: note: the ids are used as given, without the directory's tokenizer (%s)\n",
                 clikit::printable_line(e.what()).c_str());
  };
  std::optional<Tokenizer> tokenizer = cmd.text.ids_input() ? ids_tokenizer(source, layer, note) : source.tokenizer();
  TextSource texts = open_text_source(cmd.text);
  EncoderSpec spec = encoder_spec(request, source, layer, tokenizer ? &*tokenizer : nullptr, cmd.text,
                                  std::move(emit), threads, dropout, cmd.layer.is_given());
  const Encoder encoder(std::move(tokenizer), std::move(spec));
  // --ids values are command-line values: one outside the table is a usage error, as a malformed one is.
  check_given_ids(encoder, cmd.text.ids, "--ids");

  Progress progress(cmd.quiet, cmd.summary, texts.reader());
  const EncodeRunOptions run{.batch_size = cmd.batch_size,
                             .threads = threads,
                             .precision = cmd.precision,
                             .allow_empty = cmd.text.shard_given,
                             .on_batch = [&](const Batch& b) { progress.add(b); }};
  const std::optional<PartsDirStats> stats = encode_to(encoder, texts, output, run, cmd.text.shard_given);
  progress.finish();
  // After the run, so that a refusal stays the one line on stderr.
  if (!cmd.quiet && cmd.layer.pretrained.empty()) warn_unused_tensors(layer);
  // Said where the closing summary is: on a terminal, or with --summary; never with --quiet.
  if (stats && stats->kept && !cmd.quiet && (cmd.summary || ::isatty(STDERR_FILENO))) {
    std::fprintf(stderr, "embedpe: --resume: %zu of %zu parts kept from the interrupted run, %zu written\n", stats->kept,
                 stats->parts, stats->parts - stats->kept);
  }
  if (stats && cmd.summary) {
    std::fprintf(stderr, "embedpe: --output-dir: %zu parts; manifest and journal %.3f s, part hashes %.3f s\n",
                 stats->parts, stats->manifest_seconds, stats->part_hash_seconds);
  }
}

}  // namespace

void setup_encode(CLI::App& app, TakeEncoder take) {
  auto cmd = std::make_shared<EncodeCommand>();
  auto* sub = app.add_subcommand("encode", "Text → token ids → embedding × scale + positional encoding");
  add_text_options(*sub, cmd->text);
  add_tokenize_flags(*sub, cmd->tokenize);
  add_layer_flags(*sub, cmd->layer);
  EncodeRequest& request = cmd->tokenize.request;
  const ParamHooks hooks = {
      {"token_type_ids", [sub, &request](const std::string&) {
         return sub
             ->add_option_function<std::string>(
                 "--token-type-ids",
                 [&request](const std::string& v) { request.token_type_ids = parse_ids("--token-type-ids", v); },
                 "Token types (BERT segments): one for every sequence, one per sequence, or "
                 "with --text-pair the types of the two segments")
             ->type_name("T,...")
             ->default_str("0; with --text-pair 0,1");
       }}};
  add_params(*sub, request_params(request), hooks);
  option_group(*sub, kOutputGroup);
  std::vector<std::pair<std::string, const SinkFormat*>> formats;
  for (const SinkFormat* f : sink_formats()) formats.emplace_back(f->name, f);
  add_choice<const SinkFormat*>(*sub, "--format", [cmd](const SinkFormat* f) { cmd->format = f; }, formats,
                                "Output format", "from --output's extension; else a summary on a terminal, json "
                                "when piped");
  std::string bf16_formats;  // the formats that can hold it
  for (const SinkFormat* f : sink_formats()) {
    if (f->traits.bfloat16) bf16_formats += (bf16_formats.empty() ? "" : ", ") + std::string(f->name);
  }
  add_choice<DType>(*sub, "--dtype", [cmd](DType d) { cmd->tokenize.request.dtype = d; },
                    {{"f32", DType::float32}, {"f16", DType::float16}, {"bf16", DType::bfloat16}},
                    "Float tensors as float32, float16, or bfloat16 (bfloat16 only in " + bf16_formats + ")", "f32");
  add_output_option(*sub, cmd->output.path);
  auto* emit = sub->add_option("--emit", cmd->emit,
                  "Tensors to write: input_ids, attention_mask, token_embeddings, positional_encoding, output, all; "
                  "also rope_cos, rope_sin, token_type_ids")
      ->delimiter(',')
      ->type_name("NAME,...")
      ->default_str("output for npy; input_ids,attention_mask,output otherwise");
  clikit::set_completion_words(emit, tensor_words());
  add_precision_option(*sub, cmd->precision, "json and jsonl");
  option_group(*sub, kPipelineGroup);
  add_number(*sub, "--batch-size", cmd->batch_size, 1, kMaxBatchRows, "Lines encoded at a time when streaming (1 to 1048576)");
  add_number(*sub, "--threads", cmd->tokenize.request.threads, 1, kMaxThreads,
             "Threads for tokenizing, embedding and JSON text (when streaming, one core is left to the writer; at "
             "most 1024)")
      ->default_str("the cores available");
  sub->add_option("--output-dir", cmd->output.output_dir,
                  "Write part-00000.npz, ... of --shard-rows sequences each, plus manifest.json")
      ->type_name("DIR")
      ->check(non_empty_path());
  add_number(*sub, "--shard-rows", cmd->output.shard_rows, 1, kMaxBatchRows, "Sequences per part with --output-dir (1 to 1048576)");
  sub->add_flag("--resume", cmd->output.resume,
                "With --output-dir: continue a run; refused unless the options, model and input are the same; keeps "
                "the parts that still match the manifest, does the rest");
  sub->add_flag("--quiet,-q", cmd->quiet, "No progress line on a terminal");
  sub->add_flag("--summary", cmd->summary, "Print the closing summary to stderr even when it is not a terminal");
  clikit::set_examples(*sub, {
                       "embedpe encode --text \"Hello world\"                     # a summary on a terminal, JSON when piped",
                       "embedpe encode --input corpus.txt --seq-len 64 -o out.npz",
                       "embedpe encode --input corpus.txt --pe none --emit input_ids,rope_cos,rope_sin -o rope.safetensors"});
  sub->callback([cmd, take] {
    if (take) {
      take_encoder(*cmd, take);
    } else {
      run_encode(*cmd);
    }
  });
}

}  // namespace embedpe::cli
