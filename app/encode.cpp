// embedpe encode: text → ids → E[ids] × scale + PE → a sink (sink.h: JSON,
// JSON Lines, .npy, .npz, ...). The flags and their checks; the library's
// Encoder (embedpe/encoder.h) does the work.

#include <unistd.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "clikit/usage.h"
#include "commands.h"
#include "common.h"
#include "embedpe/encoder.h"
#include "embedpe/error.h"
#include "embedpe/shards.h"
#include "encode.h"
#include "output_dir.h"
#include "parallel.h"
#include "progress.h"

namespace embedpe::cli {
namespace {

const SinkFormat& infer_format(const EncodeCommand& cmd) {
  if (cmd.format) {
    if (cmd.output_dir.empty()) refuse_contradicting_extension(cmd.output, cmd.format->name, sink_extensions());
    return *cmd.format;
  }
  // A person at a terminal gets a summary; a pipe or a file gets the data.
  if (cmd.output == "-" && cmd.output_dir.empty() && ::isatty(STDOUT_FILENO)) return *find_sink_format("summary");
  std::vector<std::pair<std::string, const SinkFormat*>> extensions;
  for (const SinkFormat* f : sink_formats()) {
    for (const std::string& e : f->extensions) extensions.emplace_back(e, f);
  }
  return *format_from_extension(cmd.output, extensions).value_or(find_sink_format("json"));
}

void run_encode(const EncodeCommand& cmd) {
  // An output that would overwrite an input is the first thing refused.
  std::vector<std::pair<std::string, std::string>> inputs = text_inputs(cmd.text, cmd.tokenize.model);
  for (auto& input : layer_inputs(cmd.layer.spec)) inputs.push_back(std::move(input));
  if (cmd.output_dir.empty()) {
    refuse_outputs_over_inputs({cmd.output}, inputs);
  } else {
    refuse_inputs_in_output_dir(cmd.output_dir, inputs);
  }
  const SinkFormat& format = infer_format(cmd);
  // --output-dir writes .npz parts, which hold any number of tensors.
  const std::vector<TensorName> emit = select_tensors(cmd.emit, cmd.output_dir.empty() ? &format : nullptr);
  if (cmd.dtype == DType::bfloat16 && !format.traits.bfloat16) {
    throw UsageError("--dtype bf16: NumPy has no bfloat16 dtype, so .npy/.npz cannot hold it; use --format json or "
                     "jsonl, or --dtype f32 and convert (e.g. torch.from_numpy(a).bfloat16())");
  }
  if (cmd.dropout && !cmd.train) throw UsageError("--dropout only applies with --train (inference never drops)");
  std::optional<Dropout> dropout;
  if (cmd.train) {
    if (cmd.layer.seed_option->count() == 0) {
      throw UsageError("--train needs an explicit --seed, so that the dropout mask can be reproduced");
    }
    dropout = Dropout{cmd.dropout.value_or(0.1), cmd.layer.spec.table.seed};
  }
  check_output_dir_flags(cmd);
  if (format.traits.binary && cmd.output_dir.empty()) refuse_binary_to_terminal(cmd.output, "." + std::string(format.name));
  if (cmd.precision && format.traits.binary) {
    throw UsageError("--precision rounds floats written as text (json, jsonl); ." + std::string(format.name) +
                     " keeps them exact: drop --precision");
  }
  check_seq_len(cmd.layer.spec, cmd.tokenize.seq_len, cmd.tokenize.pad_to_multiple_of);
  const std::size_t threads = cmd.threads.value_or(available_cores());
  if (threads == 0) throw UsageError("--threads must be at least 1");

  Tokenizer tokenizer = load_tokenizer(cmd.tokenize.model);
  check_ids_flag(cmd.text.ids, tokenizer);
  TextSource source = open_texts(cmd.text);
  EncoderSpec spec{.tokenize = encode_options(cmd.tokenize),
                   .layer = layer_spec(cmd.layer),
                   .emit = emit,
                   .dtype = cmd.dtype,
                   .rope_dim = cmd.rope_dim,
                   .threads = threads,
                   .max_line_bytes = cmd.text.reading.max_line_bytes};
  spec.ids_input = ids_input(cmd.text);
  spec.layer.dropout = dropout;
  const Encoder encoder(std::move(tokenizer), std::move(spec));

  Progress progress(cmd.quiet, cmd.summary, source.reader());
  if (!cmd.output_dir.empty()) {
    encoder.check_memory(cmd.shard_rows, 0, /*streaming=*/false);
    const PartsDirStats stats = run_output_dir(cmd, encoder, source, [&](const Batch& b) { progress.add(b); });
    progress.finish();
    if (cmd.summary) print_output_dir_summary(stats);
    return;
  }
  // A shard's output records which part of which input it holds, for merge.
  std::optional<ShardRecorder> record;
  if (cmd.text.shard_given && source.reader()) record.emplace(*source.reader());
  std::unique_ptr<TensorSink> sink = format.make(cmd.output);
  encode(encoder, source, format, *sink,
         {.batch_size = cmd.batch_size,
          .threads = threads,
          .precision = cmd.precision,
          .allow_empty = cmd.text.shard_given,
          .on_batch = [&](const Batch& b) { progress.add(b); }});
  if (record) record->write(cmd.output, format.name, encoder.config());
  progress.finish();
}

}  // namespace

void setup_encode(CLI::App& app) {
  auto cmd = std::make_shared<EncodeCommand>();
  auto* sub = app.add_subcommand("encode", "Text → token ids → embedding × scale + positional encoding");
  add_text_options(*sub, cmd->text);
  add_tokenize_flags(*sub, cmd->tokenize);
  add_layer_flags(*sub, cmd->layer);
  sub->add_flag("--train", cmd->train, "Training mode: apply inverted dropout (needs --seed)");
  add_number(*sub, "--dropout", cmd->dropout, 0.0, 1.0, "Dropout probability with --train", /*hi_open=*/true)
      ->type_name("P")
      ->default_str("0.1");
  option_group(*sub, kRopeGroup);
  add_number(*sub, "--rope-dim", cmd->rope_dim, 2, kMaxDModel, "Rotary dimension for --emit rope_cos,rope_sin")
      ->default_str("d_model");
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
  add_choice<DType>(*sub, "--dtype", [cmd](DType d) { cmd->dtype = d; },
                    {{"f32", DType::float32}, {"f16", DType::float16}, {"bf16", DType::bfloat16}},
                    "Float tensors as float32, float16, or bfloat16 (" + bf16_formats + ")", "f32");
  add_output_option(*sub, cmd->output);
  auto* emit = sub->add_option("--emit", cmd->emit,
                  "Tensors to write: input_ids, attention_mask, token_embeddings, positional_encoding, output, all; "
                  "also rope_cos, rope_sin")
      ->delimiter(',')
      ->type_name("NAME,...")
      ->default_str("output for npy; input_ids,attention_mask,output otherwise");
  std::vector<std::string> tensor_words;
  for (TensorName t : {TensorName::input_ids, TensorName::attention_mask, TensorName::token_embeddings,
                       TensorName::positional_encoding, TensorName::output, TensorName::rope_cos, TensorName::rope_sin}) {
    tensor_words.emplace_back(name_of(t));
  }
  tensor_words.emplace_back("all");
  clikit::set_completion_words(emit, std::move(tensor_words));
  add_precision_option(*sub, cmd->precision, "json and jsonl");
  option_group(*sub, kPipelineGroup);
  add_number(*sub, "--batch-size", cmd->batch_size, 1, kMaxBatchRows, "Lines encoded at a time when streaming (1 to 1048576)");
  add_number(*sub, "--threads", cmd->threads, 1, kMaxThreads,
             "Threads for tokenizing, embedding and JSON text (when streaming, one core is left to the writer; at "
             "most 1024)")
      ->default_str("the cores available");
  sub->add_option("--output-dir", cmd->output_dir,
                  "Write part-00000.npz, ... of --shard-rows sequences each, plus manifest.json")
      ->type_name("DIR")
      ->check(non_empty_path());
  add_number(*sub, "--shard-rows", cmd->shard_rows, 1, kMaxBatchRows, "Sequences per part with --output-dir (1 to 1048576)");
  sub->add_flag("--resume", cmd->resume,
                "With --output-dir: continue a run; refused unless the options, model and input are the same; keeps "
                "the parts that still match the manifest, does the rest");
  sub->add_flag("--quiet,-q", cmd->quiet, "No progress line on a terminal");
  sub->add_flag("--summary", cmd->summary, "Print the closing summary to stderr even when it is not a terminal");
  clikit::set_examples(*sub, {
                       "embedpe encode --text \"Hello world\"                     # a summary on a terminal, JSON when piped",
                       "embedpe encode --input corpus.txt --seq-len 64 -o out.npz",
                       "embedpe encode --input corpus.txt --pe rope --emit input_ids,rope_cos,rope_sin -o rope.safetensors"});
  sub->callback([cmd] { run_encode(*cmd); });
}

}  // namespace embedpe::cli
