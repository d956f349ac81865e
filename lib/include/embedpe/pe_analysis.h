// What a sinusoidal PE table can and cannot tell apart.
//
//   embedpe::SinusoidalEncoding pe({.d_model = 512});
//   auto stats = embedpe::frequency_stats(pe, 5000);                    // one per sin column, over 5000 positions
//   auto bands = embedpe::audit_precision(pe.options(), 0, 1'000'000);  // positions [0, 1e6), by decade
//   auto sim = embedpe::similarity(pe.rows(0, 64));                     // (64, 64) PE·PEᵀ
#pragma once

#include <cstddef>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "embedpe/positional_encoding.h"
#include "embedpe/rope.h"

namespace embedpe {

struct FrequencyStat {
  std::size_t pair = 0;
  std::size_t sin_dim = 0, cos_dim = 0;  // columns of the pair (cos_dim == sin_dim for a lone sin)
  double frequency = 0;   // radians per position
  double wavelength = 0;  // positions per period: 2π / frequency
  bool aliases = false;   // wavelength < 2: sampled below Nyquist, positions alias
  bool incomplete = false;  // wavelength > the range: never completes a period in it
};

// One row per sin column (pair) of `pe`, judged over `count` positions.
std::vector<FrequencyStat> frequency_stats(const SinusoidalEncoding& pe, std::size_t count);

// The same for RoPE: one row per pair of rotated dimensions.
struct RopePairStat {
  std::size_t pair = 0;
  double inv_freq = 0;    // radians per position
  double wavelength = 0;  // 2π / inv_freq
  bool aliases = false;   // wavelength < 2
  bool incomplete = false;  // wavelength > the range
};
std::vector<RopePairStat> rope_pair_stats(const RopeFrequencies& frequencies, std::size_t count);

struct AuditBand {
  std::size_t first = 0, last = 0;  // positions [first, last]
  std::size_t sampled = 0;          // positions evaluated in the band
  // Against float64: [0] float32 computed as the usual PyTorch recipe does (float32 arguments),
  // [1] float64 stored as float16, [2] float64 stored as bfloat16.
  double max_error[3] = {0, 0, 0};
  double mean_error[3] = {0, 0, 0};
};

// Bands are decades ([0, 10), [10, 100), ...) within [first, first+count), or
// eight equal bands if the range lies within one decade; at most 2000
// positions of each band are evaluated, evenly spaced, both ends included.
std::vector<AuditBand> audit_precision(const SinusoidalOptions& options, std::size_t first, std::size_t count);

// The Gram matrix rows · rowsᵀ: (n, n).
xt::xtensor<float, 2> similarity(const xt::xtensor<float, 2>& rows);

}  // namespace embedpe
