// The Transformer input layer: output = E[ids] × scale + PE[pos], then
// (optionally) LayerNorm, then (training only) inverted dropout — the Annotated Transformer's
// TransformerInput, fused in one pass.
//
// Positions: token l of a sequence is at position l + position_offset
// (BART's learned positions start at 2; fairseq/RoBERTa at padding_idx + 1).
// With pad_position set, padding tokens (attention_mask 0) use that position
// instead, as RoBERTa's create_position_ids_from_input_ids does. With
// positions_from_mask (left padding), a row's real tokens are numbered from
// the mask, so they sit at 0..n-1 after any left padding.
//
//   embedpe::RandomNormalTable table(vocab, 512, 0);
//   embedpe::SinusoidalEncoding pe({.d_model = 512});
//   embedpe::InputLayer layer(table, pe, {});            // scale = sqrt(512)
//   embedpe::InputLayerOutput out = layer.forward(batch.input_ids);
//   // out.output (batch, seq_len, 512)
//
// For a stream of batches, forward_into() reuses the output's buffers, and
// the layer keeps the PE rows it has computed: each position's row is
// computed once per layer, not once per batch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "embedpe/embedding.h"
#include "embedpe/positional_encoding.h"
#include "embedpe/projection.h"

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
  // p lies in [0, kMaxP): at 1 every value would be dropped and the kept ones
  // scaled by 1/0. The layer refuses anything else; a front end that checks
  // p as it parses it takes the bound from here.
  static constexpr double kMaxP = 1.0;

  double p = 0.1;          // in [0, kMaxP)
  std::uint64_t seed = 0;  // the mask is a function of (seed, b, l, j)
};

// y = (x - mean) / sqrt(var + eps) * gamma + beta over d_model (biased
// variance), as nn.LayerNorm; computed in float64 and rounded.
struct LayerNorm {
  std::vector<float> gamma;  // (d_model,)
  std::vector<float> beta;   // (d_model,)
  double eps = 1e-5;
};

struct InputLayerOptions {
  Scale scale;
  std::size_t position_offset = 0;
  std::optional<std::size_t> pad_position;
  // Positions from the attention mask, as HF computes position_ids for left
  // padding (attention_mask.cumsum(-1) - 1): a row's real tokens sit at
  // 0..n-1 wherever its padding is, and padding at pad_position, else at 0.
  // Without it token l sits at l, padding too unless pad_position is set.
  bool positions_from_mask = false;
  // Positions from the ids, as HF's create_position_ids_from_input_ids: a
  // token's is the count of tokens up to it whose id is not this one, less
  // one (then position_offset added); tokens of this id sit at pad_position.
  // Takes precedence over positions_from_mask.
  std::optional<std::int64_t> positions_skip_id;
  // Each token's output multiplied by its attention mask (DeBERTa-v2's
  // embeddings * mask): padding tokens give zeros. Needs the mask.
  bool mask_output = false;
  // BERT's token type (segment) embeddings, (types, d_model): token t adds
  // row token_type_ids[t] (0 when none are given), as BertEmbeddings does:
  // (E[ids] × scale + T[types]) + PE, then LayerNorm. Must outlive the layer.
  const EmbeddingTable* token_types = nullptr;
  std::optional<LayerNorm> layer_norm;  // after the sum, before dropout
  std::optional<Dropout> dropout;       // set only in training mode
  // ALBERT's order (projection.h): everything above is computed in the
  // table's width E, and this projects each token's result to `out` values
  // last. Must outlive the layer. (A projection applied first is a
  // ProjectedTable instead.)
  const Projection* projection = nullptr;
  // DeBERTa's order: layer_norm applies to the projected sum (out values).
  bool layer_norm_after_projection = false;
  bool want_token_embeddings = false;   // also return E[ids] × scale
};

// With options.projection, token_embeddings and positional_encoding are the
// table's width E, output the projection's.
struct InputLayerOutput {
  xt::xtensor<float, 3> token_embeddings;     // (batch, seq_len, d_model), if asked for
  xt::xtensor<float, 2> positional_encoding;  // (seq_len, d_model): positions offset .. offset+seq_len-1; zeros without PE
  xt::xtensor<float, 3> output;               // (batch, seq_len, d_model)
};

class InputLayer {
 public:
  // Both must outlive the layer and agree on d_model; `pe` may be null (no
  // positional encoding, e.g. for RoPE models).
  InputLayer(const EmbeddingTable& table, const PositionTable* pe, InputLayerOptions options);
  InputLayer(const EmbeddingTable& table, const PositionTable& pe, InputLayerOptions options)
      : InputLayer(table, &pe, std::move(options)) {}

  // Throws UsageError if a forward pass of this size (outputs, the PE rows
  // and their copy, the ids and mask) would not fit in memory (or under
  // ulimit -v). forward() checks this itself; callers may check earlier.
  static void check_memory(std::size_t batch, std::size_t seq_len, std::size_t d_model, bool want_token_embeddings);

  // The one check of a length against the position table: throws
  // UsageError unless positions offset .. offset + seq_len - 1 all exist.
  // forward() calls it; a caller that knows where its rows came from calls
  // it first with each row's length and origin ("file:3"), so that a table
  // max_len lengthens names the longest row in its message.
  void check_positions(std::size_t seq_len, const std::vector<std::size_t>& lengths = {},
                       const std::vector<std::string>& origins = {}) const;

  // ids: (batch, seq_len). mask: (batch, seq_len) or empty (all tokens);
  // used only with pad_position or positions_from_mask. Throws if a position is beyond the PE
  // table or an id is outside the embedding table.
  // Sequences are spread over up to `threads` threads; the result does not
  // depend on it. `first_row` is the index of ids' first sequence in the
  // whole stream: the dropout mask is keyed by it, so streaming in batches
  // drops the same values as one big batch.
  // token_type_ids: (batch, seq_len), or null or empty (type 0), with options.token_types.
  InputLayerOutput forward(const xt::xtensor<std::int64_t, 2>& ids, const xt::xtensor<std::int64_t, 2>& mask = {},
                           std::size_t threads = 1, std::size_t first_row = 0,
                           const xt::xtensor<std::int64_t, 2>* token_type_ids = nullptr) const;
  // The same, into `out`, whose buffers are kept when their sizes already
  // match (the usual case when streaming batches of one shape).
  void forward_into(InputLayerOutput& out, const xt::xtensor<std::int64_t, 2>& ids,
                    const xt::xtensor<std::int64_t, 2>& mask = {}, std::size_t threads = 1,
                    std::size_t first_row = 0, const xt::xtensor<std::int64_t, 2>* token_type_ids = nullptr) const;

 private:
  // PE rows for positions offset .. offset + count - 1, (count, d_model),
  // computed on first use and kept. Safe to call from several threads.
  std::shared_ptr<const std::vector<float>> position_rows(std::size_t count) const;

  const EmbeddingTable& table_;
  const PositionTable* pe_;
  InputLayerOptions options_;
  mutable std::mutex pe_mutex_;
  mutable std::shared_ptr<const std::vector<float>> pe_rows_;  // grows, never changes in place
};

}  // namespace embedpe
