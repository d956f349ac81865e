#include "embedpe/pe_analysis.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "half.h"
#include "memory.h"

namespace embedpe {

std::vector<FrequencyStat> frequency_stats(const SinusoidalEncoding& pe, std::size_t count) {
  const auto freq = pe.pair_frequencies();
  const std::size_t d = pe.d_model();
  const bool interleaved = pe.options().layout == PeLayout::interleaved;
  const std::size_t sins = freq.size();
  std::vector<FrequencyStat> out;
  for (std::size_t i = 0; i < sins; ++i) {
    FrequencyStat s;
    s.pair = i;
    s.sin_dim = interleaved ? 2 * i : i;
    const std::size_t cos_dim = interleaved ? 2 * i + 1 : sins + i;
    s.cos_dim = cos_dim < d && (interleaved || i < d / 2) ? cos_dim : s.sin_dim;
    s.frequency = freq[i];
    s.wavelength = 2.0 * std::numbers::pi / freq[i];
    s.aliases = s.wavelength < 2.0;
    s.incomplete = s.wavelength > static_cast<double>(count);
    out.push_back(s);
  }
  return out;
}

std::vector<RopePairStat> rope_pair_stats(const RopeFrequencies& frequencies, std::size_t count) {
  std::vector<RopePairStat> out;
  out.reserve(frequencies.inv_freq.size());
  for (std::size_t i = 0; i < frequencies.inv_freq.size(); ++i) {
    RopePairStat s;
    s.pair = i;
    s.inv_freq = frequencies.inv_freq[i];
    s.wavelength = 2.0 * std::numbers::pi / s.inv_freq;
    s.aliases = s.wavelength < 2.0;
    s.incomplete = s.wavelength > static_cast<double>(count);
    out.push_back(s);
  }
  return out;
}

namespace {

// The usual PyTorch recipe's float32 computation: inverse frequencies exp(k · c) in float32
// with c = -ln(base) / denominator rounded to float32, arguments pos · inv in
// float32, sin/cos in float32.
struct Float32Pe {
  std::vector<float> sin_inv, cos_inv;
  float scale;
  Float32Pe(const SinusoidalOptions& o) : scale(static_cast<float>(o.position_scale)) {
    const std::size_t d = o.d_model, h = d / 2;
    const bool paper = o.frequencies == PeFrequencies::paper;
    const float c = static_cast<float>(-std::log(o.base) / (paper ? double(d) : double(h > 1 ? h - 1 : 1)));
    const std::size_t sins = paper ? (d + 1) / 2 : h;
    for (std::size_t i = 0; i < sins; ++i) sin_inv.push_back(std::exp(static_cast<float>(paper ? 2 * i : i) * c));
    for (std::size_t i = 0; i < h; ++i) cos_inv.push_back(std::exp(static_cast<float>(paper ? 2 * i : i) * c));
  }
  void row(std::size_t pos, const SinusoidalOptions& o, float* out) const {
    std::fill(out, out + o.d_model, 0.0f);
    const float p = static_cast<float>(pos) / scale;
    const bool il = o.layout == PeLayout::interleaved;
    for (std::size_t i = 0; i < sin_inv.size(); ++i) out[il ? 2 * i : i] = std::sin(p * sin_inv[i]);
    for (std::size_t i = 0; i < cos_inv.size(); ++i) out[il ? 2 * i + 1 : sin_inv.size() + i] = std::cos(p * cos_inv[i]);
  }
};

}  // namespace

std::vector<AuditBand> audit_precision(const SinusoidalOptions& options, std::size_t first, std::size_t count) {
  check_allocation(checked_product({options.d_model, 2 * (sizeof(double) + sizeof(float))}, "precision audit"),
                   "precision audit", "lower d_model", {"d_model"});
  SinusoidalOptions o = options;
  o.max_len = std::max(o.max_len, first + count);
  o.zero_position.reset();
  const SinusoidalEncoding pe(o);
  const Float32Pe f32(o);
  std::vector<std::pair<std::size_t, std::size_t>> bands;  // [a, b)
  const std::size_t end = first + count;
  for (std::size_t lo = 0, hi = 10; lo < end; lo = hi, hi *= 10) {
    const std::size_t a = std::max(lo, first), b = std::min(hi, end);
    if (a < b) bands.emplace_back(a, b);
  }
  if (bands.size() == 1) {
    bands.clear();
    const std::size_t parts = std::min<std::size_t>(8, count);
    for (std::size_t k = 0; k < parts; ++k) bands.emplace_back(first + count * k / parts, first + count * (k + 1) / parts);
  }
  std::vector<AuditBand> out;
  std::vector<double> ref(o.d_model);
  std::vector<float> seed(o.d_model);
  for (auto [a, b] : bands) {
    AuditBand band;
    band.first = a;
    band.last = b - 1;
    const std::size_t n = b - a, samples = std::min<std::size_t>(n, 2000);
    double sum[3] = {0, 0, 0};
    for (std::size_t k = 0; k < samples; ++k) {
      const std::size_t pos = samples == 1 ? a : a + (n - 1) * k / (samples - 1);
      pe.row_f64(pos, ref.data());
      f32.row(pos, o, seed.data());
      for (std::size_t j = 0; j < o.d_model; ++j) {
        const double errs[3] = {
            std::abs(double(seed[j]) - ref[j]),
            std::abs(double(half_to_float(float_to_half(static_cast<float>(ref[j])))) - ref[j]),
            std::abs(double(bfloat16_to_float(float_to_bfloat16(static_cast<float>(ref[j])))) - ref[j])};
        for (int v = 0; v < 3; ++v) {
          band.max_error[v] = std::max(band.max_error[v], errs[v]);
          sum[v] += errs[v];
        }
      }
    }
    band.sampled = samples;
    for (int v = 0; v < 3; ++v) band.mean_error[v] = sum[v] / double(samples * o.d_model);
    out.push_back(band);
  }
  return out;
}

xt::xtensor<float, 2> similarity(const xt::xtensor<float, 2>& rows) {
  const std::size_t n = rows.shape()[0], d = rows.shape()[1];
  check_allocation(checked_product({n, n, sizeof(float)}, "similarity matrix"), "similarity matrix",
                   "show fewer positions");
  auto out = xt::xtensor<float, 2>::from_shape({n, n});
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j <= i; ++j) {
      double dot = 0;
      for (std::size_t k = 0; k < d; ++k) dot += double(rows(i, k)) * double(rows(j, k));
      out(i, j) = out(j, i) = static_cast<float>(dot);
    }
  }
  return out;
}

}  // namespace embedpe
