// Token embedding tables: E of shape (vocab, d_model), read one row at a time.
//
//   embedpe::RandomNormalTable table(8000, 512, /*seed=*/0);  // N(0,1), like nn.Embedding
//   std::vector<float> row(table.d_model());
//   table.row(42, row.data());                               // E[42]
//
// RandomNormalTable never materialises the table: each row is generated on
// demand from (seed, row) by a counter-based generator, so a run costs
// O(tokens × d_model) whatever the vocabulary size. The generator,
// "splitmix64+box-muller-f32/3" (RandomNormalTable::kGenerator; the run's
// config names it), so that it can be reproduced elsewhere (README.md has it
// in NumPy; tests/reference.py too):
//
//   mix(x)     = splitmix64 finaliser of x + 0x9E3779B97F4A7C15 (mod 2^64)
//   key        = mix(mix(seed) ^ row)
//   a          = mix(key + k)                                  for pair k: one draw
//   u1         = ((a >> 40) + 1) / 2^24                        in (0, 1]
//   u2         = (a & (2^24 - 1)) / 2^24                       in [0, 1)
//   E[row, 2k]   = sqrt(-2 ln u1) * cos(2π u2)                 (Box–Muller)
//   E[row, 2k+1] = sqrt(-2 ln u1) * sin(2π u2)
//
// in float32, with ln, cos and sin as fixed polynomials rather than libm's
// (so that the loop vectorises and every value has the same bits on every
// compiler and machine): ln u1 = (e - 24) ln 2 + ln f, with (a >> 40) + 1 =
// 2^e f and f in (sqrt(1/2), sqrt(2)], ln 2 split in two floats (0x1.62e4p-1
// + 0x1.7f7d1cp-20), ln f = s Σ_{k<5} 2 s^2k / (2k+1) for s = (f - 1) / (f + 1);
// 2π u2 = q π/2 + x with x in [-π/4, π/4), split exactly in integers and
// scaled by float32(2π / 2^24), and the Taylor series of sin x (5 terms) and
// cos x (6 terms), each coefficient the float64 quotient rounded to float32.
// Within 4 float32 ulps (under 5e-7) of Box–Muller in float64 on the same
// uniforms for the 256,000 values a CLI test checks (500 rows x 512);
// |values| ≤ sqrt(48 ln 2) = 5.77 (u1 ≥ 2^-24), as for any float32 Box–Muller.
// Version 2 (issues 14 to 32) drew two splitmix64 values per pair and
// computed in float64: 2.3 times the time a row (3.25 against 1.40 ns a
// pair, docs/PERFORMANCE.md).
//
// Generating a row costs far more than reading one, so RandomNormalTable
// keeps each row it has generated (when vocab × d_model floats fit
// kRowCacheLimit): a run generates each distinct id once. Memory grows with
// the distinct ids seen, never beyond that limit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

namespace embedpe {

class RowCache;

class EmbeddingTable {
 public:
  virtual ~EmbeddingTable() = default;
  virtual std::int64_t vocab_size() const = 0;
  virtual std::size_t d_model() const = 0;
  // Writes E[id] to out[0 .. d_model). `id` must be in [0, vocab_size).
  virtual void row(std::int64_t id, float* out) const = 0;
  // E[id] as d_model float32 values in memory that live as long as the
  // table, or nullptr when the row has to be converted or computed (then use
  // row()). The input layer reads rows through this, without a copy.
  virtual const float* row_data(std::int64_t /*id*/) const { return nullptr; }
  // One line for the JSON config, e.g. "random-normal(seed=0, generator=splitmix64+box-muller-f32/3)";
  // another init scheme says which, and its scale.
  virtual std::string describe() const = 0;
};

// How the generated table is initialised (--init). Every scheme draws from
// the same counter-based generator, so a row is still a pure function of
// (seed, row):
//   normal          N(0, 1), nn.Embedding's default: the Box–Muller values above
//   scaled_normal   N(0, σ = 1/√d_model): float32(float64(normal value) × (1 / sqrt(d_model)))
//   xavier_uniform  U(±√(6 / (vocab + d_model))), nn.init.xavier_uniform_ on a (vocab, d_model) weight
//   uniform         U(±range)
// The uniform schemes ("splitmix64-uniform/1"): element j of a row is
//   u = (mix(key + j) >> 11) / 2^53 in [0, 1),  E[row, j] = float32((2u - 1) × bound)
// in float64, key as above, bound = range or sqrt(6.0 / (vocab + d_model)).
enum class Init { normal, scaled_normal, xavier_uniform, uniform };
struct InitScheme {
  Init kind = Init::normal;
  double range = 0;  // uniform: the bound R of U(±R)
};
// "normal", "scaled-normal", "xavier-uniform", "uniform".
const char* init_name(Init init);

class RandomNormalTable final : public EmbeddingTable {
 public:
  // The generator's name and version, as the run's config records it.
  static constexpr const char* kGenerator = "splitmix64+box-muller-f32/3";
  // Tables up to this many bytes keep the rows they generate.
  static constexpr std::size_t kRowCacheLimit = std::size_t(256) << 20;
  // Caches up to this size are given huge pages (fewer page faults).
  static constexpr std::size_t kHugePageCacheLimit = std::size_t(64) << 20;

  // The uniform schemes' generator, as the run's config records it.
  static constexpr const char* kUniformGenerator = "splitmix64-uniform/1";

  RandomNormalTable(std::int64_t vocab_size, std::size_t d_model, std::uint64_t seed, InitScheme init = {});
  ~RandomNormalTable() override;
  RandomNormalTable(const RandomNormalTable&) = delete;
  RandomNormalTable& operator=(const RandomNormalTable&) = delete;

  std::int64_t vocab_size() const override { return vocab_size_; }
  std::size_t d_model() const override { return d_model_; }
  // Generates E[id] (does not touch the cache).
  void row(std::int64_t id, float* out) const override;
  // The cached row, generated on first use; nullptr if the table is too
  // large to cache. Safe to call from several threads.
  const float* row_data(std::int64_t id) const override;
  std::string describe() const override;

 private:
  std::int64_t vocab_size_;
  std::size_t d_model_;
  std::uint64_t seed_;
  InitScheme init_;
  double factor_ = 1;  // scaled_normal: 1/sqrt(d_model); the uniform schemes: their bound
  std::unique_ptr<RowCache> cache_;  // the rows generated (row_cache.h)
};

// A table held in memory, e.g. weights handed over by a caller.
class DenseTable final : public EmbeddingTable {
 public:
  explicit DenseTable(xt::xtensor<float, 2> weights, std::string description = "dense");
  std::int64_t vocab_size() const override { return static_cast<std::int64_t>(weights_.shape()[0]); }
  std::size_t d_model() const override { return weights_.shape()[1]; }
  void row(std::int64_t id, float* out) const override;
  const float* row_data(std::int64_t id) const override {
    return weights_.data() + static_cast<std::size_t>(id) * d_model();
  }
  std::string describe() const override { return description_; }

 private:
  xt::xtensor<float, 2> weights_;  // (vocab, d_model)
  std::string description_;
};

class WeightFile;
struct WeightTensor;

// A (vocab, d_model) float table in a memory-mapped weight file (F32, F16,
// BF16, F64); rows are converted to float32 when read.
class MappedTable final : public EmbeddingTable {
 public:
  MappedTable(std::shared_ptr<const WeightFile> file, const WeightTensor& tensor);
  std::int64_t vocab_size() const override { return vocab_size_; }
  std::size_t d_model() const override { return d_model_; }
  void row(std::int64_t id, float* out) const override;
  // The mapped bytes themselves for an aligned little-endian F32 tensor.
  const float* row_data(std::int64_t id) const override;
  std::string describe() const override { return description_; }

 private:
  std::shared_ptr<const WeightFile> file_;
  const WeightTensor* tensor_;
  const float* direct_ = nullptr;  // the tensor's floats, when they can be read in place
  std::int64_t vocab_size_;
  std::size_t d_model_;
  std::string description_;
};

// A per-row symmetric int8 table: E[id] = q[id] × scale[id], as written by
// `embedpe quantize` (tensor NAME: I8 (vocab, d_model); NAME.scale: F32 (vocab,)).
class QuantizedTable final : public EmbeddingTable {
 public:
  QuantizedTable(std::shared_ptr<const WeightFile> file, const WeightTensor& values, const WeightTensor& scales);
  std::int64_t vocab_size() const override { return vocab_size_; }
  std::size_t d_model() const override { return d_model_; }
  void row(std::int64_t id, float* out) const override;
  std::string describe() const override { return description_; }

 private:
  std::shared_ptr<const WeightFile> file_;
  const WeightTensor* values_;
  const WeightTensor* scales_;
  std::int64_t vocab_size_;
  std::size_t d_model_;
  std::string description_;
};

// nn.Embedding(padding_idx=N): row N reads as zeros.
class PaddingIdxTable final : public EmbeddingTable {
 public:
  PaddingIdxTable(std::unique_ptr<EmbeddingTable> inner, std::int64_t padding_idx);
  std::int64_t vocab_size() const override { return inner_->vocab_size(); }
  std::size_t d_model() const override { return inner_->d_model(); }
  void row(std::int64_t id, float* out) const override;
  const float* row_data(std::int64_t id) const override;
  std::string describe() const override;

 private:
  std::unique_ptr<EmbeddingTable> inner_;
  std::int64_t padding_idx_;
  std::vector<float> zeros_;
};

// Opens "PATH[:TENSOR]" (see weights.h) as a table: float tables are
// mapped, int8 tables from `embedpe quantize` are dequantized per row.
std::unique_ptr<EmbeddingTable> open_embedding_table(const std::string& spec);

// The splitmix64 finaliser, exposed for the dropout mask and for tests.
std::uint64_t splitmix64(std::uint64_t x);

}  // namespace embedpe
