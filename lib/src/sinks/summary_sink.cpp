// --format summary: what a person at a terminal wants to see of a run (of
// encode or tokenize), in about 40 lines: the model and the layer (wrapped
// at 80 characters), each sequence's tokens with their ids, the shapes, and
// each float tensor as NumPy prints it: in full up to NumPy's threshold of
// 1000 values when that fits, else abbreviated (first and last rows and
// values, "...").
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "embedpe/weights.h"
#include "half.h"
#include "sinks/file_sink.h"

namespace embedpe {
namespace {

constexpr std::size_t kEdge = 3;        // values shown at each end of the last axis
constexpr std::size_t kMaxLines = 40;   // the whole summary, when the arrays allow it
constexpr std::size_t kEdgeSequences = 3;  // sequences whose tokens are listed at each end
// NumPy's print options: an array of more than `threshold` values is
// abbreviated; lines wrap at `linewidth` characters.
constexpr std::size_t kThreshold = 1000;
constexpr std::size_t kLineWidth = 75;
constexpr std::size_t kTerminalWidth = 80;  // the model and layer lines wrap here

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

// A float tensor as NumPy prints it: in full up to NumPy's threshold (when
// `numpy_threshold`), else abbreviated, with `edge_rows` at each end of the
// leading axes (NumPy's edgeitems, lowered to keep the summary short) and
// kEdge values of each row.
void print_array(std::string& out, const TensorRef& t, bool numpy_threshold, std::size_t edge_rows) {
  const std::size_t rank = t.shape.size();
  if (rank == 0 || t.elements() == 0) {
    out += "[]\n";
    return;
  }
  const bool full = numpy_threshold && t.elements() <= kThreshold;
  auto shown_along = [&](std::size_t n, std::size_t edge) { return shown(n, full ? n : edge); };
  // One format for every value shown, wide enough for the widest.
  float widest = 0;
  const std::size_t cols = t.shape.back();
  const std::size_t rows = t.elements() / cols;
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c : shown_along(cols, kEdge)) {
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
      // Wrapped at the line width as NumPy wraps, the rest under the first value.
      const std::size_t line_start = out.rfind('\n');
      std::size_t column = out.size() - (line_start == std::string::npos ? 0 : line_start + 1);
      out += "[";
      ++column;
      bool first = true;
      for (std::size_t c : shown_along(cols, kEdge)) {
        const std::string item = c == std::string::npos ? "..." : number(value_at(t, offset + c));
        if (!first && column + 1 + item.size() + 1 > kLineWidth) {
          out += '\n';
          out.append(axis + 1, ' ');
          column = axis + 1;
        } else if (!first) {
          out += " ";
          ++column;
        }
        first = false;
        out += item;
        column += item.size();
      }
      out += "]";
      return;
    }
    out += "[";
    bool first = true;
    for (std::size_t i : shown_along(t.shape[axis], edge_rows)) {
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

// Characters (code points) of UTF-8 text.
std::size_t display_width(std::string_view s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

// `text` cut after each `brk`, the breaks kept.
std::vector<std::string> split_after(const std::string& text, std::string_view brk) {
  std::vector<std::string> pieces;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t at = text.find(brk, start);
    const std::size_t end = at == std::string::npos ? text.size() : at + brk.size();
    pieces.push_back(text.substr(start, end - start));
    start = end;
  }
  return pieces;
}

// `line` wrapped to kTerminalWidth at its " · " breaks (and at ", " within a
// part too long for a line), each further line indented by `indent`.
std::string wrapped(const std::string& line, std::size_t indent) {
  std::vector<std::string> pieces;
  for (const std::string& part : split_after(line, " · ")) {
    if (display_width(part) + indent <= kTerminalWidth) {
      pieces.push_back(part);
    } else {
      for (std::string& p : split_after(part, ", ")) pieces.push_back(std::move(p));
    }
  }
  std::string out, current;
  for (const std::string& piece : pieces) {
    if (!current.empty() && display_width(current) + display_width(piece) > kTerminalWidth) {
      while (!current.empty() && current.back() == ' ') current.pop_back();
      out += current + "\n";
      current = std::string(indent, ' ');
    }
    current += piece;
  }
  return out + current;
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
  return wrapped(s, 8) + "\n";
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
    // The float tensors (ids and mask are in the tokens above): as NumPy
    // prints them, if that fits; else with two rows at each end of the
    // leading axes, or one when that is too long.
    std::string arrays;
    for (const auto& [numpy_threshold, edge_rows] : {std::pair{true, 2}, std::pair{false, 2}, std::pair{false, 1}}) {
      arrays.clear();
      for (const TensorRef& t : b.tensors) {
        if (!is_float(t.dtype)) continue;
        arrays += "\n" + t.name + " =\n";
        print_array(arrays, t, numpy_threshold, edge_rows);
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
