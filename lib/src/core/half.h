// IEEE half (float16) and bfloat16 conversions, bit-exact and portable.
//
//   std::uint16_t h = embedpe::float_to_half(0.1f);    // round to nearest even
//   float f = embedpe::half_to_float(h);               // exact
//   float g = embedpe::bfloat16_to_float(bits);        // exact
#pragma once

#include <cstdint>
#include <cstring>

namespace embedpe {

inline float bits_to_float(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline std::uint32_t float_to_bits(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

inline float bfloat16_to_float(std::uint16_t b) { return bits_to_float(std::uint32_t(b) << 16); }

// Round to nearest, ties to even; NaN stays NaN.
inline std::uint16_t float_to_bfloat16(float f) {
  const std::uint32_t x = float_to_bits(f);
  if ((x & 0x7FFFFFFF) > 0x7F800000) return static_cast<std::uint16_t>((x >> 16) | 0x40);
  return static_cast<std::uint16_t>((x + 0x7FFF + ((x >> 16) & 1)) >> 16);
}

// Every half is exactly representable as a float.
inline float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1F;
  std::uint32_t mant = h & 0x3FF;
  if (exp == 0x1F) return bits_to_float(sign | 0x7F800000 | (mant << 13));  // inf, NaN
  if (exp != 0) return bits_to_float(sign | ((exp + 112) << 23) | (mant << 13));
  if (mant == 0) return bits_to_float(sign);  // ±0
  // Subnormal: normalise.
  int e = -1;
  do {
    ++e;
    mant <<= 1;
  } while (!(mant & 0x400));
  return bits_to_float(sign | std::uint32_t(112 - e) << 23 | ((mant & 0x3FF) << 13));
}

// Round to nearest, ties to even; overflow gives ±inf, NaN stays NaN.
inline std::uint16_t float_to_half(float f) {
  const std::uint32_t x = float_to_bits(f);
  const std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000);
  const std::uint32_t abs = x & 0x7FFFFFFF;
  if (abs >= 0x7F800000) {  // inf or NaN
    return static_cast<std::uint16_t>(sign | 0x7C00 | (abs > 0x7F800000 ? 0x200 : 0));
  }
  if (abs >= 0x477FF000) return static_cast<std::uint16_t>(sign | 0x7C00);  // rounds to beyond 65504
  const int exp = static_cast<int>(abs >> 23) - 127;
  if (exp >= -14) {  // normal half
    std::uint32_t mant = abs & 0x7FFFFF;
    std::uint32_t h = (std::uint32_t(exp + 15) << 10) | (mant >> 13);
    const std::uint32_t rest = mant & 0x1FFF;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;  // may carry into the exponent: still right
    return static_cast<std::uint16_t>(sign | h);
  }
  if (exp < -25) return sign;  // below half the smallest subnormal: ±0
  // Subnormal half: the 24-bit significand is worth 2^(exp-23); a half
  // subnormal's unit is 2^-24, so drop 13 + (-14 - exp) bits, rounding.
  const std::uint32_t mant = (abs & 0x7FFFFF) | 0x800000;
  const int drop = 13 + (-14 - exp);
  std::uint32_t h = mant >> drop;
  const std::uint32_t rest = mant & ((1u << drop) - 1);
  const std::uint32_t half_way = 1u << (drop - 1);
  if (rest > half_way || (rest == half_way && (h & 1))) ++h;
  return static_cast<std::uint16_t>(sign | h);
}

}  // namespace embedpe
