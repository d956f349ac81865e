// Private to ggml_types.cpp and ggml_kquants.cpp: the scalars of ggml's
// block formats as ggml's reference C code converts them (see ggml_types.cpp
// for the sources and what "bit for bit" means), and the K-quants' block
// conversions, which ggml_kquants.cpp defines and ggml_types.cpp's codec
// table lists.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstddef>
#include <cstring>
#include <limits>

#include "half.h"

namespace embedpe::ggml {

inline constexpr std::size_t QK_K = 256;  // elements per K-quant super-block

// ---- scalars as ggml converts them

inline std::uint16_t load16(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] | (p[1] << 8)); }
inline void store16(std::uint8_t* p, std::uint16_t v) {
  p[0] = static_cast<std::uint8_t>(v & 0xFF);
  p[1] = static_cast<std::uint8_t>(v >> 8);
}

// ggml_compute_fp16_to_fp32: exact, as half_to_float, except that ggml forms
// a NaN by a float multiplication, which quiets a signalling one.
inline float fp16(const std::uint8_t* p) {
  const std::uint16_t h = load16(p);
  float f = half_to_float(h);
  if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0) f = bits_to_float(float_to_bits(f) | 0x00400000);
  return f;
}
// ggml_compute_fp32_to_fp16 rounds to nearest even, overflows to infinity and
// makes every NaN 0x7E00 with its sign: what float_to_half does (checked for
// every float32 by tools/make_gguf_goldens.py --check-half).
inline void put_fp16(std::uint8_t* p, float f) { store16(p, float_to_half(f)); }

// ggml's nearest_int: round to nearest even through the float adder, by
// adding 1.5 × 2^23 and reading the mantissa. Meant for |f| < 2^22; beyond
// that (and for NaN) the bits give what ggml's give.
inline int nearest_int(float f) {
  const float v = f + 12582912.f;
  std::int32_t i;
  std::memcpy(&i, &v, 4);
  return (i & 0x007fffff) - 0x00400000;
}

// What gcc's x86-64 code does converting a float to an integer type of 32
// bits or fewer: cvttss2si truncates toward zero, and gives INT32_MIN for NaN
// and anything outside int32; the narrowing then keeps the low bits.
inline std::int32_t trunc_x86(float v) {
  if (!(v >= -2147483648.0f && v < 2147483648.0f)) return std::numeric_limits<std::int32_t>::min();
  return static_cast<std::int32_t>(v);
}
inline std::uint8_t low8(std::int32_t v) { return static_cast<std::uint8_t>(v & 0xFF); }

// The element of largest magnitude, the first one when several tie (0 when
// all are 0 or NaN): ggml's max/amax loops.
inline float signed_absmax(const float* x, int n) {
  float amax = 0.0f, max = 0.0f;
  for (int j = 0; j < n; ++j) {
    if (amax < std::fabs(x[j])) {
      amax = std::fabs(x[j]);
      max = x[j];
    }
  }
  return max;
}

template <class T>
inline T clamp_int(T v, T lo, T hi) {
  return std::max(lo, std::min(hi, v));
}

// ---- K-quants (ggml_kquants.cpp): one super-block of QK_K elements each way
void quantize_q2_K(const float* x, std::uint8_t* b);
void dequantize_q2_K(const std::uint8_t* b, float* y);
void quantize_q3_K(const float* x, std::uint8_t* b);
void dequantize_q3_K(const std::uint8_t* b, float* y);
void quantize_q4_K(const float* x, std::uint8_t* b);
void dequantize_q4_K(const std::uint8_t* b, float* y);
void quantize_q5_K(const float* x, std::uint8_t* b);
void dequantize_q5_K(const std::uint8_t* b, float* y);
void quantize_q6_K(const float* x, std::uint8_t* b);
void dequantize_q6_K(const std::uint8_t* b, float* y);

}  // namespace embedpe::ggml
