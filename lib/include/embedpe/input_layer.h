// The Transformer input layer: output = E[ids] × scale + PE, then (training
// only) inverted dropout — seed 000's TransformerInput, fused in one pass.
//
//   embedpe::RandomNormalTable table(vocab, 512, 0);
//   embedpe::SinusoidalEncoding pe({.d_model = 512});
//   embedpe::InputLayer layer(table, pe, {});            // scale = sqrt(512)
//   embedpe::InputLayerOutput out = layer.forward(batch.input_ids);
//   // out.output (batch, seq_len, 512)
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <xtensor/xtensor.hpp>

#include "embedpe/embedding.h"
#include "embedpe/positional_encoding.h"

namespace embedpe {

enum class ScaleKind { sqrt_d_model, none, value };

struct Scale {
  ScaleKind kind = ScaleKind::sqrt_d_model;
  double value = 1.0;  // for ScaleKind::value

  // "sqrt", "none" or a finite number; throws UsageError otherwise.
  static Scale parse(std::string_view text);
  // The factor E is multiplied by, rounded to float32 as PyTorch does when a
  // float32 tensor is multiplied by a Python float.
  float factor(std::size_t d_model) const;
  std::string to_string() const;
};

struct Dropout {
  double p = 0.1;          // in [0, 1)
  std::uint64_t seed = 0;  // the mask is a function of (seed, b, l, j)
};

struct InputLayerOptions {
  Scale scale;
  std::optional<Dropout> dropout;     // set only in training mode
  bool want_token_embeddings = false; // also return E[ids] × scale
};

struct InputLayerOutput {
  xt::xtensor<float, 3> token_embeddings;     // (batch, seq_len, d_model), if asked for
  xt::xtensor<float, 2> positional_encoding;  // (seq_len, d_model)
  xt::xtensor<float, 3> output;               // (batch, seq_len, d_model)
};

class InputLayer {
 public:
  // Both must outlive the layer and agree on d_model.
  InputLayer(const EmbeddingTable& table, const SinusoidalEncoding& pe, InputLayerOptions options);

  // Throws UsageError if a forward pass of this size (outputs, PE rows and
  // frequencies) would not fit in the machine's memory. forward() checks
  // this itself; callers may check before building the table and PE.
  static void check_memory(std::size_t batch, std::size_t seq_len, std::size_t d_model, bool want_token_embeddings);

  // ids: (batch, seq_len). Throws if seq_len exceeds the PE's max_len or an
  // id is outside the table.
  InputLayerOutput forward(const xt::xtensor<std::int64_t, 2>& ids) const;

 private:
  const EmbeddingTable& table_;
  const SinusoidalEncoding& pe_;
  InputLayerOptions options_;
};

}  // namespace embedpe
