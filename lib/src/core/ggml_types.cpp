// ggml's block formats, written in our own words after ggml-org/ggml's
// src/ggml-quants.c (quantize_row_*_ref, dequantize_row_*, and the helpers
// nearest_int, make_qx_quants, make_q3_quants, make_qkx2_quants,
// get_scale_min_k4), src/ggml-common.h (the block layouts), src/ggml-impl.h
// (fp16 and bf16 conversions) and src/ggml.c (type_traits: names and sizes)
// at commit d99724f2b141fed9e1a9f402213506c081433465.
//
// "Bit for bit" means as ggml's reference C code computes when built with gcc
// -O2 for x86-64 (SSE arithmetic, no fused multiply-add): every float
// expression below keeps ggml's operand order and float (not double)
// precision, and the library is compiled with -ffp-contract=off so that no
// product is fused into a sum. Where ggml converts a float that is NaN or out
// of range to an integer (which C leaves undefined; x86's cvttss2si gives
// INT32_MIN), trunc_x86 does what that instruction does, so that rows whose
// scale overflows (subnormal blocks) come out as ggml's do.
// tools/make_gguf_goldens.py checks all of it against upstream's own code.
// The K-quants are in ggml_kquants.cpp, the scalars both use in ggml_blocks.h.
#include "ggml_types.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>

#include "embedpe/error.h"
#include "ggml_blocks.h"
#include "half.h"

namespace embedpe::ggml {
namespace {

// name, elements per block, bytes per block, dequantize_row, quantize_row_ref
const TypeInfo kTypes[] = {
    {Type::F32, "f32", 1, 4, true, true},
    {Type::F16, "f16", 1, 2, true, true},
    {Type::Q4_0, "q4_0", 32, 18, true, true},
    {Type::Q4_1, "q4_1", 32, 20, true, true},
    {Type::Q5_0, "q5_0", 32, 22, true, true},
    {Type::Q5_1, "q5_1", 32, 24, true, true},
    {Type::Q8_0, "q8_0", 32, 34, true, true},
    {Type::Q8_1, "q8_1", 32, 36, false, false},
    {Type::Q2_K, "q2_K", QK_K, 84, true, true},
    {Type::Q3_K, "q3_K", QK_K, 110, true, true},
    {Type::Q4_K, "q4_K", QK_K, 144, true, true},
    {Type::Q5_K, "q5_K", QK_K, 176, true, true},
    {Type::Q6_K, "q6_K", QK_K, 210, true, true},
    {Type::Q8_K, "q8_K", QK_K, 292, false, false},
    {Type::IQ2_XXS, "iq2_xxs", QK_K, 66, false, false},
    {Type::IQ2_XS, "iq2_xs", QK_K, 74, false, false},
    {Type::IQ3_XXS, "iq3_xxs", QK_K, 98, false, false},
    {Type::IQ1_S, "iq1_s", QK_K, 50, false, false},
    {Type::IQ4_NL, "iq4_nl", 32, 18, false, false},
    {Type::IQ3_S, "iq3_s", QK_K, 110, false, false},
    {Type::IQ2_S, "iq2_s", QK_K, 82, false, false},
    {Type::IQ4_XS, "iq4_xs", QK_K, 136, false, false},
    {Type::I8, "i8", 1, 1, false, false},
    {Type::I16, "i16", 1, 2, false, false},
    {Type::I32, "i32", 1, 4, false, false},
    {Type::I64, "i64", 1, 8, false, false},
    {Type::F64, "f64", 1, 8, false, false},
    {Type::IQ1_M, "iq1_m", QK_K, 56, false, false},
    {Type::BF16, "bf16", 1, 2, true, true},
    {Type::TQ1_0, "tq1_0", QK_K, 54, false, false},
    {Type::TQ2_0, "tq2_0", QK_K, 66, false, false},
    {Type::MXFP4, "mxfp4", 32, 17, false, false},
    {Type::NVFP4, "nvfp4", 64, 36, false, false},
    {Type::Q1_0, "q1_0", 128, 18, false, false},
    {Type::Q2_0, "q2_0", 64, 18, false, false},
};

std::string supported_list(bool quantize) {
  std::string list;
  for (const TypeInfo& t : kTypes) {
    if (quantize ? t.quantizable : t.dequantizable) list += (list.empty() ? "" : ", ") + std::string(t.name);
  }
  return list;
}

// ---- Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 (32 elements per block)

void min_max(const float* x, int n, float& min, float& max) {
  min = std::numeric_limits<float>::max();
  max = -std::numeric_limits<float>::max();
  for (int j = 0; j < n; ++j) {
    if (x[j] < min) min = x[j];
    if (x[j] > max) max = x[j];
  }
}

void quantize_q4_0(const float* x, std::uint8_t* b) {  // b: d, qs[16]
  const float d = signed_absmax(x, 32) / -8;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  put_fp16(b, d);
  for (int j = 0; j < 16; ++j) {
    // MIN(15, (int8_t)(v + 8.5f)), the comparison on int8
    const auto q0 = std::min<std::int32_t>(15, static_cast<std::int8_t>(low8(trunc_x86(x[j] * id + 8.5f))));
    const auto q1 = std::min<std::int32_t>(15, static_cast<std::int8_t>(low8(trunc_x86(x[j + 16] * id + 8.5f))));
    b[2 + j] = static_cast<std::uint8_t>(low8(q0) | (low8(q1) << 4));
  }
}

void quantize_q4_1(const float* x, std::uint8_t* b) {  // b: d, m, qs[16]
  float min, max;
  min_max(x, 32, min, max);
  const float d = (max - min) / 15;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  put_fp16(b, d);
  put_fp16(b + 2, min);
  for (int j = 0; j < 16; ++j) {
    const auto q0 = std::min<std::int32_t>(15, static_cast<std::int8_t>(low8(trunc_x86((x[j] - min) * id + 0.5f))));
    const auto q1 =
        std::min<std::int32_t>(15, static_cast<std::int8_t>(low8(trunc_x86((x[j + 16] - min) * id + 0.5f))));
    b[4 + j] = static_cast<std::uint8_t>(low8(q0) | (low8(q1) << 4));
  }
}

void quantize_q5_0(const float* x, std::uint8_t* b) {  // b: d, qh[4], qs[16]
  const float d = signed_absmax(x, 32) / -16;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  put_fp16(b, d);
  std::uint32_t qh = 0;
  for (int j = 0; j < 16; ++j) {
    const std::uint8_t q0 =
        low8(std::min<std::int32_t>(31, static_cast<std::int8_t>(low8(trunc_x86(x[j] * id + 16.5f)))));
    const std::uint8_t q1 =
        low8(std::min<std::int32_t>(31, static_cast<std::int8_t>(low8(trunc_x86(x[j + 16] * id + 16.5f)))));
    b[6 + j] = static_cast<std::uint8_t>((q0 & 0x0F) | ((q1 & 0x0F) << 4));
    qh |= std::uint32_t((q0 & 0x10u) >> 4) << j;  // the fifth bits: element j at bit j
    qh |= std::uint32_t((q1 & 0x10u) >> 4) << (j + 16);
  }
  for (int k = 0; k < 4; ++k) b[2 + k] = static_cast<std::uint8_t>(qh >> (8 * k));
}

void quantize_q5_1(const float* x, std::uint8_t* b) {  // b: d, m, qh[4], qs[16]
  float min, max;
  min_max(x, 32, min, max);
  const float d = (max - min) / 31;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  put_fp16(b, d);
  put_fp16(b + 2, min);
  std::uint32_t qh = 0;
  for (int j = 0; j < 16; ++j) {
    const std::uint8_t q0 = low8(trunc_x86((x[j] - min) * id + 0.5f));  // no clamp, as ggml
    const std::uint8_t q1 = low8(trunc_x86((x[j + 16] - min) * id + 0.5f));
    b[8 + j] = static_cast<std::uint8_t>((q0 & 0x0F) | ((q1 & 0x0F) << 4));
    qh |= std::uint32_t((q0 & 0x10u) >> 4) << j;
    qh |= std::uint32_t((q1 & 0x10u) >> 4) << (j + 16);
  }
  for (int k = 0; k < 4; ++k) b[4 + k] = static_cast<std::uint8_t>(qh >> (8 * k));
}

void quantize_q8_0(const float* x, std::uint8_t* b) {  // b: d, qs[32] (int8)
  float amax = 0.0f;
  for (int j = 0; j < 32; ++j) {
    const float v = std::fabs(x[j]);
    amax = amax > v ? amax : v;  // ggml's MAX: a NaN wins
  }
  const float d = amax / 127;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  put_fp16(b, d);
  for (int j = 0; j < 32; ++j) b[2 + j] = low8(trunc_x86(std::round(x[j] * id)));
}

void dequantize_q4_0(const std::uint8_t* b, float* y) {
  const float d = fp16(b);
  for (int j = 0; j < 16; ++j) {
    y[j] = static_cast<float>((b[2 + j] & 0x0F) - 8) * d;
    y[j + 16] = static_cast<float>((b[2 + j] >> 4) - 8) * d;
  }
}

void dequantize_q4_1(const std::uint8_t* b, float* y) {
  const float d = fp16(b), m = fp16(b + 2);
  for (int j = 0; j < 16; ++j) {
    y[j] = static_cast<float>(b[4 + j] & 0x0F) * d + m;
    y[j + 16] = static_cast<float>(b[4 + j] >> 4) * d + m;
  }
}

std::uint32_t load_qh(const std::uint8_t* p) {
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
}

void dequantize_q5_0(const std::uint8_t* b, float* y) {
  const float d = fp16(b);
  const std::uint32_t qh = load_qh(b + 2);
  for (int j = 0; j < 16; ++j) {
    const int h0 = ((qh >> j) << 4) & 0x10, h1 = (qh >> (j + 12)) & 0x10;
    y[j] = static_cast<float>(((b[6 + j] & 0x0F) | h0) - 16) * d;
    y[j + 16] = static_cast<float>(((b[6 + j] >> 4) | h1) - 16) * d;
  }
}

void dequantize_q5_1(const std::uint8_t* b, float* y) {
  const float d = fp16(b), m = fp16(b + 2);
  const std::uint32_t qh = load_qh(b + 4);
  for (int j = 0; j < 16; ++j) {
    const int h0 = ((qh >> j) << 4) & 0x10, h1 = (qh >> (j + 12)) & 0x10;
    y[j] = static_cast<float>((b[8 + j] & 0x0F) | h0) * d + m;
    y[j + 16] = static_cast<float>((b[8 + j] >> 4) | h1) * d + m;
  }
}

void dequantize_q8_0(const std::uint8_t* b, float* y) {
  const float d = fp16(b);
  for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(static_cast<std::int8_t>(b[2 + j])) * d;
}

using DequantizeBlock = void (*)(const std::uint8_t*, float*);
using QuantizeBlock = void (*)(const float*, std::uint8_t*);

struct BlockCodec {
  Type type;
  DequantizeBlock dequantize;
  QuantizeBlock quantize;
};

const BlockCodec kCodecs[] = {
    {Type::Q4_0, dequantize_q4_0, quantize_q4_0}, {Type::Q4_1, dequantize_q4_1, quantize_q4_1},
    {Type::Q5_0, dequantize_q5_0, quantize_q5_0}, {Type::Q5_1, dequantize_q5_1, quantize_q5_1},
    {Type::Q8_0, dequantize_q8_0, quantize_q8_0}, {Type::Q2_K, dequantize_q2_K, quantize_q2_K},
    {Type::Q3_K, dequantize_q3_K, quantize_q3_K}, {Type::Q4_K, dequantize_q4_K, quantize_q4_K},
    {Type::Q5_K, dequantize_q5_K, quantize_q5_K}, {Type::Q6_K, dequantize_q6_K, quantize_q6_K},
};

const BlockCodec* codec(Type type) {
  for (const BlockCodec& c : kCodecs) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

}  // namespace

const TypeInfo* type_info(std::uint32_t value) {
  for (const TypeInfo& t : kTypes) {
    if (static_cast<std::uint32_t>(t.type) == value) return &t;
  }
  return nullptr;
}

const TypeInfo& type_info(Type type) {
  const TypeInfo* t = type_info(static_cast<std::uint32_t>(type));
  if (!t) throw Error("ggml tensor type " + std::to_string(static_cast<std::uint32_t>(type)) + " is not known");
  return *t;
}

const TypeInfo* type_by_name(const std::string& name) {
  for (const TypeInfo& t : kTypes) {
    const std::string_view n = t.name;
    if (n.size() == name.size() &&
        std::equal(n.begin(), n.end(), name.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
        })) {
      return &t;
    }
  }
  return nullptr;
}

std::size_t row_bytes(Type type, std::uint64_t n) {
  const TypeInfo& t = type_info(type);
  if (n % t.block_elems != 0) {
    throw UsageError("a row of " + std::to_string(n) + " elements cannot be stored as " + t.name +
                     ", whose blocks hold " + std::to_string(t.block_elems) + " elements each");
  }
  const std::uint64_t blocks = n / t.block_elems;
  if (blocks > std::numeric_limits<std::size_t>::max() / t.block_bytes) {
    throw UsageError("a row of " + std::to_string(n) + " " + t.name + " elements is too large to address");
  }
  return static_cast<std::size_t>(blocks) * t.block_bytes;
}

void dequantize_row(Type type, const void* src, float* dst, std::size_t n) {
  const TypeInfo& t = type_info(type);
  if (!t.dequantizable) {
    throw UsageError(std::string("tensor type ") + t.name + " is not supported; supported: " + supported_list(false));
  }
  const std::size_t bytes = row_bytes(type, n);
  const auto* s = static_cast<const std::uint8_t*>(src);
  switch (type) {
    case Type::F32:
      std::memcpy(dst, s, bytes);
      return;
    case Type::F16:
      for (std::size_t i = 0; i < n; ++i) dst[i] = fp16(s + 2 * i);
      return;
    case Type::BF16:
      for (std::size_t i = 0; i < n; ++i) dst[i] = bfloat16_to_float(load16(s + 2 * i));
      return;
    default:
      break;
  }
  const BlockCodec* c = codec(type);
  for (std::size_t b = 0; b < n / t.block_elems; ++b) c->dequantize(s + b * t.block_bytes, dst + b * t.block_elems);
}

void quantize_row_ref(Type type, const float* src, void* dst, std::size_t n) {
  const TypeInfo& t = type_info(type);
  if (!t.quantizable) {
    throw UsageError(std::string("quantizing to tensor type ") + t.name + " is not supported; supported: " +
                     supported_list(true));
  }
  row_bytes(type, n);  // refuses a partial block
  auto* d = static_cast<std::uint8_t*>(dst);
  switch (type) {
    case Type::F32:
      std::memcpy(d, src, 4 * n);
      return;
    case Type::F16:
      for (std::size_t i = 0; i < n; ++i) put_fp16(d + 2 * i, src[i]);
      return;
    case Type::BF16:
      for (std::size_t i = 0; i < n; ++i) store16(d + 2 * i, float_to_bfloat16(src[i]));
      return;
    default:
      break;
  }
  const BlockCodec* c = codec(type);
  for (std::size_t b = 0; b < n / t.block_elems; ++b) c->quantize(src + b * t.block_elems, d + b * t.block_bytes);
}

}  // namespace embedpe::ggml
