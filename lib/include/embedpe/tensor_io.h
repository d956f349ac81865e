// Tensors to and from NumPy's .npy and .npz formats.
//
//   embedpe::TensorRef t = embedpe::tensor_ref("output", out.output);
//   embedpe::OutputFile file("out.npz");
//   embedpe::write_npz(file, {t});
//   file.commit();
//
// .npy is format version 1.0 (2.0 for headers over 64 KiB), C order,
// little-endian, header padded to 64 bytes like NumPy ≥ 1.17. .npz is an
// uncompressed zip of NAME.npy members with a fixed timestamp, so the same
// input gives the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "embedpe/output_file.h"

namespace embedpe {

enum class DType { int64, float32, float16 };

const char* dtype_name(DType dtype);   // "int64", "float32", "float16"
const char* numpy_descr(DType dtype);  // "<i8", "<f4", "<f2"
std::size_t dtype_size(DType dtype);

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

// The complete .npy header (magic through padding) for a tensor, padded with
// spaces to at least `min_size` bytes (to complete a header in place once a
// streamed tensor's length is known).
std::string npy_header(const TensorRef& tensor, std::size_t min_size = 0);
void write_npy(OutputFile& out, const TensorRef& tensor);
void write_npz(OutputFile& out, const std::vector<TensorRef>& tensors);

// A parsed .npy header.
struct NpyHeader {
  int major_version = 1;
  std::string descr;  // e.g. "<f4"
  bool fortran_order = false;
  std::vector<std::size_t> shape;
  std::size_t data_offset = 0;  // bytes from the start of the file
};

// Parses the header at the start of `file`; throws embedpe::Error naming
// `source` if it is malformed. Does not look at the data.
NpyHeader parse_npy_header(std::string_view file, const std::string& source);

}  // namespace embedpe
