#include "embedpe/rope.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "embedpe/error.h"
#include "memory.h"

namespace embedpe {

RopeFrequencies rope_frequencies(const RopeOptions& o) {
  if (o.dim == 0 || o.dim % 2 != 0) {
    // pe takes the rotary dimension from --d-model, encode from --rope-dim
    // (default: d_model): name both rather than one that may not exist.
    throw UsageError("RoPE needs an even, positive rotary dimension, not " + std::to_string(o.dim) +
                         " (pe d_model; encode rope_dim, which defaults to the model width)",
                     {"d_model", "rope_dim"});
  }
  if (!(o.theta > 1.0) || !std::isfinite(o.theta)) throw UsageError("rope_theta must be a finite number above 1", {"rope_theta"});
  if (o.scaling != RopeScaling::none && (!(o.factor > 0.0) || !std::isfinite(o.factor))) {
    throw UsageError("rope_factor must be a positive number", {"rope_factor"});
  }
  const std::size_t half = o.dim / 2;
  check_allocation(checked_product({half, sizeof(double)}, "RoPE frequencies"), "RoPE frequencies",
                   "lower the rotary dimension");
  const double dim = static_cast<double>(o.dim);
  // default: inv_freq = 1 / (base ** (arange(0, dim, 2) / dim))
  auto base_inv_freq = [&](double base) {
    std::vector<double> f(half);
    for (std::size_t i = 0; i < half; ++i) f[i] = 1.0 / std::pow(base, static_cast<double>(2 * i) / dim);
    return f;
  };
  RopeFrequencies out;
  switch (o.scaling) {
    case RopeScaling::none:
      out.inv_freq = base_inv_freq(o.theta);
      break;
    case RopeScaling::linear:
      // _compute_linear_scaling_rope_parameters: inv_freq /= factor
      out.inv_freq = base_inv_freq(o.theta);
      for (double& f : out.inv_freq) f /= o.factor;
      break;
    case RopeScaling::dynamic: {
      // _compute_dynamic_ntk_parameters:
      //   seq_len = max(seq_len, max_position_embeddings)
      //   base = base * ((factor * seq_len / max_position_embeddings) - (factor - 1)) ** (dim / (dim - 2))
      if (o.dim <= 2) throw UsageError("dynamic RoPE scaling needs a rotary dimension above 2");
      const double max_pos = static_cast<double>(o.original_max_positions);
      const double seq = std::max(static_cast<double>(o.seq_len), max_pos);
      const double base = o.theta * std::pow(o.factor * seq / max_pos - (o.factor - 1.0), dim / (dim - 2.0));
      out.inv_freq = base_inv_freq(base);
      break;
    }
    case RopeScaling::yarn: {
      // _compute_yarn_parameters:
      //   attention_factor = 0.1 * ln(factor) + 1 (1 if factor <= 1)
      //   find_correction_dim(r) = dim * ln(max_pos / (r * 2π)) / (2 ln(base))
      //   low = max(floor(corr(beta_fast)), 0); high = min(ceil(corr(beta_slow)), dim - 1)
      //   ramp(i) = clamp((i - low) / (high - low), 0, 1)  (high += 0.001 if equal), i < dim/2
      //   extrapolation_factor = 1 - ramp
      //   inv_freq = interpolation * (1 - extrapolation_factor) + extrapolation * extrapolation_factor
      //   with extrapolation = 1 / base^(2i/dim), interpolation = extrapolation / factor
      const double max_pos = static_cast<double>(o.original_max_positions);
      auto correction_dim = [&](double rotations) {
        return dim * std::log(max_pos / (rotations * 2.0 * std::numbers::pi)) / (2.0 * std::log(o.theta));
      };
      double low = std::max(std::floor(correction_dim(o.beta_fast)), 0.0);
      double high = std::min(std::ceil(correction_dim(o.beta_slow)), dim - 1.0);
      if (low == high) high += 0.001;
      const auto extrapolation = base_inv_freq(o.theta);
      out.inv_freq.resize(half);
      for (std::size_t i = 0; i < half; ++i) {
        const double ramp = std::clamp((static_cast<double>(i) - low) / (high - low), 0.0, 1.0);
        const double extra_factor = 1.0 - ramp;
        const double interpolation = extrapolation[i] / o.factor;
        out.inv_freq[i] = interpolation * (1.0 - extra_factor) + extrapolation[i] * extra_factor;
      }
      out.attention_factor = o.factor <= 1.0 ? 1.0 : 0.1 * std::log(o.factor) + 1.0;
      break;
    }
    case RopeScaling::llama3: {
      // _compute_llama3_parameters:
      //   low_freq_wavelen = old_context_len / low_freq_factor
      //   high_freq_wavelen = old_context_len / high_freq_factor
      //   wavelen = 2π / inv_freq
      //   wavelen > low_freq_wavelen:  inv_freq / factor
      //   wavelen < high_freq_wavelen: inv_freq
      //   otherwise: smooth = (old_context_len / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
      //              (1 - smooth) * inv_freq / factor + smooth * inv_freq
      if (!(o.high_freq_factor > o.low_freq_factor)) {
        throw UsageError("rope_high_freq_factor must be larger than rope_low_freq_factor",
                         {"rope_high_freq_factor", "rope_low_freq_factor"});
      }
      const double old_len = static_cast<double>(o.original_max_positions);
      const double low_wavelen = old_len / o.low_freq_factor;
      const double high_wavelen = old_len / o.high_freq_factor;
      out.inv_freq = base_inv_freq(o.theta);
      for (double& f : out.inv_freq) {
        const double wavelen = 2.0 * std::numbers::pi / f;
        if (wavelen > low_wavelen) {
          f = f / o.factor;
        } else if (wavelen >= high_wavelen) {
          const double smooth = (old_len / wavelen - o.low_freq_factor) / (o.high_freq_factor - o.low_freq_factor);
          f = (1.0 - smooth) * f / o.factor + smooth * f;
        }
      }
      break;
    }
  }
  return out;
}

std::pair<xt::xtensor<float, 2>, xt::xtensor<float, 2>> rope_tables(const RopeFrequencies& f, std::size_t first,
                                                                     std::size_t count) {
  const std::size_t half = f.inv_freq.size(), dim = 2 * half;
  check_allocation(checked_product({count, dim, sizeof(float), 2}, "RoPE tables"), "RoPE tables",
                   "lower the rotary dimension or the number of positions");
  auto cos = xt::xtensor<float, 2>::from_shape({count, dim});
  auto sin = xt::xtensor<float, 2>::from_shape({count, dim});
  for (std::size_t r = 0; r < count; ++r) {
    const double pos = static_cast<double>(first + r);
    for (std::size_t i = 0; i < half; ++i) {
      const double angle = pos * f.inv_freq[i];
      const auto c = static_cast<float>(std::cos(angle) * f.attention_factor);
      const auto s = static_cast<float>(std::sin(angle) * f.attention_factor);
      cos(r, i) = cos(r, i + half) = c;
      sin(r, i) = sin(r, i + half) = s;
    }
  }
  return {std::move(cos), std::move(sin)};
}

}  // namespace embedpe
