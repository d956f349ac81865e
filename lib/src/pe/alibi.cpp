#include "embedpe/alibi.h"

#include <cmath>

#include "embedpe/error.h"
#include "memory.h"

namespace embedpe {
namespace {

std::vector<double> power_of_two_slopes(std::size_t n) {
  const double start = std::pow(2.0, -8.0 / static_cast<double>(n));
  std::vector<double> slopes(n);
  for (std::size_t h = 0; h < n; ++h) slopes[h] = std::pow(start, static_cast<double>(h + 1));
  return slopes;
}

}  // namespace

std::vector<double> alibi_slopes(std::size_t heads) {
  if (heads == 0) throw UsageError("heads must be at least 1", {"heads"});
  if (heads > 65536) throw UsageError("heads " + std::to_string(heads) + " is implausibly many (at most 65536)", {"heads"});
  std::size_t p = 1;
  while (p * 2 <= heads) p *= 2;
  std::vector<double> slopes = power_of_two_slopes(p);
  if (p != heads) {
    const std::vector<double> extra = power_of_two_slopes(2 * p);
    for (std::size_t k = 0; slopes.size() < heads; k += 2) slopes.push_back(extra[k]);
  }
  return slopes;
}

xt::xtensor<float, 3> alibi_bias(const std::vector<double>& slopes, std::size_t count) {
  const std::size_t heads = slopes.size();
  check_allocation(checked_product({heads, count, count, sizeof(float)}, "ALiBi bias"), "ALiBi bias",
                   "lower heads or the number of positions", {"heads"});
  auto bias = xt::xtensor<float, 3>::from_shape({heads, count, count});
  for (std::size_t h = 0; h < heads; ++h) {
    for (std::size_t i = 0; i < count; ++i) {
      for (std::size_t j = 0; j < count; ++j) {
        bias(h, i, j) = static_cast<float>(slopes[h] * (static_cast<double>(j) - static_cast<double>(i)));
      }
    }
  }
  return bias;
}

}  // namespace embedpe
