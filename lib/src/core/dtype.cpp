#include "embedpe/dtype.h"

#include <cmath>
#include <cstring>

#include "embedpe/error.h"
#include "half.h"

namespace embedpe {

namespace {

template <class Spelling>
std::optional<DType> lookup(std::string_view text, DTypes which, Spelling spelling) {
  for (const DTypeInfo& d : kDTypes) {
    const char* s = spelling(d);
    if (s != nullptr && text == s && (which == DTypes::all || !d.diff_only)) return d.dtype;
  }
  return std::nullopt;
}

}  // namespace

std::optional<DType> dtype_from_safetensors(std::string_view name, DTypes which) {
  return lookup(name, which, [](const DTypeInfo& d) { return d.safetensors; });
}

std::optional<DType> dtype_from_numpy(std::string_view descr, DTypes which) {
  return lookup(descr, which, [](const DTypeInfo& d) { return d.numpy_descr; });
}

std::optional<DType> dtype_from_name(std::string_view name, DTypes which) {
  return lookup(name, which, [](const DTypeInfo& d) { return d.name; });
}

std::size_t TensorRef::elements() const {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  return n;
}

TensorRef convert(const TensorRef& tensor, DType to, TensorBuffer& keep) {
  if (tensor.dtype == to) return tensor;
  const std::size_t n = tensor.elements();
  if (to == DType::float32 && (tensor.dtype == DType::float16 || tensor.dtype == DType::bfloat16)) {
    keep = {tensor.name, to, tensor.shape, std::vector<unsigned char>(4 * n)};
    for (std::size_t i = 0; i < n; ++i) {  // exact
      std::uint16_t h;
      std::memcpy(&h, static_cast<const unsigned char*>(tensor.data) + 2 * i, 2);
      const float v = tensor.dtype == DType::float16 ? half_to_float(h) : bfloat16_to_float(h);
      std::memcpy(keep.bytes.data() + 4 * i, &v, 4);
    }
    return keep.ref();
  }
  if (tensor.dtype != DType::float32 || !dtype_info(to).is_float) {
    throw InternalError(std::string("no conversion from ") + dtype_name(tensor.dtype) + " to " +
                dtype_name(to));
  }
  keep.name = tensor.name;
  keep.dtype = to;
  keep.shape = tensor.shape;
  keep.bytes.resize(n * dtype_size(to));
  const auto* src = static_cast<const float*>(tensor.data);
  unsigned char* dst = keep.bytes.data();
  // memcpy per element: `keep.bytes` carries no alignment promise for wider types.
  switch (to) {
    case DType::float16:
      for (std::size_t i = 0; i < n; ++i) {
        const float v = src[i];
        const std::uint16_t h = float_to_half(v);
        if (std::isfinite(v) && !std::isfinite(half_to_float(h))) {
          throw UsageError("tensor " + tensor.name + " holds " + std::to_string(v) +
                               ", beyond float16's range (65504); use dtype f32 or bf16",
                           {"dtype"});
        }
        std::memcpy(dst + 2 * i, &h, 2);
      }
      break;
    case DType::bfloat16:
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint16_t b = float_to_bfloat16(src[i]);
        std::memcpy(dst + 2 * i, &b, 2);
      }
      break;
    case DType::float64:
      for (std::size_t i = 0; i < n; ++i) {
        const double v = src[i];
        std::memcpy(dst + 8 * i, &v, 8);
      }
      break;
    default: break;  // not a float: refused above
  }
  return keep.ref();
}

}  // namespace embedpe
