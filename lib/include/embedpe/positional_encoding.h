// Sinusoidal positional encoding (Vaswani et al. 2017; seed 000), interleaved:
//
//   PE[pos, 2i]   = sin(pos / base^(2i/d))
//   PE[pos, 2i+1] = cos(pos / base^(2i/d))        (odd d: the last column is a sin)
//
// Every value is the float64 result rounded to float32, at any position: the
// usual float32 computation (seed 000) is off by up to ~4.5e-2 near 1e6.
//
//   embedpe::SinusoidalEncoding pe({.d_model = 512, .max_len = 5000});
//   xt::xtensor<float, 2> rows = pe.rows(0, 10);   // (10, 512)
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <xtensor/xtensor.hpp>

namespace embedpe {

struct SinusoidalOptions {
  std::size_t d_model = 512;
  std::size_t max_len = 5000;  // positions [0, max_len) exist
  double base = 10000.0;
};

class SinusoidalEncoding {
 public:
  explicit SinusoidalEncoding(SinusoidalOptions options);

  const SinusoidalOptions& options() const { return options_; }
  std::size_t d_model() const { return options_.d_model; }
  std::size_t max_len() const { return options_.max_len; }

  // Writes PE[pos] to out[0 .. d_model). Throws if pos >= max_len.
  void row(std::size_t pos, float* out) const;
  // PE[first .. first+count), shape (count, d_model).
  xt::xtensor<float, 2> rows(std::size_t first, std::size_t count) const;

 private:
  SinusoidalOptions options_;
  std::vector<double> denominators_;  // (ceil(d/2),): base^(2i/d)
};

}  // namespace embedpe
