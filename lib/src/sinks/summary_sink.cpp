// --format summary: what a person at a terminal wants to see of a run, in
// about 40 lines: the model and the layer in two lines, each sequence's
// tokens with their ids, the shapes, and each float tensor abbreviated the
// way NumPy prints a large array (first and last rows and values, "...").
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "embedpe/weights.h"
#include "half.h"
#include "sinks/file_sink.h"

namespace embedpe {
namespace {

constexpr std::size_t kEdge = 3;        // values shown at each end of the last axis
constexpr std::size_t kMaxLines = 40;   // the whole summary, when the arrays allow it
constexpr std::size_t kEdgeSequences = 3;  // sequences whose tokens are listed at each end

float value_at(const TensorRef& t, std::size_t i) {
  const auto* p = static_cast<const unsigned char*>(t.data);
  switch (t.dtype) {
    case DType::float32: {
      float v;
      std::memcpy(&v, p + 4 * i, 4);
      return v;
    }
    case DType::float64: {
      double v;
      std::memcpy(&v, p + 8 * i, 8);
      return static_cast<float>(v);
    }
    case DType::float16:
    case DType::bfloat16: {
      std::uint16_t v;
      std::memcpy(&v, p + 2 * i, 2);
      return t.dtype == DType::float16 ? half_to_float(v) : bfloat16_to_float(v);
    }
    default:
      return 0;
  }
}

bool is_float(DType d) {
  return d == DType::float32 || d == DType::float64 || d == DType::float16 || d == DType::bfloat16;
}

// The indices shown along an axis of `n`: all, or the first and last
// `edge` with npos marking the "..." between them.
std::vector<std::size_t> shown(std::size_t n, std::size_t edge) {
  std::vector<std::size_t> v;
  if (n <= 2 * edge) {
    for (std::size_t i = 0; i < n; ++i) v.push_back(i);
    return v;
  }
  for (std::size_t i = 0; i < edge; ++i) v.push_back(i);
  v.push_back(std::string::npos);
  for (std::size_t i = n - edge; i < n; ++i) v.push_back(i);
  return v;
}

// A float tensor as NumPy abbreviates it: one line per innermost row shown.
void print_array(std::string& out, const TensorRef& t, std::size_t edge_rows) {
  const std::size_t rank = t.shape.size();
  if (rank == 0 || t.elements() == 0) {
    out += "[]\n";
    return;
  }
  // One format for every value shown, wide enough for the widest.
  float widest = 0;
  const std::size_t cols = t.shape.back();
  const std::size_t rows = t.elements() / cols;
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c : shown(cols, kEdge)) {
      if (c != std::string::npos) widest = std::max(widest, std::fabs(value_at(t, r * cols + c)));
    }
  }
  const bool scientific = widest >= 1e5f || (widest > 0 && widest < 1e-3f);
  // Right-aligned to the widest, as NumPy aligns columns.
  const int digits = widest >= 1 ? static_cast<int>(std::floor(std::log10(widest))) + 1 : 1;
  const int width = scientific ? 10 : 1 + digits + 1 + 4;
  auto number = [&](float v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, scientific ? "%*.3e" : "%*.4f", width, static_cast<double>(v));
    return std::string(buf);
  };
  // Recursive over the leading axes.
  auto walk = [&](auto&& self, std::size_t axis, std::size_t offset) -> void {
    const std::size_t stride = [&] {
      std::size_t s = 1;
      for (std::size_t a = axis + 1; a < rank; ++a) s *= t.shape[a];
      return s;
    }();
    if (axis + 1 == rank) {
      std::string line = "[";
      bool first = true;
      for (std::size_t c : shown(cols, kEdge)) {
        line += first ? "" : " ";
        first = false;
        line += c == std::string::npos ? "..." : number(value_at(t, offset + c));
      }
      out += line + "]";
      return;
    }
    out += "[";
    bool first = true;
    for (std::size_t i : shown(t.shape[axis], edge_rows)) {
      if (!first) out += std::string(rank - axis - 1, '\n') + std::string(axis + 1, ' ');  // as NumPy separates
      first = false;
      if (i == std::string::npos) {
        out += "...";
        continue;
      }
      self(self, axis + 1, offset + i * stride);
    }
    out += "]";
  };
  walk(walk, 0, 0);
  out += "\n";
}

std::string model_line(const nlohmann::ordered_json& config) {
  const auto m = config.find("model");
  if (m == config.end() || !m->is_object()) return "";
  std::string s = "model   " + m->value("source", std::string("?")) + " (" + m->value("type", std::string("?")) +
                  ", " + std::to_string(m->value("vocab_size", 0)) + " pieces";
  const std::string sha = m->value("sha256", std::string());
  if (!sha.empty()) s += ", SHA-256 " + sha.substr(0, 12) + "...";
  return s + ")\n";
}

std::string layer_line(const nlohmann::ordered_json& config) {
  if (!config.contains("d_model")) return "";
  std::string s = "layer   d_model " + config["d_model"].dump();
  if (config.contains("embedding") && config["embedding"].is_string()) {
    s += " · embedding " + config["embedding"].get<std::string>();
  }
  if (config.contains("scale_factor")) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " · × %.6g (%s)", config["scale_factor"].get<double>(),
                  config.value("scale", std::string("?")).c_str());
    s += buf;
  }
  const auto pe = config.find("positional_encoding");
  if (pe != config.end() && pe->is_object()) {
    s += " · PE " + pe->value("kind", std::string("?"));
    std::string params;
    for (const auto& [key, value] : pe->items()) {
      if (key == "kind" || value.is_null() || value.is_object() || value.is_array()) continue;
      params += (params.empty() ? "" : ", ") + key + " " + (value.is_string() ? value.get<std::string>() : value.dump());
    }
    if (!params.empty()) s += " (" + params + ")";
  }
  if (config.contains("token_type_embeddings")) s += " · + token types";
  if (config.contains("layernorm") && config["layernorm"].is_object()) s += " · LayerNorm";
  const auto projection = config.find("projection");
  if (projection != config.end() && projection->is_object() && projection->value("order", std::string()) == "albert") {
    s += " · then projected from E " + projection->value("width", nlohmann::ordered_json()).dump() + " (ALBERT's order)";
  }
  if (config.contains("dtype")) s += " · " + config["dtype"].get<std::string>();
  return s + "\n";
}

class SummarySink : public FileSink {
 public:
  using FileSink::FileSink;

  void add(const SinkBatch& b) override {
    only_once();
    std::string s = model_line(run().config) + layer_line(run().config);
    const Batch& batch = b.batch;
    s += "tokens  " + std::to_string(batch.size()) + (batch.size() == 1 ? " sequence" : " sequences") +
         ", padded to " + std::to_string(batch.seq_len()) + " (" + std::to_string(batch.truncated_count()) +
         " truncated)\n";
    for (std::size_t r : shown(batch.size(), kEdgeSequences)) {
      if (r == std::string::npos) {
        s += "  ...\n";
        continue;
      }
      std::string line = "  [" + std::to_string(r) + "]";
      const auto& pieces = batch.pieces[r];
      for (std::size_t l = 0; l < pieces.size(); ++l) {
        line += " " + pieces[l] + "/" + std::to_string(batch.input_ids(r, batch.first_token(r) + l));
        if (line.size() > 200 && l + 1 < pieces.size()) {
          line += " ... (" + std::to_string(pieces.size()) + " tokens)";
          break;
        }
      }
      s += line + "\n";
    }
    std::size_t name_width = 0;
    for (const TensorRef& t : b.tensors) name_width = std::max(name_width, t.name.size());
    for (const TensorRef& t : b.tensors) {
      s += t.name + std::string(name_width + 2 - t.name.size(), ' ') + shape_text(t.shape) + " " +
           dtype_name(t.dtype) + "\n";
    }
    // The float tensors (ids and mask are in the tokens above), with two
    // rows at each end of the leading axes, or one when that is too long.
    std::string arrays;
    for (std::size_t edge_rows : {2, 1}) {
      arrays.clear();
      for (const TensorRef& t : b.tensors) {
        if (!is_float(t.dtype)) continue;
        arrays += "\n" + t.name + " =\n";
        print_array(arrays, t, edge_rows);
      }
      if (std::count(s.begin(), s.end(), '\n') + std::count(arrays.begin(), arrays.end(), '\n') + 2 <=
          static_cast<std::ptrdiff_t>(kMaxLines)) {
        break;
      }
    }
    s += arrays + "\n(a summary for the terminal: -o FILE.npz or --format json for every value)\n";
    out().write(s);
  }
};

}  // namespace

const SinkFormat& summary_sink_format() {
  static const SinkFormat f{"summary", {}, {.whole_input = true, .tables = false, .view = true},
                            [](const std::string& path) { return std::make_unique<SummarySink>(path); }};
  return f;
}

}  // namespace embedpe
