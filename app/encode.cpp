// embedpe encode: text → ids → E[ids] × scale + PE → JSON / .npy / .npz.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "batch_pipeline.h"
#include "commands.h"
#include "common.h"
#include "encode.h"
#include "output_dir.h"
#include "embedpe/error.h"
#include "half.h"
#include "embedpe/input_layer.h"
#include "json_writer.h"
#include "memory.h"
#include "embedpe/output_file.h"
#include "parallel.h"
#include "embedpe/rope.h"
#include "sha256.h"
#include "embedpe/text_input.h"
#include "embedpe/tensor_io.h"
#include "embedpe/version.h"
#include "layer_setup.h"

namespace embedpe::cli {
namespace {

constexpr std::pair<const char*, TensorName> kTensorNames[] = {
    {"input_ids", TensorName::input_ids},
    {"attention_mask", TensorName::attention_mask},
    {"token_embeddings", TensorName::token_embeddings},
    {"positional_encoding", TensorName::positional_encoding},
    {"output", TensorName::output},
    {"rope_cos", TensorName::rope_cos},  // not in "all": RoPE is never added to the input
    {"rope_sin", TensorName::rope_sin},
};

const char* name_of(TensorName t) {
  for (const auto& [name, value] : kTensorNames) {
    if (value == t) return name;
  }
  return "?";
}

Format infer_format(const EncodeCommand& cmd) {
  if (cmd.format) return *cmd.format;
  return format_from_extension<Format>(
             cmd.output, {{".json", Format::json}, {".jsonl", Format::jsonl}, {".npy", Format::npy}, {".npz", Format::npz}})
      .value_or(Format::json);
}

std::vector<TensorName> emitted(const EncodeCommand& cmd, Format format) {
  std::vector<TensorName> out;
  if (cmd.emit.empty()) {
    if (format == Format::npy && cmd.output_dir.empty()) return {TensorName::output};
    return {TensorName::input_ids, TensorName::attention_mask, TensorName::output};
  }
  for (const auto& name : cmd.emit) {
    if (name == "all") {
      for (const auto& entry : kTensorNames) {
        if (entry.second != TensorName::rope_cos && entry.second != TensorName::rope_sin) out.push_back(entry.second);
      }
      continue;
    }
    auto it = std::find_if(std::begin(kTensorNames), std::end(kTensorNames),
                           [&](const auto& entry) { return name == entry.first; });
    if (it == std::end(kTensorNames)) {
      throw UsageError("--emit: unknown tensor '" + name +
                       "'; choose from input_ids, attention_mask, token_embeddings, positional_encoding, output, all, "
                       "rope_cos, rope_sin");
    }
    out.push_back(it->second);
  }
  // Keep the canonical order and drop repeats, so outputs do not depend on
  // how the list was spelled.
  std::set<TensorName> unique(out.begin(), out.end());
  out.assign(unique.begin(), unique.end());
  if (format == Format::npy && cmd.output_dir.empty() && out.size() != 1) {
    throw UsageError(".npy holds one tensor but --emit names " + std::to_string(out.size()) +
                     "; use --format npz for several");
  }
  return out;
}

// Positions left in the sinusoidal table after --position-offset.
std::size_t pe_room(const EncodeCommand& cmd) {
  const std::size_t max_len = cmd.layer.max_len;
  const std::size_t offset = position_offset(cmd.layer);
  return max_len > offset ? max_len - offset : 0;
}

// --seq-len against the table, before anything is tokenized or padded.
void check_seq_len(const EncodeCommand& cmd) {
  if (cmd.layer.pe != PeKind::sinusoidal) return;  // learned tables are checked by the layer
  const std::size_t offset = position_offset(cmd.layer);
  if (cmd.tokenize.seq_len && *cmd.tokenize.seq_len > pe_room(cmd)) {
    throw UsageError("--seq-len " + std::to_string(*cmd.tokenize.seq_len) + " is longer than the PE table (--max-len " +
                     std::to_string(cmd.layer.max_len) +
                     (offset ? ", less --position-offset " + std::to_string(offset) : "") +
                     "); raise --max-len or lower --seq-len");
  }
}

void check_lengths(const Batch& batch, const std::vector<std::string>& origins, const EncodeCommand& cmd) {
  if (cmd.layer.pe != PeKind::sinusoidal) return;  // learned tables are checked by the layer
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


template <std::size_t N>
TensorRef convert(TensorRef ref, const xt::xtensor<float, N>& src, OutDType dtype, Converted& keep) {
  if (dtype == OutDType::f32) return ref;
  if (dtype == OutDType::f16) {
    keep.half.resize(src.size());
    for (std::size_t i = 0; i < src.size(); ++i) {
      const float v = src.data()[i];
      keep.half[i] = float_to_half(v);
      if (std::isfinite(v) && !std::isfinite(half_to_float(keep.half[i]))) {
        throw UsageError("tensor " + ref.name + " holds " + std::to_string(v) +
                         ", beyond float16's range (65504); use --dtype f32 or bf16");
      }
    }
    ref.dtype = DType::float16;
    ref.data = keep.half.data();
    return ref;
  }
  xt::xtensor<float, N> rounded = src;
  for (std::size_t i = 0; i < rounded.size(); ++i) {
    rounded.data()[i] = bfloat16_to_float(float_to_bfloat16(rounded.data()[i]));
  }
  if constexpr (N == 3) {
    keep.rounded3 = std::move(rounded);
    ref.data = keep.rounded3.data();
  } else {
    keep.rounded2 = std::move(rounded);
    ref.data = keep.rounded2.data();
  }
  return ref;
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
    std::tie(c.rope_cos, c.rope_sin) = rope_tables(ctx.rope, position_offset(ctx.cmd.layer), c.batch.seq_len());
  }
}

std::vector<TensorRef> tensors_of(const Context& ctx, const Computed& c, std::vector<Converted>& keep) {
  std::vector<TensorRef> tensors;
  keep.assign(ctx.emit.size(), {});
  const OutDType dtype = ctx.cmd.dtype;
  for (std::size_t k = 0; k < ctx.emit.size(); ++k) {
    const TensorName t = ctx.emit[k];
    switch (t) {
      case TensorName::input_ids: tensors.push_back(tensor_ref(name_of(t), c.batch.input_ids)); break;
      case TensorName::attention_mask: tensors.push_back(tensor_ref(name_of(t), c.batch.attention_mask)); break;
      case TensorName::token_embeddings:
        tensors.push_back(convert(tensor_ref(name_of(t), c.result.token_embeddings), c.result.token_embeddings, dtype,
                                  keep[k]));
        break;
      case TensorName::positional_encoding:
        tensors.push_back(convert(tensor_ref(name_of(t), c.result.positional_encoding), c.result.positional_encoding,
                                  dtype, keep[k]));
        break;
      case TensorName::output:
        tensors.push_back(convert(tensor_ref(name_of(t), c.result.output), c.result.output, dtype, keep[k]));
        break;
      case TensorName::rope_cos:
        tensors.push_back(convert(tensor_ref(name_of(t), c.rope_cos), c.rope_cos, dtype, keep[k]));
        break;
      case TensorName::rope_sin:
        tensors.push_back(convert(tensor_ref(name_of(t), c.rope_sin), c.rope_sin, dtype, keep[k]));
        break;
    }
  }
  return tensors;
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
  config["dtype"] = cmd.dtype == OutDType::f32 ? "float32" : cmd.dtype == OutDType::f16 ? "float16" : "bfloat16";
  nlohmann::ordered_json emit = nlohmann::ordered_json::array();
  for (TensorName t : ctx.emit) emit.push_back(name_of(t));
  config["emit"] = emit;
  return config;
}

namespace {

std::string dtype_label(const Context& ctx, const TensorRef& t) {
  return (ctx.cmd.dtype == OutDType::bf16 && t.dtype == DType::float32) ? "bfloat16" : dtype_name(t.dtype);
}

// ---------------------------------------------------------------- progress

// Lines, tokens, rate and (when the input size is known) ETA on a terminal;
// a summary at the end on a terminal or with --summary.
class Progress {
 public:
  Progress(const EncodeCommand& cmd, const LineReader* reader)
      : reader_(reader), live_(!cmd.quiet && ::isatty(STDERR_FILENO)), summary_(cmd.summary || live_),
        start_(std::chrono::steady_clock::now()), last_(start_) {}

  void add(const Batch& b) {
    lines_ += b.size();
    truncated_ += b.truncated_count();
    for (const auto& p : b.pieces) tokens_ += p.size();
    const auto now = std::chrono::steady_clock::now();
    if (!live_ || now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    std::fprintf(stderr, "\r%s", line(now).c_str());
  }

  void finish() {
    if (!summary_) return;
    const auto now = std::chrono::steady_clock::now();
    const double secs = std::chrono::duration<double>(now - start_).count();
    std::fprintf(stderr, "%sembedpe: %zu lines, %zu tokens, %zu truncated, %zu empty, %.2f s\n",
                 live_ && lines_ ? "\r\033[K" : "", lines_, tokens_, truncated_,
                 reader_ ? reader_->empty_lines() : std::size_t(0), secs);
  }

 private:
  std::string line(std::chrono::steady_clock::time_point now) const {
    const double secs = std::max(1e-9, std::chrono::duration<double>(now - start_).count());
    char text[200];
    int n = std::snprintf(text, sizeof text, "%zu lines, %zu tokens, %.0f lines/s", lines_, tokens_,
                          static_cast<double>(lines_) / secs);
    if (reader_ && reader_->total_bytes() && *reader_->total_bytes() > 0) {
      const double done = static_cast<double>(reader_->bytes_read()) / static_cast<double>(*reader_->total_bytes());
      const double eta = done > 0 ? secs * (1 - done) / done : 0;
      std::snprintf(text + n, sizeof text - static_cast<std::size_t>(n), ", %.0f%%, ETA %.0f s\033[K",
                    std::min(100.0, done * 100), eta);
    }
    return text;
  }

  const LineReader* reader_;
  bool live_, summary_;
  std::chrono::steady_clock::time_point start_, last_;
  std::size_t lines_ = 0, tokens_ = 0, truncated_ = 0;
};

// ---------------------------------------------------------------- outputs

// The whole input as one batch: json, npz, or an npy that fits one batch.
void write_whole(const Context& ctx, const Computed& c, OutputFile& out) {
  std::vector<Converted> keep;
  const std::vector<TensorRef> tensors = tensors_of(ctx, c, keep);
  switch (ctx.format) {
    case Format::npy: write_npy(out, tensors.front()); break;
    case Format::npz: write_npz(out, tensors); break;
    case Format::jsonl: break;  // streamed elsewhere
    case Format::json: {
      nlohmann::ordered_json config = run_config(ctx);
      config["sequences"] = c.batch.size();
      config["truncated"] = c.batch.truncated_count();
      nlohmann::ordered_json shapes = nlohmann::ordered_json::object(), dtypes = nlohmann::ordered_json::object();
      for (const auto& t : tensors) {
        shapes[t.name] = t.shape;
        dtypes[t.name] = dtype_label(ctx, t);
      }
      write_json(out, {{"config", config}, {"shapes", shapes}, {"dtypes", dtypes}, {"tokens", c.batch.pieces}},
                 tensors, ctx.threads);
      break;
    }
  }
}

// One JSON object per input line. Without --seq-len each record has the
// sequence's own length (no padding), so records do not depend on batching.
// `reader` is null for --text (records then carry the text's number as "line").
// Records are rendered on ctx.threads threads, a few megabytes at a time,
// and written in order.
void write_jsonl_records(const Context& ctx, const Computed& c, const std::vector<TextLine>& lines,
                         const LineReader* reader, OutputFile& out) {
  std::vector<Converted> keep;
  const std::vector<TensorRef> tensors = tensors_of(ctx, c, keep);
  const bool several = reader && reader->paths().size() > 1;
  auto per_position = [](const TensorRef& t) {  // (seq_len, d): the same rows for every sequence
    return t.name == "positional_encoding" || t.name == "rope_cos" || t.name == "rope_sin";
  };
  auto render = [&](std::size_t b, std::string& text) {
    const std::size_t len = ctx.cmd.tokenize.seq_len ? c.batch.seq_len() : c.batch.pieces[b].size();
    nlohmann::ordered_json head;
    if (several) head["source"] = reader->display_name(lines[b].source);
    head["line"] = lines[b].line;
    head["tokens"] = c.batch.pieces[b];
    text = head.dump();
    text.pop_back();  // reopen the object for the tensors
    for (const TensorRef& t : tensors) {
      TensorRef row = t;
      if (per_position(t)) {
        row.shape = {len, t.shape[1]};
      } else {
        std::size_t stride = dtype_size(t.dtype);
        for (std::size_t k = 1; k < t.shape.size(); ++k) stride *= t.shape[k];
        row.data = static_cast<const char*>(t.data) + b * stride;
        row.shape.erase(row.shape.begin());
        row.shape[0] = len;
      }
      text += ",\"" + t.name + "\":";
      append_tensor_json_line(text, row);
    }
    text += "}\n";
  };
  std::size_t values = 1;  // per record, at most
  for (const TensorRef& t : tensors) {
    values += per_position(t) ? t.elements() : t.elements() / std::max<std::size_t>(1, t.shape[0]);
  }
  constexpr std::size_t kValuesPerThread = std::size_t(1) << 17;  // ~1.5 MB of text
  const std::size_t round = std::max<std::size_t>(1, ctx.threads * kValuesPerThread / values);
  std::vector<std::string> texts(std::min(round, c.batch.size()));
  for (std::size_t first = 0; first < c.batch.size(); first += round) {
    const std::size_t n = std::min(round, c.batch.size() - first);
    parallel_for(n, ctx.threads, [&](std::size_t begin, std::size_t end) {
      for (std::size_t k = begin; k < end; ++k) render(first + k, texts[k]);
    });
    for (std::size_t k = 0; k < n; ++k) out.write(texts[k]);
  }
}

// A single .npy streamed batch by batch, its length completed at the end.
class NpyStream {
 public:
  NpyStream(OutputFile& out, const TensorRef& first) : out_(out), proto_(first) {
    TensorRef widest = proto_;
    widest.shape[0] = static_cast<std::size_t>(-1);  // as many digits as any count can take
    header_size_ = npy_header(widest).size();
    TensorRef empty = proto_;
    empty.shape[0] = 0;
    out_.write(npy_header(empty, header_size_));
  }
  void add(const TensorRef& t) {
    if (!std::equal(t.shape.begin() + 1, t.shape.end(), proto_.shape.begin() + 1, proto_.shape.end())) {
      throw Error("internal error: streamed batches differ in shape");
    }
    out_.write(t.data, t.bytes());
    rows_ += t.shape[0];
  }
  void finish() {
    TensorRef done = proto_;
    done.shape[0] = rows_;
    out_.rewrite(0, npy_header(done, header_size_));
  }

 private:
  OutputFile& out_;
  TensorRef proto_;
  std::size_t header_size_ = 0;
  std::size_t rows_ = 0;
};

// ---------------------------------------------------------------- run

// Refuses, before any work, a run whose batches cannot fit in memory (or
// under ulimit -v), counting everything a batch holds: the texts, ids, mask
// and pieces, the float tensors (token_embeddings too when emitted, a copy
// in the output dtype), the PE rows kept by the layer and their copy, and
// the JSON text of the pieces. Without --seq-len a sequence is taken at its
// shortest (one token, plus BOS/EOS), so nothing that fits is refused; the
// layer checks again with the real length before its allocations.
void check_encode_memory(const Context& ctx, const std::vector<TextLine>& first, bool streaming) {
  const EncodeCommand& cmd = ctx.cmd;
  const std::size_t d = ctx.parts.table->d_model();
  std::size_t rows = first.size(), text_bytes = 0;
  if (!cmd.output_dir.empty()) rows = cmd.shard_rows;
  for (const auto& l : first) text_bytes += l.text.size();
  const std::size_t specials = std::size_t(!cmd.tokenize.no_bos) + std::size_t(!cmd.tokenize.no_eos);
  const std::size_t seq = cmd.tokenize.seq_len.value_or(1 + specials);
  // Streaming keeps two batches: one written while the next is computed.
  const std::size_t slots = streaming ? 2 : 1;
  const std::string what = "encoding " + std::to_string(rows) + (rows == 1 ? " line" : " lines") + " of " +
                           (cmd.tokenize.seq_len ? "" : "at least ") + std::to_string(seq) + " tokens at d_model " +
                           std::to_string(d);
  const std::size_t tokens = checked_product({rows, seq}, what);
  // Pieces are kept for real tokens only: at most a byte each, plus BOS/EOS.
  const std::size_t pieces = std::min(tokens, checked_sum({text_bytes, checked_product({rows, specials}, what)}, what));
  std::size_t floats_per_token = ctx.want_layer ? (ctx.want_tok ? 2 : 1) : 0;
  if (ctx.want_layer && cmd.dtype != OutDType::f32) floats_per_token *= 2;  // the converted copy
  const std::size_t per_slot = checked_sum(
      {checked_product({tokens, 2 * sizeof(std::int64_t)}, what),  // ids, mask
       checked_product({pieces, 40}, what),                         // piece strings
       checked_product({tokens, d, sizeof(float), floats_per_token}, what),
       ctx.want_layer ? checked_product({seq, d, sizeof(float), 2}, what) : 0,  // PE rows + positional_encoding
       ctx.want_rope ? checked_product({seq, cmd.rope_dim.value_or(d), sizeof(float), 2}, what) : 0},
      what);
  check_allocation(checked_sum({checked_product({per_slot, slots}, what), text_bytes}, what), what,
                   std::string(cmd.tokenize.seq_len ? "lower --seq-len or --d-model" : "lower --d-model") +
                       (streaming ? ", or a smaller --batch-size" : ", or encode fewer lines at a time"));
}

void run_encode(const EncodeCommand& cmd) {
  const Format format = infer_format(cmd);
  const std::vector<TensorName> emit = emitted(cmd, format);
  if (cmd.dtype == OutDType::bf16 && format != Format::json && format != Format::jsonl) {
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
  if (!cmd.output_dir.empty()) {
    if (cmd.output != "-") throw UsageError("give --output or --output-dir, not both");
    if (cmd.format && *cmd.format != Format::npz) throw UsageError("--output-dir writes .npz parts; drop --format");
    if (cmd.shard_rows == 0) throw UsageError("--shard-rows must be at least 1");
    if (!cmd.text.texts.empty()) throw UsageError("--output-dir is for --input corpora");
  } else if (cmd.resume) {
    throw UsageError("--resume continues an --output-dir run");
  }
  if ((format == Format::npy || format == Format::npz) && cmd.output_dir.empty()) {
    refuse_binary_to_terminal(cmd.output, format == Format::npy ? ".npy" : ".npz");
  }
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
  Context ctx{cmd, format, emit, false, false, false, threads, threads, load_tokenizer(cmd.tokenize.model),
              {}, {}, {}, {}};
  ctx.want_tok = std::find(emit.begin(), emit.end(), TensorName::token_embeddings) != emit.end();
  ctx.want_layer = std::find_if(emit.begin(), emit.end(), [](TensorName t) {
                     return t == TensorName::token_embeddings || t == TensorName::positional_encoding ||
                            t == TensorName::output;
                   }) != emit.end();
  ctx.want_rope = std::find_if(emit.begin(), emit.end(), [](TensorName t) {
                    return t == TensorName::rope_cos || t == TensorName::rope_sin;
                  }) != emit.end();

  // Where the texts come from: --text, or a streaming reader over --input.
  std::unique_ptr<LineReader> reader;
  std::vector<TextLine> first;
  if (!cmd.text.texts.empty()) {
    const Texts t = load_texts(cmd.text);
    for (std::size_t i = 0; i < t.lines.size(); ++i) first.push_back({t.lines[i], 0, i + 1});
  } else {
    reader = open_reader(cmd.text);
  }
  // json and npz hold the whole input in one document; so does npy when it
  // all fits one batch. Otherwise: stream.
  const bool whole = cmd.output_dir.empty() && (format == Format::json || format == Format::npz);
  if (reader && cmd.output_dir.empty()) {
    first = reader->next(whole ? static_cast<std::size_t>(-1) : cmd.batch_size);
    // One shard of many may hold no line (a short file split N ways): its
    // output is a valid one with zero rows, so that parallel recipes work.
    if (first.empty() && !cmd.text.shard_given) {
      std::string names;
      for (std::size_t i = 0; i < reader->paths().size(); ++i) names += (i ? ", " : "") + reader->display_name(i);
      throw UsageError("input " + names + " has no text: nothing to encode");
    }
  }

  ctx.parts = build_layer(cmd.layer, ctx.tokenizer);
  check_encode_memory(ctx, first, reader && !whole && cmd.output_dir.empty());
  ctx.parts.options.dropout = dropout;
  ctx.parts.options.want_token_embeddings = ctx.want_tok;
  ctx.layer = std::make_unique<InputLayer>(*ctx.parts.table, ctx.parts.pe.get(), ctx.parts.options);
  if (ctx.want_rope) {
    RopeOptions o = cmd.rope.options;
    o.dim = cmd.rope_dim.value_or(ctx.parts.table->d_model());
    o.seq_len = position_offset(cmd.layer) + cmd.tokenize.seq_len.value_or(0);
    ctx.rope = rope_frequencies(o);
    ctx.rope_config = rope_json(o, ctx.rope);
  }

  Progress progress(cmd, reader.get());
  if (!cmd.output_dir.empty()) {
    const OutputDirStats stats = run_output_dir(ctx, *reader, [&](const Batch& b) { progress.add(b); });
    progress.finish();
    if (cmd.summary) {
      std::fprintf(stderr, "embedpe: --output-dir: %zu parts; manifest and journal %.3f s, part hashes %.3f s\n",
                   stats.parts, stats.manifest_seconds, stats.part_hash_seconds);
    }
    return;
  }

  // The texts of `lines` (moved out) and where each came from, for errors.
  auto take_texts = [&](std::vector<TextLine>& lines) {
    std::vector<std::string> texts, origins;
    texts.reserve(lines.size());
    origins.reserve(lines.size());
    for (auto& l : lines) {
      origins.push_back(reader ? reader->display_name(l.source) + ":" + std::to_string(l.line)
                               : "--text " + std::to_string(l.line));
      texts.push_back(std::move(l.text));
    }
    return std::pair{std::move(texts), std::move(origins)};
  };

  std::vector<TextLine> second = (reader && !whole) ? reader->next(cmd.batch_size) : std::vector<TextLine>{};
  // A .npy over several batches is completed at the end: refuse a target
  // that cannot be gone back to before opening it (a FIFO would block).
  const bool streamed_npy = format != Format::jsonl && !second.empty();
  if (streamed_npy && !cmd.tokenize.seq_len) {
    throw UsageError("the input has more than --batch-size " + std::to_string(cmd.batch_size) +
                     " lines: streaming them into one .npy needs a fixed --seq-len (or use --format jsonl, "
                     "--output-dir, or a larger --batch-size)");
  }
  if (streamed_npy && !output_is_replaced_file(cmd.output)) {
    throw UsageError("a .npy of more than --batch-size " + std::to_string(cmd.batch_size) +
                     " lines is completed at the end, which " +
                     (cmd.output == "-" ? std::string("standard output") : cmd.output) +
                     " cannot do: give --output FILE (or use --format jsonl, or a larger --batch-size)");
  }
  OutputFile out(cmd.output);
  if (format != Format::jsonl && second.empty()) {
    auto [texts, origins] = take_texts(first);
    Computed c;
    compute(ctx, texts, origins, 0, c);
    progress.add(c.batch);
    write_whole(ctx, c, out);
  } else {
    // Streaming: JSON Lines, or one .npy over several batches. Batch n is
    // written by the pipeline's thread while batch n+1 is computed.
    const bool npy = streamed_npy;
    // The writer thread takes a core of its own: by default the batches are
    // computed on the others (on two cores: one computes, one writes).
    if (!cmd.threads) ctx.compute_threads = std::max<std::size_t>(1, ctx.threads - 1);
    struct Slot {
      std::vector<TextLine> lines;
      Computed computed;
    };
    std::optional<NpyStream> stream;
    BatchPipeline<Slot> pipe([&](Slot& s) {
      if (!npy) {
        write_jsonl_records(ctx, s.computed, s.lines, reader.get(), out);
        return;
      }
      std::vector<Converted> keep;
      const std::vector<TensorRef> tensors = tensors_of(ctx, s.computed, keep);
      if (!stream) stream.emplace(out, tensors.front());
      stream->add(tensors.front());
    });
    std::size_t row = 0;
    for (std::vector<TextLine> lines = std::move(first); !lines.empty();) {
      Slot& s = pipe.next();
      s.lines = std::move(lines);
      auto [texts, origins] = take_texts(s.lines);
      compute(ctx, texts, origins, row, s.computed);
      progress.add(s.computed.batch);
      row += s.lines.size();
      pipe.submit();
      lines = std::move(second);
      second = reader ? reader->next(cmd.batch_size) : std::vector<TextLine>{};
    }
    pipe.finish();
    if (stream) stream->finish();
  }
  out.commit();
  progress.finish();
}

}  // namespace

void setup_encode(CLI::App& app) {
  auto cmd = std::make_shared<EncodeCommand>();
  auto* sub = app.add_subcommand("encode", "Text → token ids → embedding × scale + positional encoding");
  add_text_options(*sub, cmd->text);
  add_tokenize_flags(*sub, cmd->tokenize);
  add_layer_flags(*sub, cmd->layer);
  add_rope_flags(*sub, cmd->rope);
  add_number(*sub, "--rope-dim", cmd->rope_dim, 2, kMaxDModel,
             "Rotary dimension for --emit rope_cos,rope_sin (default d_model)");
  sub->add_flag("--train", cmd->train, "Training mode: apply inverted dropout (needs --seed)");
  add_number(*sub, "--dropout", cmd->dropout, 0.0, 1.0, "Dropout probability with --train (default 0.1)",
             /*hi_open=*/true)
      ->type_name("P");
  add_choice<Format>(*sub, "--format", [cmd](Format f) { cmd->format = f; },
                     {{"json", Format::json}, {"jsonl", Format::jsonl}, {"npy", Format::npy}, {"npz", Format::npz}},
                     "Output format (default: from --output's extension, else json)");
  add_choice<OutDType>(*sub, "--dtype", [cmd](OutDType d) { cmd->dtype = d; },
                       {{"f32", OutDType::f32}, {"f16", OutDType::f16}, {"bf16", OutDType::bf16}},
                       "Float tensors as float32 (default), float16, or bfloat16 (JSON only)");
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
