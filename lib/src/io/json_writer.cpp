#include "json_writer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "embedpe/error.h"
#include "half.h"
#include "parallel.h"

namespace embedpe {
namespace {

// A tensor's text, produced one innermost row (the last dimension) at a
// time, so that any range of rows can be rendered on its own — and ranges
// rendered on several threads are concatenated in order.
//
// Pretty form, as the nested arrays of the whole document (indent 2):
//   [\n    [v, v],\n    [v, v]\n  ]
// One-line form (JSON Lines): [[v, v], [v, v]]
//
// Around row r with leading indices (i_0 .. i_{m-1}) of extents n_k:
//   before: for k = 0 .. m-1, if i_j = 0 for all j > k (child i_k begins
//           here): the array of level k opens if i_k = 0, then the child's
//           lead (its indentation);
//   after:  for k = m-1 .. 0, while the child of level k ends here: a
//           separator if i_k < n_k - 1 (and stop), else the level closes.
class TensorText {
 public:
  TensorText(const TensorRef& t, bool one_line, int precision) : t_(t), one_line_(one_line), precision_(precision) {
    const std::size_t ndim = t.shape.size();
    levels_ = ndim > 0 ? ndim - 1 : 0;
    row_len_ = ndim > 0 ? t.shape.back() : 1;
    rows_ = 1;
    for (std::size_t k = 0; k < levels_; ++k) rows_ *= t.shape[k];
    for (std::size_t k = 0; k <= levels_; ++k) pads_.emplace_back(2 * k + 2, ' ');
  }

  std::size_t rows() const { return rows_; }
  std::size_t row_length() const { return row_len_; }

  // The whole tensor.
  void append_all(std::string& out) const {
    if (t_.shape.empty()) {
      reserve_and_write(out, 32, [&](char* p) { return value(p, 0); });
      return;
    }
    if (rows_ == 0) {  // a leading dimension is 0: no rows to hang the brackets on
      append_empty(out, 0);
      return;
    }
    append_rows(0, rows_, out);
  }

  // Rows [begin, end) with their brackets, separators and indentation.
  void append_rows(std::size_t begin, std::size_t end, std::string& out) const {
    std::vector<std::size_t> index(levels_);  // leading indices of row `begin`
    for (std::size_t k = levels_, r = begin; k-- > 0;) {
      index[k] = r % t_.shape[k];
      r /= t_.shape[k];
    }
    // Longest text of one row: values, and brackets and indentation at each level.
    const std::size_t per_row = row_len_ * (kMaxNumber + 2) + 2 + levels_ * (4 * levels_ + 12);
    for (std::size_t r = begin; r < end; ++r) {
      reserve_and_write(out, per_row, [&](char* p) { return row(p, r, index); });
      for (std::size_t k = levels_; k-- > 0;) {  // next row's indices
        if (++index[k] < t_.shape[k]) break;
        index[k] = 0;
      }
    }
  }

 private:
  static constexpr std::size_t kMaxNumber = 24;  // "-1.17549435e-38", "-9223372036854775808"

  template <class F>
  static void reserve_and_write(std::string& out, std::size_t most, F&& write) {
    const std::size_t used = out.size();
    out.resize(used + most);
    char* end = write(out.data() + used);
    out.resize(static_cast<std::size_t>(end - out.data()));
  }

  static char* put(char* p, std::string_view s) {
    std::memcpy(p, s.data(), s.size());
    return p + s.size();
  }

  char* row(char* p, std::size_t r, const std::vector<std::size_t>& index) const {
    for (std::size_t k = 0; k < levels_; ++k) {
      bool begins = true;
      for (std::size_t j = k + 1; j < levels_; ++j) begins = begins && index[j] == 0;
      if (!begins) continue;
      if (index[k] == 0) p = put(p, one_line_ ? "[" : "[\n");
      if (!one_line_) p = put(p, pads_[k + 1]);
    }
    *p++ = '[';
    const std::size_t first = r * row_len_;
    for (std::size_t j = 0; j < row_len_; ++j) {
      if (j) p = put(p, ", ");
      p = value(p, first + j);
    }
    *p++ = ']';
    for (std::size_t k = levels_; k-- > 0;) {
      if (index[k] + 1 < t_.shape[k]) {
        p = put(p, one_line_ ? ", " : ",\n");
        break;
      }
      if (one_line_) {
        *p++ = ']';
      } else {
        *p++ = '\n';
        p = put(p, pads_[k]);
        *p++ = ']';
      }
    }
    return p;
  }

  char* value(char* p, std::size_t index) const {
    char* const end = p + kMaxNumber;
    if (t_.dtype == DType::float32 || t_.dtype == DType::float16 || t_.dtype == DType::bfloat16) {
      float v;
      if (t_.dtype == DType::float32) {
        std::memcpy(&v, static_cast<const char*>(t_.data) + 4 * index, 4);
      } else {
        // Both widen exactly; the shortest float32 form reads back as the same bits.
        std::uint16_t h;
        std::memcpy(&h, static_cast<const char*>(t_.data) + 2 * index, 2);
        v = t_.dtype == DType::float16 ? half_to_float(h) : bfloat16_to_float(h);
      }
      if (!std::isfinite(v)) {
        throw Error("tensor " + t_.name + " holds " + (std::isnan(v) ? "NaN" : "an infinity") +
                    ", which JSON cannot represent; use format npy",
                    {"format"});
      }
      return precision_ ? std::to_chars(p, end, v, std::chars_format::general, precision_).ptr
                        : std::to_chars(p, end, v).ptr;
    }
    std::int64_t v;
    std::memcpy(&v, static_cast<const char*>(t_.data) + 8 * index, 8);
    return std::to_chars(p, end, v).ptr;
  }

  // A tensor with no rows: "[]" at the first zero extent, nested in the
  // single-element levels above it ([\n  []\n] or [[]]).
  void append_empty(std::string& out, std::size_t dim) const {
    if (t_.shape[dim] == 0) {
      out += "[]";
      return;
    }
    // shape[dim] > 0 but a later dimension is 0: every child is empty alike.
    out += one_line_ ? "[" : "[\n";
    for (std::size_t i = 0; i < t_.shape[dim]; ++i) {
      if (!one_line_) out += pads_[dim + 1];
      append_empty(out, dim + 1);
      if (i + 1 < t_.shape[dim]) out += one_line_ ? ", " : ",\n";
    }
    if (!one_line_) out += "\n" + pads_[dim];
    out += "]";
  }

  const TensorRef& t_;
  bool one_line_;
  int precision_;            // significant digits of floats; 0: the shortest that reads back
  std::size_t levels_ = 0;   // leading dimensions (ndim - 1)
  std::size_t row_len_ = 1;  // last dimension
  std::size_t rows_ = 1;     // product of the leading dimensions
  std::vector<std::string> pads_;  // pads_[k]: the indentation of level k's closing bracket
};

// Writes a tensor's pretty text in chunks of rows, rendered on up to
// `threads` threads and written in order: memory stays at a few chunks.
void write_tensor(OutputFile& out, const TensorRef& t, std::size_t threads, int precision) {
  const TensorText text(t, false, precision);
  const std::size_t rows = text.rows();
  if (t.shape.empty() || rows == 0) {
    std::string s;
    text.append_all(s);
    out.write(s);
    return;
  }
  constexpr std::size_t kChunkValues = std::size_t(1) << 17;  // ~1.5 MB of text
  const std::size_t step = std::max<std::size_t>(1, kChunkValues / std::max<std::size_t>(1, text.row_length()));
  const std::size_t workers = std::clamp<std::size_t>((rows + step - 1) / step, 1, std::max<std::size_t>(threads, 1));
  std::vector<std::string> chunks(workers);
  for (std::size_t r = 0; r < rows; r += step * workers) {
    const std::size_t n = std::min(workers, (rows - r + step - 1) / step);
    parallel_for(n, n, [&](std::size_t begin, std::size_t end) {
      for (std::size_t c = begin; c < end; ++c) {
        chunks[c].clear();
        const std::size_t first = r + c * step;
        text.append_rows(first, std::min(rows, first + step), chunks[c]);
      }
    });
    for (std::size_t c = 0; c < n; ++c) out.write(chunks[c]);
  }
}

}  // namespace

void write_json(OutputFile& out, const nlohmann::ordered_json& meta, const std::vector<TensorRef>& tensors,
                std::size_t threads, int precision) {
  out.write("{\n");
  bool first = true;
  for (const auto& [key, value] : meta.items()) {
    if (!first) out.write(",\n");
    first = false;
    out.write("  " + nlohmann::json(key).dump() + ": " + value.dump());
  }
  for (const auto& tensor : tensors) {
    if (!first) out.write(",\n");
    first = false;
    out.write("  " + nlohmann::json(tensor.name).dump() + ": ");
    write_tensor(out, tensor, threads, precision);
  }
  out.write("\n}\n");
}

void append_tensor_json_line(std::string& text, const TensorRef& tensor, int precision) {
  TensorText(tensor, true, precision).append_all(text);
}

nlohmann::ordered_json float_json(float value) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, value);
  return std::strtod(std::string(buf, r.ptr).c_str(), nullptr);
}

}  // namespace embedpe
