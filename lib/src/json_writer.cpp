#include "embedpe/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include "embedpe/error.h"
#include "embedpe/half.h"

namespace embedpe {
namespace {

class TensorText {
 public:
  TensorText(OutputFile& out, const TensorRef& t, bool one_line = false) : out_(out), t_(t), one_line_(one_line) {}

  void write() { write_level(0, 0, 2); }

 private:
  // Writes the sub-array at `dim` starting at element `offset`.
  void write_level(std::size_t dim, std::size_t offset, int indent) {
    const std::size_t ndim = t_.shape.size();
    if (ndim == 0) {
      write_value(0);
      return;
    }
    const std::size_t n = t_.shape[dim];
    std::size_t stride = 1;
    for (std::size_t k = dim + 1; k < ndim; ++k) stride *= t_.shape[k];
    if (dim + 1 == ndim || one_line_) {
      if (dim + 1 < ndim) {  // one line: nested arrays without breaks
        out_.write("[");
        for (std::size_t i = 0; i < n; ++i) {
          if (i) out_.write(", ");
          write_level(dim + 1, offset + i * stride, indent);
        }
        out_.write("]");
        return;
      }
      out_.write("[");
      for (std::size_t i = 0; i < n; ++i) {
        if (i) out_.write(", ");
        write_value(offset + i);
      }
      out_.write("]");
      return;
    }
    if (n == 0) {
      out_.write("[]");
      return;
    }
    out_.write("[\n");
    const std::string pad(static_cast<std::size_t>(indent + 2), ' ');
    for (std::size_t i = 0; i < n; ++i) {
      out_.write(pad);
      write_level(dim + 1, offset + i * stride, indent + 2);
      out_.write(i + 1 < n ? ",\n" : "\n");
    }
    out_.write(std::string(static_cast<std::size_t>(indent), ' '));
    out_.write("]");
  }

  void write_value(std::size_t index) {
    char buf[32];
    std::to_chars_result r;
    if (t_.dtype == DType::float32 || t_.dtype == DType::float16) {
      float v;
      if (t_.dtype == DType::float32) {
        std::memcpy(&v, static_cast<const char*>(t_.data) + 4 * index, 4);
      } else {
        std::uint16_t h;
        std::memcpy(&h, static_cast<const char*>(t_.data) + 2 * index, 2);
        v = half_to_float(h);  // exact; its shortest float32 form reads back as the same half
      }
      if (!std::isfinite(v)) {
        throw Error("tensor " + t_.name + " holds " + (std::isnan(v) ? "NaN" : "an infinity") +
                    ", which JSON cannot represent; use --format npy");
      }
      r = std::to_chars(buf, buf + sizeof buf, v);
    } else {
      std::int64_t v;
      std::memcpy(&v, static_cast<const char*>(t_.data) + 8 * index, 8);
      r = std::to_chars(buf, buf + sizeof buf, v);
    }
    out_.write(buf, static_cast<std::size_t>(r.ptr - buf));
  }

  OutputFile& out_;
  const TensorRef& t_;
  bool one_line_;
};

}  // namespace

void write_json(OutputFile& out, const nlohmann::ordered_json& meta, const std::vector<TensorRef>& tensors) {
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
    TensorText(out, tensor).write();
  }
  out.write("\n}\n");
}

void write_tensor_json_line(OutputFile& out, const TensorRef& tensor) { TensorText(out, tensor, true).write(); }

}  // namespace embedpe
