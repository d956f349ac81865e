// Element types, tensor views and owning tensor buffers: the one place that
// knows what a dtype is called, how wide it is and how the file formats
// spell it.
//
//   const embedpe::DTypeInfo& f = embedpe::dtype_info(embedpe::DType::bfloat16);
//   // f.name == "bfloat16", f.size == 2, f.numpy_descr == nullptr, f.safetensors == "BF16"
//   embedpe::TensorBuffer keep;
//   embedpe::TensorRef half = embedpe::convert(embedpe::tensor_ref("output", out.output),
//                                              embedpe::DType::float16, keep);  // points into keep
//
// Weight files (weights.h), writers (tensor_io.h, json_writer.h, sink.h) and
// encode's --dtype all use this DType.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <xtensor/xtensor.hpp>

namespace embedpe {

// The first six are embedpe's own: what it computes with, writes, and reads
// as tables. int32, int16, uint8 and bool are only read, by diff (others'
// arrays compared with ours); the lookups below answer them only when asked.
enum class DType { float32, float16, bfloat16, float64, int8, int64, int32, int16, uint8, boolean };

struct DTypeInfo {
  DType dtype;
  const char* name;         // NumPy / PyTorch spelling: "float32", "bfloat16"
  std::size_t size;         // bytes per element
  const char* numpy_descr;  // "<f4"; nullptr where NumPy has no such dtype (bfloat16)
  const char* safetensors;  // "F32", "BF16"
  bool is_float;
  bool diff_only;           // read by diff, never computed with or written
};

// In the order of the enum, so that dtype_info() is an index.
inline constexpr DTypeInfo kDTypes[] = {
    {DType::float32, "float32", 4, "<f4", "F32", true, false},
    {DType::float16, "float16", 2, "<f2", "F16", true, false},
    {DType::bfloat16, "bfloat16", 2, nullptr, "BF16", true, false},
    {DType::float64, "float64", 8, "<f8", "F64", true, false},
    {DType::int8, "int8", 1, "|i1", "I8", false, false},
    {DType::int64, "int64", 8, "<i8", "I64", false, false},
    {DType::int32, "int32", 4, "<i4", "I32", false, true},
    {DType::int16, "int16", 2, "<i2", "I16", false, true},
    {DType::uint8, "uint8", 1, "|u1", "U8", false, true},
    {DType::boolean, "bool", 1, "|b1", "BOOL", false, true},
};

constexpr const DTypeInfo& dtype_info(DType dtype) { return kDTypes[static_cast<std::size_t>(dtype)]; }
constexpr const char* dtype_name(DType dtype) { return dtype_info(dtype).name; }
constexpr std::size_t dtype_size(DType dtype) { return dtype_info(dtype).size; }

// Which dtypes a lookup answers: embedpe's own, or also diff's (diff_only).
enum class DTypes { own, all };
// The dtype a .safetensors header ("BF16"), a .npy header ("<f4") or its
// name ("float32", as embedpe's JSON states it) names, if any.
std::optional<DType> dtype_from_safetensors(std::string_view name, DTypes which = DTypes::own);
std::optional<DType> dtype_from_numpy(std::string_view descr, DTypes which = DTypes::own);
std::optional<DType> dtype_from_name(std::string_view name, DTypes which = DTypes::own);

// A view of a C-ordered tensor owned elsewhere.
struct TensorRef {
  std::string name;
  DType dtype = DType::float32;
  std::vector<std::size_t> shape;
  const void* data = nullptr;

  std::size_t elements() const;
  std::size_t bytes() const { return elements() * dtype_size(dtype); }
};

template <std::size_t N>
TensorRef tensor_ref(std::string name, const xt::xtensor<float, N>& t) {
  return {std::move(name), DType::float32, {t.shape().begin(), t.shape().end()}, t.data()};
}
template <std::size_t N>
TensorRef tensor_ref(std::string name, const xt::xtensor<std::int64_t, N>& t) {
  return {std::move(name), DType::int64, {t.shape().begin(), t.shape().end()}, t.data()};
}

// A tensor that owns its bytes (C order, little-endian).
struct TensorBuffer {
  std::string name;
  DType dtype = DType::float32;
  std::vector<std::size_t> shape;
  std::vector<unsigned char> bytes;  // elements × dtype_size(dtype)

  TensorRef ref() const { return {name, dtype, shape, bytes.data()}; }
};

// `tensor` (float32) in dtype `to`: itself for float32, else a converted copy
// held in `keep`. float16 rounds to nearest even and refuses (UsageError
// naming parameter "dtype") a finite value beyond its range; bfloat16 rounds
// to nearest even; float64 is exact. float16 and bfloat16 widen exactly to
// float32. Other tensors, or other targets, are returned unchanged when `to`
// is their dtype and refused otherwise.
TensorRef convert(const TensorRef& tensor, DType to, TensorBuffer& keep);

}  // namespace embedpe
