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
#pragma once

#include <cstddef>
#include <string>

#include "embedpe/output_file.h"
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

// Refuses (UsageError naming output_path) an output that is not a file
// named *.safetensors (in any case): what quantize_table writes.
void check_quantize_output(const std::string& output_path);

}  // namespace embedpe
