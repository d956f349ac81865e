#include "embedpe/positional_encoding.h"

#include <cmath>
#include <string>

#include "embedpe/error.h"
#include "embedpe/memory.h"

namespace embedpe {

SinusoidalEncoding::SinusoidalEncoding(SinusoidalOptions options) : options_(options) {
  if (options_.d_model == 0) throw UsageError("--d-model must be at least 1");
  if (options_.max_len == 0) throw UsageError("--max-len must be at least 1");
  if (!(options_.base > 1.0) || !std::isfinite(options_.base)) {
    throw UsageError("PE base must be a finite number greater than 1");
  }
  const std::size_t d = options_.d_model;
  check_allocation(checked_product({(d + 1) / 2, sizeof(double)}, "PE frequency table"), "PE frequency table");
  denominators_.resize((d + 1) / 2);
  for (std::size_t i = 0; i < denominators_.size(); ++i) {
    denominators_[i] = std::pow(options_.base, static_cast<double>(2 * i) / static_cast<double>(d));
  }
}

void SinusoidalEncoding::row(std::size_t pos, float* out) const {
  if (pos >= options_.max_len) {
    throw UsageError("position " + std::to_string(pos) + " is beyond the PE table (--max-len " +
                     std::to_string(options_.max_len) + "); raise --max-len");
  }
  const std::size_t d = options_.d_model;
  const double p = static_cast<double>(pos);
  for (std::size_t i = 0; i < denominators_.size(); ++i) {
    const double angle = p / denominators_[i];
    out[2 * i] = static_cast<float>(std::sin(angle));
    if (2 * i + 1 < d) out[2 * i + 1] = static_cast<float>(std::cos(angle));
  }
}

xt::xtensor<float, 2> SinusoidalEncoding::rows(std::size_t first, std::size_t count) const {
  if (count > 0 && (first >= options_.max_len || count > options_.max_len - first)) {
    throw UsageError("positions " + std::to_string(first) + ".." + std::to_string(first + count - 1) +
                     " go beyond the PE table (--max-len " + std::to_string(options_.max_len) +
                     "); raise --max-len");
  }
  check_allocation(checked_product({count, options_.d_model, sizeof(float)}, "PE table"), "PE table");
  auto table = xt::xtensor<float, 2>::from_shape({count, options_.d_model});
  for (std::size_t r = 0; r < count; ++r) row(first + r, table.data() + r * options_.d_model);
  return table;
}

}  // namespace embedpe
