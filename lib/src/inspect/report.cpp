#include "embedpe/report.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <vector>

#include "embedpe/error.h"
#include "embedpe/pretrained_model.h"
#include "embedpe/projection.h"
#include "embedpe/weights.h"
#include "ggml_types.h"
#include "gguf.h"
#include "gguf_bpe.h"
#include "json_writer.h"
#include "memory.h"
#include "embedpe/message.h"

namespace embedpe {
namespace {

// A name from a file or the command line (a path, a tensor name, a piece)
// as text reports show it: control bytes spelled out (\t, \n, \r, \xNN), so
// that a name cannot break a row or send a terminal an escape sequence.
std::string printable(std::string_view name) {
  std::string out;
  for (unsigned char c : name) {
    if (c >= 0x20 && c != 0x7f) {
      out += static_cast<char>(c);
    } else if (c == '\t' || c == '\n' || c == '\r') {
      out += c == '\t' ? "\\t" : c == '\n' ? "\\n" : "\\r";
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return out;
}

// `width` characters: `s`, then spaces (never cut: a longer `s` is kept whole).
std::string padded(std::string s, std::size_t width) { return s.append(width - std::min(width, s.size()), ' '); }

// The text reports' "key  value" rows, the values lined up one column after
// the longest key, however long.
class Rows {
 public:
  void add(std::string key, std::string value) { rows_.emplace_back(std::move(key), std::move(value)); }
  std::string text() const {
    std::size_t width = 13;  // "byte_fallback", the widest key of most reports
    for (const auto& [key, value] : rows_) width = std::max(width, key.size());
    std::string out;
    for (const auto& [key, value] : rows_) out += padded(key, width + 1) + value + "\n";
    return out;
  }

 private:
  std::vector<std::pair<std::string, std::string>> rows_;
};

const char* yes_no(bool b) { return b ? "yes" : "no"; }

std::string special(const Tokenizer& tok, int id) {
  if (id < 0) return "-1 (none)";
  return std::to_string(id) + "  " + printable(tok.id_to_piece(id));
}

// Which tensor encode would take for `names`, or "" (none or ambiguous).
std::string usual(const WeightFile& file, const std::vector<std::string_view>& names) {
  const WeightTensor* t = find_usual(file, names);
  return t ? t->name : "";
}

const char* format_name(const WeightFile& file) {
  return file.format() == WeightFormat::npy ? "npy" : "safetensors";
}

// The tables encode would take: a .npy is its one array, and holds no positions.
std::string embedding_name(const WeightFile& file) {
  if (file.format() != WeightFormat::npy) return usual(file, kEmbeddingNames);
  return file.tensors().front().shape.size() == 2 ? "(the array)" : "";  // a table is (vocab, d_model)
}
std::string position_name(const WeightFile& file) {
  return file.format() == WeightFormat::npy ? "" : usual(file, kPositionNames);
}

// The piece of `id` if the tokenizer has it (a table may have more rows).
std::string tokenizer_piece(const Tokenizer& tok, std::int64_t id) {
  return id < tok.info().vocab_size ? std::string(tok.id_to_piece(static_cast<int>(id))) : "(beyond the vocabulary)";
}

std::string shortest(float v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace

nlohmann::ordered_json model_report_json(const Tokenizer& tok) {
  const ModelInfo& info = tok.info();
  nlohmann::ordered_json m = model_config(tok);
  m["normalizer"] = info.normalizer;
  m["add_dummy_prefix"] = info.add_dummy_prefix;
  m["remove_extra_whitespaces"] = info.remove_extra_whitespaces;
  m["split_digits"] = info.split_digits;
  m["byte_fallback"] = info.byte_fallback;
  m["size_bytes"] = info.size_bytes;
  return m;
}

std::string model_report(const Tokenizer& tok, ReportFormat format) {
  if (format == ReportFormat::json) return model_report_json(tok).dump(2) + "\n";
  const ModelInfo& info = tok.info();
  Rows rows;
  rows.add("model", printable(info.source));
  rows.add("sha256", tok.sha256());
  rows.add("size", std::to_string(info.size_bytes) + " bytes");
  rows.add("type", info.model_type);
  rows.add("normalizer", info.normalizer.empty() ? "(none)" : printable(info.normalizer));
  rows.add("add_dummy_prefix", yes_no(info.add_dummy_prefix));
  rows.add("remove_extra_whitespaces", yes_no(info.remove_extra_whitespaces));
  rows.add("split_digits", yes_no(info.split_digits));
  rows.add("byte_fallback", yes_no(info.byte_fallback));
  rows.add("vocab_size", std::to_string(info.vocab_size));
  rows.add("pad_id", special(tok, info.pad_id));
  rows.add("bos_id", special(tok, info.bos_id));
  rows.add("eos_id", special(tok, info.eos_id));
  rows.add("unk_id", special(tok, info.unk_id));
  return rows.text();
}

nlohmann::ordered_json weights_report_json(const WeightFile& file, const std::string& path) {
  nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
  for (const auto& t : file.tensors()) {
    tensors.push_back(
        {{"name", t.name}, {"shape", t.shape}, {"dtype", dtype_info(t.dtype).safetensors}, {"bytes", t.size_bytes}});
  }
  nlohmann::ordered_json projections = nlohmann::ordered_json::array();
  bool any_tied = false;
  for (const auto& p : weight_tying(file).projections) {
    projections.push_back({{"name", p.tensor->name}, {"tied", p.same_bytes}});
    any_tied = any_tied || p.same_bytes;
  }
  nlohmann::ordered_json doc = {
      {"path", path},
      {"format", format_name(file)},
      {"size_bytes", file.file_size()},
      {"tensors", tensors},
      {"token_embedding", embedding_name(file)},
      {"position_embedding", position_name(file)},
      {"output_projections", projections},
      {"tied", projections.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(any_tied)}};
  if (const std::optional<StoredFactorization> factorized = stored_factorization(file)) {
    const auto& f = *factorized;
    doc["factorized"] = {{"table", f.table->name},
                         {"projection", f.weight->name},
                         {"bias", f.bias ? nlohmann::ordered_json(f.bias->name) : nlohmann::ordered_json()},
                         {"embedding_size", f.embedding_size},
                         {"d_model", f.d_model},
                         {"bytes", f.bytes},
                         {"full_table_bytes", f.full_bytes},
                         {"saved_bytes", static_cast<std::int64_t>(f.full_bytes) - static_cast<std::int64_t>(f.bytes)}};
  }
  return doc;
}

std::string weights_report(const WeightFile& file, const std::string& path, ReportFormat format) {
  if (format == ReportFormat::json) return weights_report_json(file, path).dump(2) + "\n";
  const std::string emb = embedding_name(file);
  const std::string pos = position_name(file);
  const WeightTying tying = weight_tying(file);
  std::string tied;  // "yes: lm_head.weight has the same bytes; no: output.weight differs"
  for (const auto& p : tying.projections) {
    tied += (tied.empty() ? "" : "; ") + std::string(p.same_bytes ? "yes: " : "no: ") + printable(p.tensor->name) +
            (p.same_bytes ? " has the same bytes" : " differs");
  }
  if (tying.embedding && tied.empty()) tied = "no output projection stored (a tied model may store it once)";
  Rows rows;
  rows.add("weights", printable(path) + " (" + format_name(file) + ", " + std::to_string(file.file_size()) + " bytes)");
  const char* none = file.format() == WeightFormat::npy ? "(none: the array is not a (vocab, d_model) table)"
                                                        : "(none or several usual names; give PATH:TENSOR)";
  rows.add("embedding", emb.empty() ? none : printable(emb));
  if (!pos.empty()) rows.add("positions", printable(pos));
  if (!tied.empty()) rows.add("tied", tied);
  if (const std::optional<StoredFactorization> factorized = stored_factorization(file)) {
    const auto& f = *factorized;
    char saved[256];
    std::snprintf(saved, sizeof saved,
                  "%zu bytes for the (%zu, %zu) table and the projection to %zu, against %zu "
                  "for a (%zu, %zu) table: ",
                  f.bytes, f.vocab, f.embedding_size, f.d_model, f.full_bytes, f.vocab, f.d_model);
    std::string line = saved;
    if (f.bytes < f.full_bytes) {
      std::snprintf(saved, sizeof saved, "%.1f%% saved",
                    100.0 * static_cast<double>(f.full_bytes - f.bytes) / static_cast<double>(f.full_bytes));
      line += saved;
    } else {
      line += "nothing saved (E is not below d_model)";
    }
    rows.add("factorized", line);
  }
  // One line a tensor, its columns as wide as their widest entry.
  std::vector<std::array<std::string, 4>> lines;
  std::array<std::size_t, 4> width{};
  for (const auto& t : file.tensors()) {
    lines.push_back({t.name.empty() ? "(array)" : printable(t.name), shape_text(t.shape),
                     std::string(dtype_info(t.dtype).safetensors), std::to_string(t.size_bytes) + " bytes"});
    for (std::size_t c = 0; c < 4; ++c) width[c] = std::max(width[c], lines.back()[c].size());
  }
  std::string text = rows.text();
  for (const auto& l : lines) {
    text += "  " + padded(l[0], width[0]) + "  " + padded(l[1], width[1]) + "  " + padded(l[2], width[2]) + "  " +
            std::string(width[3] - l[3].size(), ' ') + l[3] + "\n";  // sizes right-aligned
  }
  return text;
}

std::string table_rows_report(const EmbeddingTable& table, std::span<const std::int64_t> ids, std::optional<Dims> dims,
                              const Tokenizer* tokenizer, ReportFormat format) {
  const std::size_t d = table.d_model();
  const Dims shown = dims.value_or(Dims{0, d});
  check_dims(shown, d);
  // The rows, plus their text (at most ~16 bytes a value), before any work.
  const std::string what =
      std::to_string(ids.size()) + (ids.size() == 1 ? " row of " : " rows of ") + std::to_string(d) + " values";
  check_allocation(checked_product({ids.size(), d, sizeof(float) + 16}, what), what,
                   "lower d_model or look up fewer ids", {"d_model", "ids"}, /*what_is_text=*/true);
  std::vector<std::vector<float>> rows;
  for (std::int64_t id : ids) {
    if (id < 0 || id >= table.vocab_size()) {
      throw UsageError(
          "ids: " + std::to_string(id) + " is outside the table's " + std::to_string(table.vocab_size()) + " rows",
          {"ids"});
    }
    rows.emplace_back(d);
    table.row(id, rows.back().data());
  }
  const auto values = [&](const std::vector<float>& r) {
    return std::span<const float>(r).subspan(shown.first, shown.count);
  };
  if (format == ReportFormat::json) {
    nlohmann::ordered_json doc = {
        {"table", table.describe()}, {"d_model", d}, {"ids", std::vector<std::int64_t>(ids.begin(), ids.end())}};
    if (tokenizer) {
      nlohmann::ordered_json pieces = nlohmann::ordered_json::array();
      for (std::int64_t id : ids) pieces.push_back(tokenizer_piece(*tokenizer, id));
      doc["pieces"] = pieces;
    }
    doc["dims"] = {{"first", shown.first}, {"count", shown.count}};
    nlohmann::ordered_json json_rows = nlohmann::ordered_json::array();
    for (const auto& r : rows) {
      nlohmann::ordered_json jr = nlohmann::ordered_json::array();
      for (float v : values(r)) {
        // As encode's JSON does: JSON has no NaN or infinity (nlohmann would write null).
        if (!std::isfinite(v)) {
          Message m;
          m << Verbatim{table.describe()} << " holds " << (std::isnan(v) ? "NaN" : "an infinity")
            << " in the rows asked for, which JSON cannot represent; use format table";
          throw m.error({"format"});
        }
        jr.push_back(float_json(v));
      }
      json_rows.push_back(jr);
    }
    doc["rows"] = json_rows;
    return doc.dump() + "\n";
  }
  // Tab-separated columns: id, piece (when a model is known), then one per dim.
  std::string text = "# E[id] from " + printable(table.describe()) + ", d_model " + std::to_string(d);
  if (dims) text += ", dims " + dims_text(shown);
  text += "\n";
  for (std::size_t k = 0; k < rows.size(); ++k) {
    text += std::to_string(ids[k]);
    if (tokenizer) text.append("\t").append(printable(tokenizer_piece(*tokenizer, ids[k])));
    for (float v : values(rows[k])) text.append("\t").append(shortest(v));
    text += "\n";
  }
  return text;
}

std::string quantize_report(const QuantizeReport& r, const std::string& input, const WeightTensor& tensor,
                            const std::string& output, const std::string& projection, ReportFormat format) {
  const double saved = 100.0 * (1.0 - static_cast<double>(r.output_bytes) / static_cast<double>(r.input_bytes));
  if (format == ReportFormat::json) {
    nlohmann::ordered_json doc = {{"input", input},
                                  {"tensor", tensor.name},
                                  {"output", output},
                                  {"input_bytes", r.input_bytes},
                                  {"output_bytes", r.output_bytes},
                                  {"saved_percent", saved},
                                  {"max_abs_error", r.max_abs_error},
                                  {"mean_abs_error", r.mean_abs_error},
                                  {"output_scale", float_json(r.output_scale)},
                                  {"max_abs_output_error", r.max_abs_output_error},
                                  {"mean_abs_output_error", r.mean_abs_output_error}};
    if (!projection.empty()) doc["projection_not_in_output"] = projection;
    return doc.dump(2) + "\n";
  }
  // The path outside the buffer, which holds numbers only: a long path is never cut.
  char text[512];
  std::snprintf(text, sizeof text,
                ": int8 per-row symmetric, %zu x %zu\n"
                "size           %zu -> %zu bytes (%.1f%% saved)\n"
                "rows           max abs error %.3g, mean abs error %.3g\n"
                "output         max abs error %.3g, mean abs error %.3g (embedding x %g, PE unchanged)\n",
                tensor.shape[0], tensor.shape[1], r.input_bytes, r.output_bytes, saved, r.max_abs_error,
                r.mean_abs_error, r.max_abs_output_error, r.mean_abs_output_error, double(r.output_scale));
  return "wrote " + printable(output) + text;
}

std::string ggml_quantize_report(const GgmlQuantizeReport& r, const std::string& input, const WeightTensor& tensor,
                                 const std::string& output, const std::string& projection, ReportFormat format) {
  const double saved = 100.0 * (1.0 - static_cast<double>(r.quantized_bytes) / static_cast<double>(r.input_bytes));
  if (format == ReportFormat::json) {
    nlohmann::ordered_json doc = {{"input", input},
                                  {"tensor", tensor.name},
                                  {"type", r.type},
                                  {"block_elems", r.block_elems},
                                  {"bits_per_weight", r.bits_per_weight},
                                  {"rows", r.rows},
                                  {"d_model", r.d_model},
                                  {"input_bytes", r.input_bytes},
                                  {"quantized_bytes", r.quantized_bytes},
                                  {"saved_percent", saved},
                                  {"output", output.empty() ? nlohmann::ordered_json(nullptr)
                                                            : nlohmann::ordered_json(output)},
                                  {"output_bytes", r.output_bytes},
                                  {"max_abs_error", r.max_abs_error},
                                  {"mean_abs_error", r.mean_abs_error},
                                  {"rms_error", r.rms_error},
                                  {"relative_rms_error", r.relative_rms_error},
                                  {"non_finite_values", r.non_finite_values},
                                  {"worst_row", r.worst_row},
                                  {"worst_row_max_abs_error", r.worst_row_max_abs_error},
                                  {"output_scale", float_json(r.output_scale)},
                                  {"max_abs_output_error", r.max_abs_output_error},
                                  {"mean_abs_output_error", r.mean_abs_output_error}};
    if (!projection.empty()) doc["projection_not_in_output"] = projection;
    return doc.dump(2) + "\n";
  }
  char text[768];
  std::snprintf(text, sizeof text,
                ": ggml %s (blocks of %zu, %.4g bits per weight), %zu x %zu, quantized and dequantized as ggml does\n"
                "size           %zu -> %zu bytes as %s blocks (%.1f%% saved)\n"
                "rows           max abs error %.3g, mean abs error %.3g, rms error %.3g, relative rms error %.3g\n"
                "worst row      %zu (max abs error %.3g)\n"
                "output         max abs error %.3g, mean abs error %.3g (embedding x %g, PE unchanged)\n",
                r.type.c_str(), r.block_elems, r.bits_per_weight, r.rows, r.d_model, r.input_bytes,
                r.quantized_bytes, r.type.c_str(), saved, r.max_abs_error, r.mean_abs_error, r.rms_error,
                r.relative_rms_error, r.worst_row, r.worst_row_max_abs_error, r.max_abs_output_error,
                r.mean_abs_output_error, double(r.output_scale));
  std::string head = printable(input);
  if (!output.empty()) head = "wrote " + printable(output) + " (float32, dequantized) from " + head;
  std::string tail;
  if (r.non_finite_values > 0) {
    tail = "non-finite     " + std::to_string(r.non_finite_values) + " values dequantize to infinity or NaN: " +
           r.type + "'s float16 scales cannot hold this table's magnitudes\n";
  }
  return head + text + tail;
}

std::string info_report(const Tokenizer* model, const WeightFile* weights, const std::string& weights_path,
                        ReportFormat format) {
  if (format == ReportFormat::json && weights) {
    nlohmann::ordered_json doc = nlohmann::ordered_json::object();
    if (model) doc["model"] = model_report_json(*model);
    doc["weights"] = weights_report_json(*weights, weights_path);
    return doc.dump(2) + "\n";
  }
  std::string text = model ? model_report(*model, format) : "";
  if (weights) text += (text.empty() ? "" : "\n") + weights_report(*weights, weights_path, format);
  return text;
}

}  // namespace embedpe

namespace embedpe {

namespace {

nlohmann::ordered_json gguf_json(const gguf::Value& v) {
  using gguf::ValueType;
  switch (v.type) {
    case ValueType::string: return std::string(v.str);
    case ValueType::boolean: return v.i != 0;
    case ValueType::float32: case ValueType::float64: return v.f;
    case ValueType::uint8: case ValueType::uint16: case ValueType::uint32: case ValueType::uint64: return v.u;
    case ValueType::array: {
      constexpr std::size_t kShown = 64;  // longer arrays (the vocabulary) are summarised
      if (v.count > kShown) {
        return {{"array_of", gguf::value_type_name(v.element_type)}, {"count", v.count}};
      }
      nlohmann::ordered_json a = nlohmann::ordered_json::array();
      for (std::size_t k = 0; k < v.count; ++k) {
        if (v.element_type == ValueType::string) a.push_back(std::string(v.strings[k]));
        else if (v.element_type == ValueType::array) a.push_back(gguf_json(v.items[k]));
        else a.push_back(gguf_json(v.element(k)));
      }
      return a;
    }
    default: return v.i;
  }
}

std::string bits_text(double bits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", bits);
  return buf;
}

}  // namespace

std::string gguf_report(const std::string& path, ReportFormat format) {
  const auto file = WeightFile::open(path);
  const gguf::File& g = *file->gguf();
  nlohmann::ordered_json j;
  j["gguf"] = path;
  j["version"] = g.version();
  j["alignment"] = g.alignment();
  j["parts"] = g.part_paths();
  const std::string arch = g.string_value("general.architecture").value_or("");
  j["architecture"] = arch;
  nlohmann::ordered_json keys = nlohmann::ordered_json::object();
  for (const auto& [key, v] : g.metadata()) {
    if (key.rfind("tokenizer.", 0) == 0) continue;
    keys[key] = gguf_json(v);
  }
  j["metadata"] = keys;

  nlohmann::ordered_json tok;
  const std::string model = g.string_value("tokenizer.ggml.model").value_or("");
  tok["model"] = model.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(model);
  const std::optional<std::string> pre = g.string_value("tokenizer.ggml.pre");
  if (model == "gpt2") tok["pre"] = pre ? nlohmann::ordered_json(*pre) : nlohmann::ordered_json();
  const gguf::Value* tokens = g.find("tokenizer.ggml.tokens");
  tok["vocab_size"] = tokens ? tokens->count : 0;
  const bool spm = model == "llama";  // llama.cpp's defaults for SPM (llama-vocab.cpp)
  const auto id = [&](const char* key, int fallback) -> nlohmann::ordered_json {
    if (const auto v = g.integer_value(key)) return *v;
    return fallback >= 0 && spm ? nlohmann::ordered_json(fallback) : nlohmann::ordered_json();
  };
  tok["bos_id"] = id("tokenizer.ggml.bos_token_id", 1);
  tok["eos_id"] = id("tokenizer.ggml.eos_token_id", 2);
  tok["unk_id"] = id("tokenizer.ggml.unknown_token_id", 0);
  tok["pad_id"] = id("tokenizer.ggml.padding_token_id", -1);
  // The unknown token the ids use: unknown_token_id's piece and its type
  // (a converter types <unk> CONTROL when added_tokens_decoder marks it special).
  tok["unk_token"] = nullptr;
  tok["unk_token_type"] = nullptr;
  if (tokens && tokens->element_type == gguf::ValueType::string && tok["unk_id"].is_number_integer()) {
    const auto unk = tok["unk_id"].get<std::int64_t>();
    if (unk >= 0 && static_cast<std::uint64_t>(unk) < tokens->count) {
      tok["unk_token"] = std::string(tokens->strings[static_cast<std::size_t>(unk)]);
      const gguf::Value* types = g.find("tokenizer.ggml.token_type");
      if (types && types->type == gguf::ValueType::array && types->element_type == gguf::ValueType::int32 &&
          types->count == tokens->count) {
        static constexpr const char* kTypes[] = {"UNDEFINED", "NORMAL", "UNKNOWN", "CONTROL",
                                                 "USER_DEFINED", "UNUSED", "BYTE"};
        const std::int64_t type = types->element(static_cast<std::size_t>(unk)).i;
        tok["unk_token_type"] = type >= 0 && type < 7 ? nlohmann::ordered_json(kTypes[type]) : nlohmann::ordered_json(type);
      }
    }
  }
  tok["add_bos_token"] = g.bool_value("tokenizer.ggml.add_bos_token").value_or(spm);
  tok["add_eos_token"] = g.bool_value("tokenizer.ggml.add_eos_token").value_or(false);
  tok["add_space_prefix"] = g.bool_value("tokenizer.ggml.add_space_prefix").value_or(spm);
  tok["embedpe"] = spm ? "llama.cpp's SPM tokenizer" : "not rebuilt: give token ids (--ids)";
  if (model == "gpt2") {
    const std::optional<std::string> components = gguf_bpe_pre_components(pre.value_or(""));
    tok["embedpe"] = components ? "the tokenizer.json of pre " + *pre + ": " + *components
                                : "refused: tokenizer.ggml.pre " + (pre ? "'" + *pre + "'" : std::string("(missing)")) +
                                      " is not a pre-tokenizer embedpe knows";
  }
  j["tokenizer"] = tok;

  try {
    j["input_layer"] = read_pretrained_model(path).description;
  } catch (const UsageError& e) {
    j["input_layer"] = nullptr;
    j["input_layer_refused"] = e.what();
  }
  nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
  const gguf::TensorInfo* embd = nullptr;
  for (const gguf::TensorInfo& t : g.tensors()) {
    if (t.name == "token_embd.weight") embd = &t;
    tensors.push_back({{"name", t.name}, {"type", ggml::type_info(t.type)->name}, {"shape", t.numpy_shape()},
                       {"ggml_shape", t.dims}, {"bytes", t.size_bytes}, {"part", t.part}});
  }
  j["tensors"] = tensors;
  if (embd) {
    const ggml::TypeInfo* info = ggml::type_info(embd->type);
    j["token_embd_bits_per_weight"] = 8.0 * static_cast<double>(info->block_bytes) / static_cast<double>(info->block_elems);
  }
  if (format == ReportFormat::json) return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";

  const auto line = [](const nlohmann::ordered_json& v) -> std::string {
    if (v.is_null()) return "none";
    return v.is_string() ? printable(v.get<std::string>())
                         : v.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  };
  std::string text = "GGUF file: " + path + " (version " + std::to_string(g.version()) + ", alignment " +
                     std::to_string(g.alignment()) + ", " + std::to_string(g.part_paths().size()) +
                     (g.part_paths().size() == 1 ? " part)\n" : " parts)\n");
  text += "architecture: " + (arch.empty() ? std::string("(none)") : printable(arch)) + "\n";
  text += "metadata:\n";
  for (const auto& [key, v] : keys.items()) text += "  " + printable(key) + ": " + line(v) + "\n";
  text += "tokenizer: " + (model.empty() ? std::string("(none)") : printable(model)) +
          (tok.contains("pre") ? ", pre " + line(tok["pre"]) : std::string()) + ", vocab_size " + line(tok["vocab_size"]) +
          ", bos " + line(tok["bos_id"]) + ", eos " + line(tok["eos_id"]) + ", unk " + line(tok["unk_id"]) +
          (tok["unk_token"].is_null() ? std::string()
                                      : " (" + line(tok["unk_token"]) +
                                            (tok["unk_token_type"].is_null() ? "" : ", " + line(tok["unk_token_type"])) + ")") +
          ", pad " +
          line(tok["pad_id"]) + "; add_bos_token " + line(tok["add_bos_token"]) + ", add_eos_token " +
          line(tok["add_eos_token"]) + ", add_space_prefix " + line(tok["add_space_prefix"]) + " (" +
          line(tok["embedpe"]) + ")\n";
  text += "input layer: " + (j["input_layer"].is_null() ? "refused: " + line(j["input_layer_refused"]) : line(j["input_layer"])) + "\n";
  text += "tensors: " + std::to_string(g.tensors().size()) + " (shape in NumPy's order; ggml's in brackets)\n";
  for (const gguf::TensorInfo& t : g.tensors()) {
    std::string ggml_dims;
    for (std::size_t k = 0; k < t.dims.size(); ++k) ggml_dims += (k ? ", " : "") + std::to_string(t.dims[k]);
    text += "  " + printable(t.name) + " " + ggml::type_info(t.type)->name + " " + shape_text(t.numpy_shape()) + " [ggml: " +
            ggml_dims + "] " + std::to_string(t.size_bytes) + " bytes" +
            (g.part_paths().size() > 1 ? " in part " + std::to_string(t.part + 1) : "") + "\n";
  }
  if (embd) {
    text += std::string("token_embd: ") + ggml::type_info(embd->type)->name + ", " +
            bits_text(j["token_embd_bits_per_weight"].get<double>()) + " bits per weight\n";
  }
  return text;
}

}  // namespace embedpe
