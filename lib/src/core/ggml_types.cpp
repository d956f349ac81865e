// TEMPORARY (branch gguf): the part of ggml_types.h the GGUF reader needs
// until branch quants brings the real implementation: the type table (block
// sizes as ggml/src/ggml.c's type_traits, commit d99724f2) and the float
// types' conversions. Quantized types are refused here. Replaced whole by
// quants' ggml_types.cpp when it is merged.
#include "ggml_types.h"

#include <cctype>
#include <cstring>
#include <limits>

#include "embedpe/error.h"
#include "half.h"

namespace embedpe::ggml {

namespace {
constexpr TypeInfo kTypes[] = {
    {Type::F32, "f32", 1, 4, true, true},      {Type::F16, "f16", 1, 2, true, true},
    {Type::Q4_0, "q4_0", 32, 18, false, false}, {Type::Q4_1, "q4_1", 32, 20, false, false},
    {Type::Q5_0, "q5_0", 32, 22, false, false}, {Type::Q5_1, "q5_1", 32, 24, false, false},
    {Type::Q8_0, "q8_0", 32, 34, false, false}, {Type::Q8_1, "q8_1", 32, 36, false, false},
    {Type::Q2_K, "q2_K", 256, 84, false, false}, {Type::Q3_K, "q3_K", 256, 110, false, false},
    {Type::Q4_K, "q4_K", 256, 144, false, false}, {Type::Q5_K, "q5_K", 256, 176, false, false},
    {Type::Q6_K, "q6_K", 256, 210, false, false}, {Type::Q8_K, "q8_K", 256, 292, false, false},
    {Type::BF16, "bf16", 1, 2, true, true},
};
}  // namespace

const TypeInfo* type_info(std::uint32_t value) {
  for (const auto& t : kTypes) {
    if (static_cast<std::uint32_t>(t.type) == value) return &t;
  }
  return nullptr;
}

const TypeInfo& type_info(Type type) { return *type_info(static_cast<std::uint32_t>(type)); }

const TypeInfo* type_by_name(const std::string& name) {
  for (const auto& t : kTypes) {
    if (name.size() == std::strlen(t.name) &&
        std::equal(name.begin(), name.end(), t.name,
                   [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b)); })) {
      return &t;
    }
  }
  return nullptr;
}

std::size_t row_bytes(Type type, std::uint64_t n) {
  const TypeInfo& t = type_info(type);
  if (n % t.block_elems != 0) {
    throw UsageError(std::string("a row of ") + std::to_string(n) + " elements is not a whole number of " + t.name + " blocks");
  }
  const std::uint64_t blocks = n / t.block_elems;
  if (blocks > std::numeric_limits<std::size_t>::max() / t.block_bytes) throw UsageError("row size overflows");
  return static_cast<std::size_t>(blocks * t.block_bytes);
}

void dequantize_row(Type type, const void* src, float* dst, std::size_t n) {
  const auto* p = static_cast<const unsigned char*>(src);
  switch (type) {
    case Type::F32: std::memcpy(dst, p, 4 * n); return;
    case Type::F16:
      for (std::size_t k = 0; k < n; ++k) dst[k] = half_to_float(static_cast<std::uint16_t>(p[2 * k] | (p[2 * k + 1] << 8)));
      return;
    case Type::BF16:
      for (std::size_t k = 0; k < n; ++k) dst[k] = bfloat16_to_float(static_cast<std::uint16_t>(p[2 * k] | (p[2 * k + 1] << 8)));
      return;
    default: throw UsageError(std::string("dequantizing ") + type_info(type).name + " is not supported yet");
  }
}

void quantize_row_ref(Type type, const float*, void*, std::size_t) {
  throw UsageError(std::string("quantizing to ") + type_info(type).name + " is not supported yet");
}

}  // namespace embedpe::ggml
