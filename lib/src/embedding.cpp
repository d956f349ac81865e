#include "embedpe/embedding.h"

#include <cmath>
#include <numbers>

#include "embedpe/error.h"

namespace embedpe {

std::uint64_t splitmix64(std::uint64_t x) {
  std::uint64_t z = x + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

RandomNormalTable::RandomNormalTable(std::int64_t vocab_size, std::size_t d_model, std::uint64_t seed)
    : vocab_size_(vocab_size), d_model_(d_model), seed_(seed) {
  if (vocab_size <= 0) throw UsageError("embedding table needs at least one row");
  if (d_model == 0) throw UsageError("--d-model must be at least 1");
}

void RandomNormalTable::row(std::int64_t id, float* out) const {
  const std::uint64_t key = splitmix64(splitmix64(seed_) ^ static_cast<std::uint64_t>(id));
  constexpr double kTwoPow53 = 9007199254740992.0;
  for (std::size_t j = 0; j < d_model_; j += 2) {
    const std::uint64_t a = splitmix64(key + j);
    const std::uint64_t b = splitmix64(key + j + 1);
    const double u1 = static_cast<double>((a >> 11) + 1) / kTwoPow53;
    const double u2 = static_cast<double>(b >> 11) / kTwoPow53;
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double theta = 2.0 * std::numbers::pi * u2;
    out[j] = static_cast<float>(r * std::cos(theta));
    if (j + 1 < d_model_) out[j + 1] = static_cast<float>(r * std::sin(theta));
  }
}

std::string RandomNormalTable::describe() const {
  return "random-normal(seed=" + std::to_string(seed_) + ")";
}

DenseTable::DenseTable(xt::xtensor<float, 2> weights, std::string description)
    : weights_(std::move(weights)), description_(std::move(description)) {
  if (weights_.shape()[0] == 0 || weights_.shape()[1] == 0) {
    throw Error("embedding table " + description_ + " is empty");
  }
}

void DenseTable::row(std::int64_t id, float* out) const {
  const float* src = weights_.data() + static_cast<std::size_t>(id) * d_model();
  std::copy(src, src + d_model(), out);
}

}  // namespace embedpe
