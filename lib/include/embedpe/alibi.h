// ALiBi (Press et al. 2022): attention biases linear in the distance, one
// slope per head; nothing is added to the input.
//
//   std::vector<double> m = embedpe::alibi_slopes(12);   // non-powers of two too
//   auto bias = embedpe::alibi_bias(m, 8);               // (12, 8, 8)
//
// Slopes for n heads, n a power of two: 2^(-8/n · (h+1)), h = 0..n-1. Otherwise,
// with p the largest power of two below n: the p slopes for p heads, then
// every other slope of 2p heads, the first n - p of them (as in the paper's
// reference code and BLOOM).
// bias[h, i, j] = slope_h · (j - i): 0 on the diagonal, negative for earlier
// keys; a causal model masks j > i separately.
#pragma once

#include <cstddef>
#include <vector>

#include <xtensor/xtensor.hpp>

namespace embedpe {

std::vector<double> alibi_slopes(std::size_t heads);

// For `count` query and key positions (it depends only on j - i): shape
// (heads, count, count).
xt::xtensor<float, 3> alibi_bias(const std::vector<double>& slopes, std::size_t count);

}  // namespace embedpe
