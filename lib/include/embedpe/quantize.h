// Per-row symmetric int8 quantization of an embedding table.
//
//   auto file = embedpe::WeightFile::open("emb.safetensors");
//   const auto& t = embedpe::select_tensor(*file, "", embedpe::kEmbeddingNames, "token embedding");
//   embedpe::OutputFile out("emb.int8.safetensors");
//   embedpe::QuantizeReport r = embedpe::quantize_table(*file, t, out, /*output_scale=*/std::sqrt(512.0f));
//   out.commit();
//
// For each row: scale = max|row| / 127 (float32), q = clamp(rint(row / scale),
// -127, 127) with ties to even; an all-zero row has scale 0. The result is a
// .safetensors file with NAME.scale (F32, (vocab,)) then NAME (I8,
// (vocab, d_model)), which `--weights` reads as E[id] = q[id] × scale[id].
//
// quantize_table_ggml measures a ggml (GGUF) block type instead: each row is
// quantized as ggml's quantize_row_<type>_ref does and dequantized as its
// dequantize_row_<type> does (bit for bit, lib/src/core/ggml_types.h), and
// the report gives what that round trip changed. With an output file it
// writes the dequantized table as float32 .safetensors (tensor NAME, metadata
// format "embedpe-dequantized", ggml_type), which --weights reads and
// NumPy diffs against the original:
//
//   embedpe::GgmlQuantizeReport g = embedpe::quantize_table_ggml(*file, t, "q4_K", &out, 1.0f);
#pragma once

#include <cstddef>
#include <string>

#include "embedpe/input_layer.h"
#include "embedpe/output_file.h"
#include "embedpe/pretrained_model.h"
#include "embedpe/projection.h"
#include "embedpe/weights.h"

namespace embedpe {

struct QuantizeReport {
  std::size_t input_bytes = 0;    // of the float tensor
  std::size_t output_bytes = 0;   // of the whole .safetensors file written
  double max_abs_error = 0;       // of reconstructed rows vs the float rows
  double mean_abs_error = 0;
  float output_scale = 1;         // the embedding scale the output figures assume
  double max_abs_output_error = 0;   // in output = E × scale + PE (PE is unchanged)
  double mean_abs_output_error = 0;
};

QuantizeReport quantize_table(const WeightFile& file, const WeightTensor& tensor, OutputFile& out, float output_scale);

struct GgmlQuantizeReport {
  std::string type;                // ggml's name of the type: "q4_K"
  std::size_t block_elems = 0;     // elements per block
  double bits_per_weight = 0;      // block bytes × 8 / block elements
  std::size_t rows = 0, d_model = 0;
  std::size_t input_bytes = 0;     // of the float tensor
  std::size_t quantized_bytes = 0; // of the table in the type's blocks (as a GGUF tensor stores it)
  std::size_t output_bytes = 0;    // of the float32 .safetensors written; 0 without one
  // Of the dequantized rows vs the float rows, in float64:
  double max_abs_error = 0;
  double mean_abs_error = 0;
  double rms_error = 0;
  double relative_rms_error = 0;   // rms_error / the input's root mean square (0 for an all-zero table)
  // Values ggml dequantizes to infinity or NaN (its float16 scales overflow
  // beyond ±65504); each counts as an infinite error, so the figures above
  // and below are then infinite (JSON null).
  std::size_t non_finite_values = 0;
  std::size_t worst_row = 0;       // the first row with the largest max abs error
  double worst_row_max_abs_error = 0;
  float output_scale = 1;          // the embedding scale the output figures assume
  double max_abs_output_error = 0; // in output = E × scale + PE (PE is unchanged)
  double mean_abs_output_error = 0;
};

// `type` names a ggml type that ggml_types quantizes (case-insensitive: "q4_k",
// "Q8_0", "f16"); UsageError naming `type` otherwise, and when d_model is not
// a multiple of its block, before anything is read or written. `out` may be
// null (the report only). Error for a row holding NaN or infinity.
GgmlQuantizeReport quantize_table_ggml(const WeightFile& file, const WeightTensor& tensor, const std::string& type,
                                       OutputFile* out, float output_scale);

// The names quantize_table_ggml accepts, in ggml's spelling: "f32, f16, ...".
std::string ggml_quantize_types();

// Refuses (UsageError naming output_path) an output that is not a file
// named *.safetensors (in any case): what quantize_table writes.
void check_quantize_output(const std::string& output_path);

// The table quantize reads and what its model says of it.
struct QuantizeTable {
  std::string weights;                      // PATH[:TENSOR]: given, else the directory's token embedding
  std::shared_ptr<const WeightFile> file;   // opened
  const WeightTensor* tensor = nullptr;     // the (vocab, d_model) table in file
  float scale = 1;                          // the output figures' embedding scale, for the table's width
  // A factorized table's projection, which stays in the float file: the
  // directory's (when its table is read), else the one beside weights
  // (when no tensor is named).
  std::optional<Projection> projection;
};

// Which table quantize reads: `weights` (PATH[:TENSOR]) when given, else
// `model`'s token embedding (a UsageError naming weights and pretrained
// when there is neither).
std::string quantize_weights(const std::string& weights, const PretrainedModel* model);
// That table opened (`weights` as given: "" is the model's), with its
// scale: `scale` when given, else the model's as it runs in the table's
// dtype (pretrained_scale), else sqrt.
QuantizeTable open_quantize_table(const std::string& weights, const PretrainedModel* model,
                                  const std::optional<Scale>& scale);

}  // namespace embedpe
