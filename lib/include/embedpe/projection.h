// Factorized embeddings, as in ALBERT (Lan et al. 2020, "ALBERT: A Lite BERT",
// section 3.1): a (vocab, E) table with E much smaller than d_model, and a
// projection to d_model, y = x · Wᵀ + b, W of shape (d_model, E) as
// nn.Linear stores it (Hugging Face's AlbertModel:
// encoder.embedding_hidden_mapping_in). V×E + E×d_model + d_model values
// instead of V×d_model.
//
// Where the projection sits (LayerSpec::projection_order):
//   first   output = (E[ids] · Wᵀ + b) × scale + PE: the projected table is
//           an ordinary (vocab, d_model) table (ProjectedTable), so every
//           other option (token types, LayerNorm, dropout) works in d_model.
//   albert  output = Linear(dropout(LayerNorm((E[ids] × scale + T) + PE))):
//           AlbertEmbeddings sums in E dimensions and
//           AlbertTransformer projects the result. Position, token type and
//           LayerNorm tables are then E wide, as ALBERT's checkpoints hold
//           them; token_embeddings and positional_encoding are the E-wide terms.
//   deberta output = LayerNorm(((E[ids] × scale + T) + PE) · Wᵀ + b): DebertaV2Embeddings
//           sums in E dimensions, applies embed_proj, then LayerNorm in d_model.
// In all, scale's sqrt is of d_model, the output's width.
//
//   auto inner = embedpe::open_embedding_table("albert.safetensors");          // (30000, 128)
//   auto proj = embedpe::read_projection("", "albert.safetensors", 128);        // (768, 128) and bias
//   embedpe::ProjectedTable table(std::move(inner), std::move(*proj));         // (30000, 768)
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "embedpe/embedding.h"
#include "embedpe/weights.h"

namespace embedpe {

enum class ProjectionOrder { first, albert, deberta };
const char* projection_order_name(ProjectionOrder order);  // "first", "albert", "deberta"

struct Projection {
  std::size_t in = 0;         // E
  std::size_t out = 0;        // d_model
  std::vector<float> weight;  // (out, in), row-major: nn.Linear's layout
  std::vector<float> bias;    // (out,), or empty: no bias
  std::string weight_source;  // for the run's config: "PATH:TENSOR", or how it was generated
  std::string bias_source;    // empty without a bias

  // y[o] = Σ_k x[k] W[o, k] + b[o], summed in float64 and rounded once
  // (within an ulp of PyTorch's float32 matmul, which sums in its own order).
  void apply(const float* x, float* y) const;
};

// The projection of a generated factorized table (vocab, in) → out, drawn as
// nn.Linear(in, out) initialises itself: W and b from U(±1/√in), with the
// uniform generator of the table's init schemes (embedding.h) and the same
// seed, at rows the table does not use: W[o] is generator row vocab + o
// (its first `in` values) and b is row vocab + out (its first `out` values).
Projection generated_projection(std::int64_t vocab, std::size_t in, std::size_t out, std::uint64_t seed);

// The projection `spec` names (PATH[:TENSOR]), or with an empty spec the one
// `weights` holds under a usual name (kProjectionNames), or nullopt if it
// holds none. W may be stored as nn.Linear's (out, in) or as (in, out); a
// square one is read as nn.Linear's. The bias is the tensor beside it whose
// name ends in ".bias" instead of ".weight", if there is one. `in` is the
// table's width E; throws embedpe::Error when the shapes disagree.
std::optional<Projection> read_projection(const std::string& spec, const std::string& weights, std::size_t in);

// A checkpoint's factorized embedding as stored: its table (the usual name,
// kEmbeddingNames) and projection (kProjectionNames) with the bias beside
// it, and the bytes they take against one (vocab, d_model) table of the
// table's dtype. nullopt unless both are found and their shapes agree.
struct StoredFactorization {
  const WeightTensor* table = nullptr;
  const WeightTensor* weight = nullptr;
  const WeightTensor* bias = nullptr;  // or null
  std::size_t vocab = 0, embedding_size = 0, d_model = 0;
  std::size_t bytes = 0;       // table + weight + bias
  std::size_t full_bytes = 0;  // vocab × d_model
};
std::optional<StoredFactorization> stored_factorization(const WeightFile& file);

// A (vocab, E) table seen through a projection: (vocab, out) rows
// E[id] · Wᵀ + b, each computed once and kept when the table is small
// enough (RandomNormalTable::kRowCacheLimit), as generated rows are.
class ProjectedTable final : public EmbeddingTable {
 public:
  ProjectedTable(std::unique_ptr<EmbeddingTable> inner, Projection projection);
  ~ProjectedTable() override;
  std::int64_t vocab_size() const override { return inner_->vocab_size(); }
  std::size_t d_model() const override { return projection_.out; }
  void row(std::int64_t id, float* out) const override;
  const float* row_data(std::int64_t id) const override;
  std::string describe() const override;
  const EmbeddingTable& inner() const { return *inner_; }
  const Projection& projection() const { return projection_; }

 private:
  std::unique_ptr<EmbeddingTable> inner_;
  Projection projection_;
  std::unique_ptr<RowCache> cache_;
};

}  // namespace embedpe
