// ggml's tensor element types and their block formats (the types a GGUF file's
// tensors are stored in), and the row conversions ggml defines for them:
// dequantize_row_* (block → float32) and quantize_row_*_ref (float32 → block),
// bit for bit as ggml's reference C code computes them.
//
//   const embedpe::ggml::TypeInfo* t = embedpe::ggml::type_info(12);   // Q4_K
//   std::size_t bytes = embedpe::ggml::row_bytes(embedpe::ggml::Type::Q4_K, 4096);
//   embedpe::ggml::dequantize_row(embedpe::ggml::Type::Q4_K, block_bytes, out, 4096);
//
// The numbering is ggml's enum ggml_type (ggml.h at ggml-org/ggml
// d99724f2b141fed9e1a9f402213506c081433465), which a GGUF tensor info
// stores; values ggml has retired or never used have no TypeInfo.
// "Bit for bit" is against ggml's reference C code built with gcc -O2 for
// x86-64 (tests/golden/gguf/, made by tools/make_gguf_goldens.py).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace embedpe::ggml {

enum class Type : std::uint32_t {
  F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3, Q5_0 = 6, Q5_1 = 7, Q8_0 = 8, Q8_1 = 9,
  Q2_K = 10, Q3_K = 11, Q4_K = 12, Q5_K = 13, Q6_K = 14, Q8_K = 15,
  IQ2_XXS = 16, IQ2_XS = 17, IQ3_XXS = 18, IQ1_S = 19, IQ4_NL = 20, IQ3_S = 21, IQ2_S = 22, IQ4_XS = 23,
  I8 = 24, I16 = 25, I32 = 26, I64 = 27, F64 = 28, IQ1_M = 29,
  BF16 = 30,
  // 31-33 and 36-38 were ggml's repacked Q4_0/IQ4_NL layouts, since removed.
  TQ1_0 = 34, TQ2_0 = 35, MXFP4 = 39, NVFP4 = 40, Q1_0 = 41, Q2_0 = 42,
};

struct TypeInfo {
  Type type;
  const char* name;           // ggml's name: "f32", "q4_K", ... (ggml_type_name)
  std::size_t block_elems;    // elements per block (1 for F32/F16/BF16)
  std::size_t block_bytes;    // bytes per block
  bool dequantizable;         // dequantize_row supports it
  bool quantizable;           // quantize_row_ref supports it
};

// The type with ggml's number `value`, or nullptr when ggml defines none.
const TypeInfo* type_info(std::uint32_t value);
// The TypeInfo of an enumerator; Error for a value cast from outside the enum.
const TypeInfo& type_info(Type type);

// The type a user names ("q4_k", "Q4_K", "f16", ...; case-insensitive); nullptr if none.
const TypeInfo* type_by_name(const std::string& name);

// Bytes of a row of n elements. Throws UsageError (one line) when n is not a
// multiple of the type's block, or the size overflows.
std::size_t row_bytes(Type type, std::uint64_t n);

// dst[0..n) = ggml's dequantize_row_<type>(src, dst, n), bit for bit (F32: the
// bytes; F16, BF16: ggml.c's row conversions, exact; a signalling-NaN half
// comes back quiet, as ggml's arithmetic makes it). Any bytes are read as
// ggml reads them: NaN or infinite scales give what ggml gives. n a multiple
// of the block (else UsageError); src holds row_bytes(type, n) bytes. Throws
// UsageError naming the type for one dequantize_row does not support:
// "tensor type iq2_xxs is not supported; supported: f32, f16, ...".
void dequantize_row(Type type, const void* src, float* dst, std::size_t n);

// dst = ggml's quantize_row_<type>_ref(src, dst, n), bit for bit: the
// reference quantizer (no importance matrix); F16/BF16: ggml_fp32_to_fp16_row
// and ggml_fp32_to_bf16_row_ref (round to nearest even, NaN kept quiet).
// Rows holding NaN or infinity come out as ggml's do (meaningless, but the
// same bytes). n a multiple of the block (else UsageError). Throws
// UsageError naming the type for one quantize_row_ref does not support.
void quantize_row_ref(Type type, const float* src, void* dst, std::size_t n);

}  // namespace embedpe::ggml
