// info --pretrained PATH: what a model directory, a GGUF file or a tokenizer.json holds (embedpe/report.h).
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "embedpe/model_source.h"
#include "embedpe/pretrained_tokenizer.h"
#include "embedpe/report.h"
#include "embedpe/weights.h"

namespace embedpe {
namespace {

// Bytes of one element of a safetensors dtype ("F32": 4); 0 for one not known.
std::size_t dtype_bytes(const std::string& dtype) {
  for (const auto& [name, size] : {std::pair<const char*, std::size_t>{"F64", 8}, {"I64", 8}, {"U64", 8},
                                   {"F32", 4}, {"I32", 4}, {"U32", 4}, {"F16", 2}, {"BF16", 2}, {"I16", 2},
                                   {"U16", 2}, {"I8", 1}, {"U8", 1}, {"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1}}) {
    if (dtype == name) return size;
  }
  return 0;
}

// "1.3 GiB", "512 KiB", "100 bytes".
std::string byte_text(std::size_t bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  std::size_t u = 0;
  while (v >= 1024 && u + 1 < std::size(units)) {
    v /= 1024;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return text;
}

nlohmann::ordered_json tensor_json(const PretrainedTensor& t) {
  nlohmann::ordered_json j = {{"name", t.name}, {"file", t.file}};
  if (!t.role.empty()) j["role"] = t.role;
  if (!t.dtype.empty()) j["dtype"] = t.dtype;
  if (!t.dtype.empty()) j["shape"] = t.shape;
  return j;
}

// What was understood of a model directory.
std::string directory_report(const PretrainedModel& m, ReportFormat format, const ParameterText& flags_text) {
  if (format == ReportFormat::json) {
    nlohmann::ordered_json j = {{"pretrained", m.dir},
                                {"model_type", m.model_type},
                                {"architecture", m.architecture},
                                {"input_layer", m.description},
                                {"hidden_size", m.hidden_size},
                                {"vocab_size", m.vocab_size},
                                {"max_positions", m.max_positions ? nlohmann::ordered_json(*m.max_positions) : nullptr},
                                {"torch_dtype", m.torch_dtype}};
    j["used"] = nlohmann::ordered_json::array();
    for (const auto& t : m.used) j["used"].push_back(tensor_json(t));
    j["parameters"] = m.parameters;
    j["flags"] = flags_text(m.parameters);
    if (!m.rope.empty()) j["rope"] = m.rope;
    j["unused"] = nlohmann::ordered_json::array();
    for (const auto& t : m.unused) j["unused"].push_back(tensor_json(t));
    return j.dump(2) + "\n";
  }
  std::string text = "model directory: " + m.dir + "\n";
  text += "model_type: " + m.model_type + (m.architecture.empty() ? " (no architectures: base model names)" : "") + "\n";
  if (!m.architecture.empty()) text += "architecture: " + m.architecture + "\n";
  text += "input layer: " + m.description + "\n";
  text += "hidden_size: " + std::to_string(m.hidden_size) + ", vocab_size: " + std::to_string(m.vocab_size) +
          ", positions: " + (m.max_positions ? std::to_string(*m.max_positions) : std::string("no bound")) + "\n";
  if (!m.torch_dtype.empty()) text += "torch_dtype: " + m.torch_dtype + " (computed in float32, as from_pretrained)\n";
  text += "tensors used:\n";
  for (const auto& t : m.used) {
    text += "  " + t.role + ": " + t.name + " " + shape_text(t.shape) + " " + t.dtype + " in " + t.file + "\n";
  }
  text += "equivalent flags: " + flags_text(m.parameters) + "\n";
  if (!m.rope.empty()) text += "RoPE (inside attention): " + flags_text(m.rope) + "\n";
  // A summary: a 7B checkpoint has hundreds (--format json lists every one).
  std::size_t bytes = 0, unopened = 0;
  for (const auto& t : m.unused) {
    if (t.dtype.empty()) {
      ++unopened;
      continue;
    }
    std::size_t size = dtype_bytes(t.dtype);
    for (std::size_t n : t.shape) size *= n;
    bytes += size;
  }
  text += "tensors the input layer does not use: " + std::to_string(m.unused.size());
  if (!m.unused.empty()) {
    text += " (" + byte_text(bytes) + (unopened ? ", and " + std::to_string(unopened) + " in shards not opened" : "") +
            "; --format json lists them all)";
  }
  text += "\n";
  constexpr std::size_t kShown = 5;
  for (std::size_t i = 0; i < m.unused.size() && i < kShown; ++i) {
    const auto& t = m.unused[i];
    text += "  ";
    text += t.name;
    if (t.dtype.empty()) {
      text += " (in ";
      text += t.file;
      text += ", not opened)";
    } else {
      text += ' ';
      text += shape_text(t.shape);
      text += ' ';
      text += t.dtype;
    }
    text += '\n';
  }
  if (m.unused.size() > kShown) text += "  ... and " + std::to_string(m.unused.size() - kShown) + " more\n";
  return text;
}

// The tokenizer.json of `path` (a file, or a directory's): its model and components,
// after `report` (a directory's own report, "" for a file).
std::string tokenizer_json_report(const std::string& path, std::string report, ReportFormat format) {
  const Tokenizer tokenizer = load_pretrained_tokenizer(path);
  const PretrainedTokenizerInfo& p = *tokenizer.info().pretrained;
  if (format == ReportFormat::json) {
    nlohmann::ordered_json j = report.empty() ? nlohmann::ordered_json{{"pretrained", path}}
                                              : nlohmann::ordered_json::parse(report);
    j["tokenizer"] = {{"format", "tokenizer.json"}, {"components", p.description},
                      {"tokenizer_class", p.tokenizer_class}, {"vocab_size", tokenizer.info().vocab_size}};
    return j.dump(2) + "\n";
  }
  if (report.empty()) report = "tokenizer.json: " + path + "\n";
  return report + "tokenizer: " + p.description + "; " + p.tokenizer_class + ", " +
         std::to_string(tokenizer.info().vocab_size) + " ids\n";
}

}  // namespace

std::string pretrained_report(const ModelSource& source, ReportFormat format, const ParameterText& flags_text) {
  const std::string& path = source.pretrained_path();
  if (is_gguf_file(path)) return gguf_report(path, format);
  if (is_tokenizer_json_file(path)) return tokenizer_json_report(path, "", format);  // a tokenizer.json alone: no layer
  std::error_code ec;
  const std::filesystem::path dir(path);
  const auto there = [&](const char* name) { return std::filesystem::exists(std::filesystem::symlink_status(dir / name, ec)); };
  if (!there("config.json") && there("tokenizer.json")) return tokenizer_json_report(path, "", format);  // tokenizer files alone
  std::string text = directory_report(source.pretrained(), format, flags_text);
  if (std::filesystem::exists(std::filesystem::path(path) / "tokenizer.json")) {
    text = tokenizer_json_report(path, text, format);
  }
  return text;
}

}  // namespace embedpe
