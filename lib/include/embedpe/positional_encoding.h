// Positional encodings: PE[pos] rows of width d_model added to the token
// embeddings.
//
// SinusoidalEncoding (Vaswani et al. 2017), interleaved by default:
//
//   PE[pos, 2i]   = sin(pos / base^(2i/d))
//   PE[pos, 2i+1] = cos(pos / base^(2i/d))        (odd d: the last column is a sin)
//
// Conventions (layout × frequencies; h = floor(d/2)), each matching a framework:
//   paper          interleaved, 1/base^(2i/d)               the paper, Annotated Transformer
//   marian         concat, 1/base^(2i/d); odd d: one more   HF MarianSinusoidalPositionalEmbedding
//                  sin column
//   fairseq        concat, exp(-i·ln(base)/(h-1)); odd d:   fairseq SinusoidalPositionalEmbedding
//                  a zero last column; row padding_idx is   (positions start at padding_idx + 1)
//                  zero
//   tensor2tensor  concat, exp(-i·ln(base)/max(h-1, 1))     t2t get_timing_signal_1d
// (fairseq divides by h-1 and so fails for d < 4; embedpe uses max(h-1, 1).)
//
// Every value is the float64 result rounded to float32, at any position: the
// usual float32 computation (the PyTorch recipe) is off by up to ~4.5e-2 near 1e6.
//
// LearnedPositions: a (max_len, d_model) table from a weight file (GPT-2
// wpe, BERT position_embeddings, BART/fairseq embed_positions).
//
//   embedpe::SinusoidalEncoding pe({.d_model = 512, .max_len = 5000});
//   xt::xtensor<float, 2> rows = pe.rows(0, 10);   // (10, 512)
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <xtensor/xtensor.hpp>

namespace embedpe {

class PositionTable {
 public:
  virtual ~PositionTable() = default;
  virtual std::size_t d_model() const = 0;
  virtual std::size_t max_len() const = 0;  // positions [0, max_len) exist
  // Writes PE[pos] to out[0 .. d_model). Throws if pos >= max_len.
  virtual void row(std::size_t pos, float* out) const = 0;
  virtual std::string describe() const = 0;
  // What bounds the positions, for a message: "the PE table has 5000 positions (max_len)".
  virtual std::string extent() const = 0;
  // Whether the max_len parameter lengthens the table (a learned one is as long as it is).
  virtual bool extensible() const { return false; }

  // PE[first .. first+count), shape (count, d_model).
  xt::xtensor<float, 2> rows(std::size_t first, std::size_t count) const;
};

// Where sin and cos columns go.
enum class PeLayout {
  interleaved,  // sin, cos, sin, cos, ... (the paper; HF BERT-style sinusoidal)
  concat,       // all sins, then all cosines (tensor2tensor, fairseq, HF Marian)
};

// How the frequency of pair i is chosen (h = floor(d/2) pairs, n = number of pairs).
enum class PeFrequencies {
  paper,    // 1 / base^(2i/d)                     (the paper, HF Marian)
  fairseq,  // exp(-i * ln(base) / max(h - 1, 1))  (fairseq, tensor2tensor)
};

struct SinusoidalOptions {
  std::size_t d_model = 512;
  std::size_t max_len = 5000;
  double base = 10000.0;
  PeLayout layout = PeLayout::interleaved;
  PeFrequencies frequencies = PeFrequencies::paper;
  double position_scale = 1.0;  // position interpolation: PE(pos / position_scale)
  // fairseq: the row of padding_idx is all zeros.
  std::optional<std::size_t> zero_position;
};

// A framework's sinusoidal PE (see the table above).
enum class PeConvention { paper, marian, fairseq, tensor2tensor };

// The options of `convention`; fairseq's also zeroes the row of padding_idx
// (default 1). Defined with the sinusoidal kind (lib/src/pe/sinusoidal.cpp).
SinusoidalOptions convention_options(PeConvention convention, std::size_t d_model, std::size_t max_len,
                                     std::optional<std::size_t> padding_idx = std::nullopt);
// What a run records about the table: kind, layout, frequencies, base, ...
nlohmann::ordered_json to_json(const SinusoidalOptions& options);

class SinusoidalEncoding final : public PositionTable {
 public:
  explicit SinusoidalEncoding(SinusoidalOptions options);

  const SinusoidalOptions& options() const { return options_; }
  std::size_t d_model() const override { return options_.d_model; }
  std::size_t max_len() const override { return options_.max_len; }
  void row(std::size_t pos, float* out) const override;
  std::string describe() const override { return "sinusoidal"; }
  std::string extent() const override;
  bool extensible() const override { return true; }
  // Whether column `dim` is a sin (else a cos, or fairseq's zero column of an odd d).
  bool is_sin_column(std::size_t dim) const {
    return options_.layout == PeLayout::interleaved ? dim % 2 == 0 : dim < sins_;
  }
  // PE[pos] in float64, before rounding: the reference the audit compares with.
  void row_f64(std::size_t pos, double* out) const;
  // Radians per token position of each sin column (one per pair, plus the
  // extra sin of an odd d), position scale included.
  std::vector<double> pair_frequencies() const;
  // PE[first_pos .. first_pos+count-1, first_dim .. first_dim+dims-1], computing
  // only those columns: a few dims of a very wide table cost only their own.
  xt::xtensor<float, 2> columns(std::size_t first_pos, std::size_t count, std::size_t first_dim,
                                std::size_t dims) const;  // (count, dims)

 private:
  template <class T>
  void fill_row(std::size_t pos, T* out) const;
  double k(std::size_t i) const;  // pair i's divisor (paper) or inverse frequency (fairseq)
  double value(std::size_t pos, std::size_t dim) const;

  SinusoidalOptions options_;
  std::size_t sins_ = 0, coss_ = 0;  // sin and cos columns
  std::vector<double> k_;  // (sins_,): k(i) cached, unless d_model is too wide to hold them
  bool divide_ = true;
};

class WeightFile;
struct WeightTensor;

class LearnedPositions final : public PositionTable {
 public:
  LearnedPositions(std::shared_ptr<const WeightFile> file, const WeightTensor& tensor);
  std::size_t d_model() const override { return d_model_; }
  std::size_t max_len() const override { return max_len_; }
  void row(std::size_t pos, float* out) const override;
  std::string describe() const override { return description_; }
  std::string extent() const override;

 private:
  std::shared_ptr<const WeightFile> file_;
  const WeightTensor* tensor_;
  std::size_t max_len_;
  std::size_t d_model_;
  std::string description_;
};

// Opens "PATH[:TENSOR]" (see weights.h) as a learned position table.
std::unique_ptr<PositionTable> open_position_table(const std::string& spec);

}  // namespace embedpe
