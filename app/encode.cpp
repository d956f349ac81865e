// embedpe encode: text → ids → E[ids] × scale + PE → a sink (sink.h: JSON, JSON Lines, .npy, .npz, ...).

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "batch_pipeline.h"
#include "commands.h"
#include "common.h"
#include "encode.h"
#include "output_dir.h"
#include "progress.h"
#include "embedpe/error.h"
#include "embedpe/input_layer.h"
#include "parallel.h"
#include "embedpe/rope.h"
#include "embedpe/text_input.h"
#include "embedpe/version.h"
#include "layer_setup.h"

namespace embedpe::cli {
namespace {

const SinkFormat& infer_format(const EncodeCommand& cmd) {
  if (cmd.format) return *cmd.format;
  // A person at a terminal gets a summary; a pipe or a file gets the data.
  if (cmd.output == "-" && cmd.output_dir.empty() && ::isatty(STDOUT_FILENO)) return *find_sink_format("summary");
  std::vector<std::pair<std::string, const SinkFormat*>> extensions;
  for (const SinkFormat* f : sink_formats()) {
    for (const std::string& e : f->extensions) extensions.emplace_back(e, f);
  }
  return *format_from_extension(cmd.output, extensions).value_or(find_sink_format("json"));
}

// Positions left in the sinusoidal table after --position-offset.
std::size_t pe_room(const EncodeCommand& cmd) {
  const std::size_t max_len = cmd.layer.max_len;
  const std::size_t offset = position_offset(cmd.layer);
  return max_len > offset ? max_len - offset : 0;
}

// --seq-len against the table, before anything is tokenized or padded.
void check_seq_len(const EncodeCommand& cmd) {
  if (!cmd.layer.pe->sized_by_max_len()) return;  // learned tables are checked by the layer
  const std::size_t offset = position_offset(cmd.layer);
  if (cmd.tokenize.seq_len && *cmd.tokenize.seq_len > pe_room(cmd)) {
    throw UsageError("--seq-len " + std::to_string(*cmd.tokenize.seq_len) + " is longer than the PE table (--max-len " +
                     std::to_string(cmd.layer.max_len) +
                     (offset ? ", less --position-offset " + std::to_string(offset) : "") +
                     "); raise --max-len or lower --seq-len");
  }
}

void check_lengths(const Batch& batch, const std::vector<std::string>& origins, const EncodeCommand& cmd) {
  if (!cmd.layer.pe->sized_by_max_len()) return;  // learned tables are checked by the layer
  check_seq_len(cmd);
  const std::size_t room = pe_room(cmd);
  if (batch.seq_len() <= room) return;
  auto longest = std::max_element(batch.pieces.begin(), batch.pieces.end(),
                                  [](const auto& a, const auto& b) { return a.size() < b.size(); });
  const std::size_t i = static_cast<std::size_t>(longest - batch.pieces.begin());
  throw UsageError(origins[i] + " is " + std::to_string(longest->size()) +
                   " tokens long but the PE table has " + std::to_string(room) +
                   " positions; raise --max-len, or truncate with --seq-len");
}

}  // namespace

void compute(const Context& ctx, const std::vector<std::string>& texts, const std::vector<std::string>& origins,
             std::size_t first_row, Computed& c) {
  try {
    c.batch = ctx.tokenizer.encode_batch(texts, encode_options(ctx.cmd.tokenize), ctx.compute_threads);
  } catch (const std::bad_alloc&) {
    // Tokenizing costs memory in proportion to the text: blame the longest
    // line (not --seq-len, which only truncates afterwards).
    const auto longest = std::max_element(texts.begin(), texts.end(),
                                          [](const auto& a, const auto& b) { return a.size() < b.size(); });
    const std::size_t i = static_cast<std::size_t>(longest - texts.begin());
    throw Error("out of memory tokenizing " + (i < origins.size() ? origins[i] : std::string("the input")) + " (" +
                std::to_string(longest->size()) + " bytes); split long lines, or refuse them with a lower "
                "--max-line-bytes (now " + std::to_string(ctx.cmd.text.reading.max_line_bytes) + ")");
  }
  check_lengths(c.batch, origins, ctx.cmd);
  if (ctx.want_layer) {
    ctx.layer->forward_into(c.result, c.batch.input_ids, c.batch.attention_mask, ctx.compute_threads, first_row);
  }
  if (ctx.want_rope) {
    std::tie(c.rope_cos, c.rope_sin) = rope_tables(ctx.rope, ctx.parts.options.position_offset, c.batch.seq_len());
  }
}

nlohmann::ordered_json run_config(const Context& ctx) {
  const EncodeCommand& cmd = ctx.cmd;
  nlohmann::ordered_json config = {
      {"embedpe_version", version()},
      {"model", model_json(ctx.tokenizer)},
      {"add_bos", !cmd.tokenize.no_bos},
      {"add_eos", !cmd.tokenize.no_eos},
      {"pad_id", cmd.tokenize.pad_id.value_or(ctx.tokenizer.info().pad_id >= 0 ? ctx.tokenizer.info().pad_id : 0)},
      {"seq_len", cmd.tokenize.seq_len ? nlohmann::ordered_json(*cmd.tokenize.seq_len) : nlohmann::ordered_json()},
  };
  for (const auto& [key, value] : ctx.parts.config.items()) config[key] = value;
  if (!ctx.rope_config.is_null()) config["rope"] = ctx.rope_config;
  config["training"] = cmd.train;
  config["dropout"] = ctx.parts.options.dropout ? nlohmann::ordered_json(ctx.parts.options.dropout->p)
                                                : nlohmann::ordered_json();
  config["dtype"] = dtype_name(cmd.dtype);
  nlohmann::ordered_json emit = nlohmann::ordered_json::array();
  for (TensorName t : ctx.emit) emit.push_back(name_of(t));
  config["emit"] = emit;
  return config;
}

namespace {

// ---------------------------------------------------------------- run

void run_encode(const EncodeCommand& cmd) {
  const SinkFormat& format = infer_format(cmd);
  const std::vector<TensorName> emit = emitted(cmd, format);
  if (cmd.dtype == DType::bfloat16 && !format.traits.bfloat16) {
    throw UsageError("--dtype bf16: NumPy has no bfloat16 dtype, so .npy/.npz cannot hold it; use --format json or "
                     "jsonl, or --dtype f32 and convert (e.g. torch.from_numpy(a).bfloat16())");
  }
  if (cmd.dropout && !cmd.train) throw UsageError("--dropout only applies with --train (inference never drops)");
  std::optional<Dropout> dropout;
  if (cmd.train) {
    if (cmd.layer.table.seed_option->count() == 0) {
      throw UsageError("--train needs an explicit --seed, so that the dropout mask can be reproduced");
    }
    dropout = Dropout{cmd.dropout.value_or(0.1), cmd.layer.table.seed};
  }
  check_output_dir_flags(cmd);
  if (format.traits.binary && cmd.output_dir.empty()) refuse_binary_to_terminal(cmd.output, "." + std::string(format.name));
  std::vector<std::pair<std::string, std::string>> inputs = text_inputs(cmd.text, cmd.tokenize.model);
  for (auto& input : layer_inputs(cmd.layer)) inputs.push_back(std::move(input));
  if (cmd.output_dir.empty()) {
    refuse_outputs_over_inputs({cmd.output}, inputs);
  } else {
    refuse_inputs_in_output_dir(cmd.output_dir, inputs);
  }

  check_seq_len(cmd);
  const std::size_t threads = cmd.threads.value_or(available_cores());
  if (threads == 0) throw UsageError("--threads must be at least 1");
  auto emits = [&](std::initializer_list<TensorName> names) {
    return std::find_first_of(emit.begin(), emit.end(), names.begin(), names.end()) != emit.end();
  };
  Context ctx{.cmd = cmd,
              .format = format,
              .emit = emit,
              .want_tok = emits({TensorName::token_embeddings}),
              .want_rope = emits({TensorName::rope_cos, TensorName::rope_sin}),
              .want_layer = emits({TensorName::token_embeddings, TensorName::positional_encoding, TensorName::output}),
              .threads = threads,
              .compute_threads = threads,
              .tokenizer = load_tokenizer(cmd.tokenize.model)};

  // Where the texts come from: --text, or a streaming reader over --input.
  TextSource source = open_texts(cmd.text);
  LineReader* reader = source.reader();
  // Some formats hold the whole input in one document; the others stream,
  // a single batch when it all fits one. --text is always one batch.
  const bool whole = cmd.output_dir.empty() && format.traits.whole_input;
  std::vector<TextLine> first;
  if (!reader) {
    first = source.next(static_cast<std::size_t>(-1));
  } else if (cmd.output_dir.empty()) {
    first = source.next(whole ? static_cast<std::size_t>(-1) : cmd.batch_size);
    // One shard of many may hold no line (a short file split N ways): its
    // output is a valid one with zero rows, so that parallel recipes work.
    if (first.empty() && !cmd.text.shard_given) {
      throw UsageError("input " + source.input_names() + " has no text: nothing to encode");
    }
  }

  ctx.parts = build_layer(cmd.layer, ctx.tokenizer);
  check_encode_memory(ctx, first, reader && !whole && cmd.output_dir.empty());
  ctx.parts.options.dropout = dropout;
  ctx.parts.options.want_token_embeddings = ctx.want_tok;
  ctx.layer = std::make_unique<InputLayer>(*ctx.parts.table, ctx.parts.pe.get(), ctx.parts.options);
  if (ctx.want_rope) {
    RopeOptions o = rope_options(cmd.layer.pe_args);
    o.dim = cmd.rope_dim.value_or(ctx.parts.table->d_model());
    o.seq_len = ctx.parts.options.position_offset + cmd.tokenize.seq_len.value_or(0);
    ctx.rope = rope_frequencies(o);
    ctx.rope_config = to_json(o, ctx.rope);
  }

  Progress progress(cmd.quiet, cmd.summary, reader);
  if (!cmd.output_dir.empty()) {
    const OutputDirStats stats = run_output_dir(ctx, source, [&](const Batch& b) { progress.add(b); });
    progress.finish();
    if (cmd.summary) print_output_dir_summary(stats);
    return;
  }

  std::vector<TextLine> second = whole ? std::vector<TextLine>{} : source.next(cmd.batch_size);
  std::unique_ptr<TensorSink> sink = format.make(cmd.output);
  const SinkRun run{.config = run_config(ctx),
                    .sources = source.source_names(),
                    .per_position = {name_of(TensorName::positional_encoding), name_of(TensorName::rope_cos),
                                     name_of(TensorName::rope_sin)},
                    .seq_len = cmd.tokenize.seq_len,
                    .threads = ctx.threads,
                    .streamed = !second.empty(),
                    .batch_size = cmd.batch_size};
  sink->begin(run);
  auto write = [&](const Computed& c, const std::vector<TextLine>& lines) {
    std::vector<TensorBuffer> keep;
    sink->add({c.batch, lines, tensors_of(ctx, c, keep)});
  };
  if (second.empty() && !format.traits.streams) {
    auto [texts, origins] = source.take(first);
    Computed c;
    compute(ctx, texts, origins, 0, c);
    progress.add(c.batch);
    write(c, first);
  } else {
    // Streaming: batch n is written by the pipeline's thread while batch n+1
    // is computed. The writer thread takes a core of its own: by default the
    // batches are computed on the others (on two cores: one computes, one writes).
    if (!cmd.threads) ctx.compute_threads = std::max<std::size_t>(1, ctx.threads - 1);
    struct Slot {
      std::vector<TextLine> lines;
      Computed computed;
    };
    BatchPipeline<Slot> pipe([&](Slot& s) { write(s.computed, s.lines); });
    std::size_t row = 0;
    for (std::vector<TextLine> lines = std::move(first); !lines.empty();) {
      Slot& s = pipe.next();
      s.lines = std::move(lines);
      auto [texts, origins] = source.take(s.lines);
      compute(ctx, texts, origins, row, s.computed);
      progress.add(s.computed.batch);
      row += s.lines.size();
      pipe.submit();
      lines = std::move(second);
      second = source.next(cmd.batch_size);
    }
    pipe.finish();
  }
  sink->finish();
  progress.finish();
}

}  // namespace

void setup_encode(CLI::App& app) {
  auto cmd = std::make_shared<EncodeCommand>();
  auto* sub = app.add_subcommand("encode", "Text → token ids → embedding × scale + positional encoding");
  add_text_options(*sub, cmd->text);
  add_tokenize_flags(*sub, cmd->tokenize);
  add_layer_flags(*sub, cmd->layer);
  add_number(*sub, "--rope-dim", cmd->rope_dim, 2, kMaxDModel,
             "Rotary dimension for --emit rope_cos,rope_sin (default d_model)");
  sub->add_flag("--train", cmd->train, "Training mode: apply inverted dropout (needs --seed)");
  add_number(*sub, "--dropout", cmd->dropout, 0.0, 1.0, "Dropout probability with --train (default 0.1)",
             /*hi_open=*/true)
      ->type_name("P");
  std::vector<std::pair<std::string, const SinkFormat*>> formats;
  for (const SinkFormat* f : sink_formats()) formats.emplace_back(f->name, f);
  add_choice<const SinkFormat*>(*sub, "--format", [cmd](const SinkFormat* f) { cmd->format = f; }, formats,
                                "Output format (default: from --output's extension, else json)");
  std::string bf16_formats;  // the formats that can hold it
  for (const SinkFormat* f : sink_formats()) {
    if (f->traits.bfloat16) bf16_formats += (bf16_formats.empty() ? "" : ", ") + std::string(f->name);
  }
  add_choice<DType>(*sub, "--dtype", [cmd](DType d) { cmd->dtype = d; },
                    {{"f32", DType::float32}, {"f16", DType::float16}, {"bf16", DType::bfloat16}},
                    "Float tensors as float32 (default), float16, or bfloat16 (" + bf16_formats + ")");
  add_output_option(*sub, cmd->output);
  sub->add_option("--emit", cmd->emit,
                  "Tensors to write: input_ids, attention_mask, token_embeddings, positional_encoding, output, all "
                  "(default: output for npy; input_ids,attention_mask,output otherwise); also rope_cos, rope_sin")
      ->delimiter(',')
      ->type_name("NAME,...");
  add_number(*sub, "--batch-size", cmd->batch_size, 1, kMaxBatchRows, "Lines encoded at a time when streaming (1 to 1048576)");
  add_number(*sub, "--threads", cmd->threads, 1, kMaxThreads,
             "Threads for tokenizing, embedding and JSON text (default: the cores available; when streaming, "
             "one core is left to the writer; at most 1024)");
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
  sub->callback([cmd] { run_encode(*cmd); });
}

}  // namespace embedpe::cli
