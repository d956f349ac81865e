#include "embedpe/embedding.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numbers>

#include "embedpe/error.h"
#include "embedpe/weights.h"
#include "ggml_types.h"
#include "row_cache.h"

namespace embedpe {

namespace {
// Always inlined: GCC does not inline a plain function into the AVX clones
// below (their arch differs), and a call per value costs more than the mix.
[[gnu::always_inline]] inline std::uint64_t mix(std::uint64_t x) {
  std::uint64_t z = x + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
}  // namespace

std::uint64_t splitmix64(std::uint64_t x) { return mix(x); }

namespace {

// The default table's generator (embedding.h has the formulas, README.md the
// same in NumPy). Everything below is integer arithmetic or one correctly
// rounded IEEE operation at a time (+ - * / sqrt, in the order written; the
// library is built with -ffp-contract=off and without -ffast-math), so a row
// has the same bits on every compiler, optimisation level and vector width.
// log and sincos are polynomials rather than libm's so that the loop
// vectorises and NumPy can repeat the exact operations.

// An integer below 2^52 as a double, exactly: 2^52 + k has k as its
// mantissa. (A vector uint64 → double conversion needs AVX-512.)
inline double small_to_double(std::uint64_t k) {
  return std::bit_cast<double>(k | 0x4330000000000000ULL) - 0x1p52;
}

struct NormalCoefficients {
  double log[10];  // 2 / (2k + 1):      ln f = s · Σ log[k] s^2k,     s = (f - 1) / (f + 1)
  double sin[8];   // (-1)^k / (2k+1)!:  sin x = x · Σ sin[k] x^2k
  double cos[9];   // (-1)^k / (2k)!:    cos x = Σ cos[k] x^2k
};

constexpr NormalCoefficients normal_coefficients() {
  NormalCoefficients c{};
  for (int k = 0; k < 10; ++k) c.log[k] = 2.0 / (2 * k + 1);
  double factorial = 1;  // exact up to 22!
  for (int n = 1; n <= 16; ++n) {
    factorial *= n;
    const double sign = (n / 2) % 2 ? -1.0 : 1.0;
    if (n % 2 == 1) c.sin[n / 2] = sign / factorial;
    if (n % 2 == 0) c.cos[n / 2] = sign / factorial;
  }
  c.cos[0] = 1.0;
  return c;
}
constexpr NormalCoefficients kNormal = normal_coefficients();

// Box–Muller for n pairs of splitmix64 outputs: out[2i], out[2i+1] from
// a[i], b[i]. Written without branches so that it vectorises.
[[gnu::always_inline]] inline void box_muller(const std::uint64_t* a, const std::uint64_t* b, std::size_t n, float* out) {
  constexpr std::uint64_t kMantissa = 0x000FFFFFFFFFFFFFULL;
  constexpr double kLn2 = std::numbers::ln2;
  constexpr double kAngleStep = 2 * std::numbers::pi * 0x1p-52;  // 2π / 2^52, exact
  for (std::size_t i = 0; i < n; ++i) {
    // r = sqrt(-2 ln u1), u1 = v / 2^52 in (0, 1). v = 2^e · f with f in
    // (sqrt(1/2), sqrt(2)]: ln u1 = (e - 52) ln 2 + ln f.
    const double v = small_to_double(a[i] >> 12) + 0.5;
    const std::uint64_t bits = std::bit_cast<std::uint64_t>(v);
    const std::uint64_t mantissa = bits & kMantissa;
    const std::uint64_t halve = (mantissa + (0x10000000000000ULL - 0x6A09E667F3BCEULL)) >> 52;  // f > sqrt(2)
    const double f = std::bit_cast<double>(mantissa | ((1023 - halve) << 52));
    const double e = small_to_double((bits >> 52) + halve) - 1075.0;  // e - 52
    const double s = (f - 1.0) / (f + 1.0);
    const double z = s * s;
    double p = kNormal.log[9];
    for (int k = 8; k >= 0; --k) p = p * z + kNormal.log[k];
    const double r = std::sqrt(-2.0 * (e * kLn2 + s * p));
    // θ = 2π u2, u2 = w / 2^52: quadrant q (nearest multiple of π/2) and
    // x = θ - q π/2 in [-π/4, π/4), split off exactly in integers.
    const std::uint64_t w = (b[i] >> 12) + (std::uint64_t(1) << 49);
    const std::uint64_t q = (w >> 50) & 3;
    const double x = (small_to_double(w & ((std::uint64_t(1) << 50) - 1)) - 0x1p49) * kAngleStep;
    const double y = x * x;
    double ps = kNormal.sin[7];
    for (int k = 6; k >= 0; --k) ps = ps * y + kNormal.sin[k];
    double pc = kNormal.cos[8];
    for (int k = 7; k >= 0; --k) pc = pc * y + kNormal.cos[k];
    // cos θ, sin θ = (cos x, sin x), (-sin x, cos x), (-cos x, -sin x), (sin x, -cos x) for q = 0..3,
    // as bit operations (swap, then flip signs).
    const std::uint64_t cx = std::bit_cast<std::uint64_t>(pc), sx = std::bit_cast<std::uint64_t>(x * ps);
    const std::uint64_t swap = 0 - (q & 1);
    const double cos_theta = std::bit_cast<double>(((sx & swap) | (cx & ~swap)) ^ ((((q + 1) >> 1) & 1) << 63));
    const double sin_theta = std::bit_cast<double>(((cx & swap) | (sx & ~swap)) ^ ((q >> 1) << 63));
    out[2 * i] = static_cast<float>(r * cos_theta);
    out[2 * i + 1] = static_cast<float>(r * sin_theta);
  }
}

// Clones for AVX2 and AVX-512 where the compiler offers them: the same
// operations, more lanes at a time, so the same bits. Not in sanitizer
// builds: the clones' ifunc resolver runs during relocation, before the
// sanitizer runtime is up, and its instrumented entry crashes (TSan).
#ifndef EMBEDPE_NO_CLONES
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define EMBEDPE_NO_CLONES
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define EMBEDPE_NO_CLONES
#endif
#endif
#if defined(__x86_64__) && defined(__GNUC__) && defined(__has_attribute) && !defined(EMBEDPE_NO_CLONES)
#if __has_attribute(target_clones)
#define EMBEDPE_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
#endif
#ifndef EMBEDPE_VECTOR_CLONES
#define EMBEDPE_VECTOR_CLONES
#endif

EMBEDPE_VECTOR_CLONES
void normal_row(std::uint64_t seed, std::int64_t id, std::size_t d_model, float* out) {
  constexpr std::size_t kBlock = 64;  // pairs at a time: the uniforms stay in L1
  const std::uint64_t key = mix(mix(seed) ^ static_cast<std::uint64_t>(id));
  std::uint64_t a[kBlock], b[kBlock];
  const std::size_t pairs = (d_model + 1) / 2;
  for (std::size_t p0 = 0; p0 < pairs; p0 += kBlock) {
    const std::size_t n = std::min(kBlock, pairs - p0);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t j = 2 * (p0 + i);
      a[i] = mix(key + j);
      b[i] = mix(key + j + 1);
    }
    const bool odd_tail = 2 * (p0 + n) > d_model;  // the last pair's second value is not in the row
    box_muller(a, b, n - odd_tail, out + 2 * p0);
    if (odd_tail) {
      float last[2];
      box_muller(a + n - 1, b + n - 1, 1, last);
      out[d_model - 1] = last[0];
    }
  }
}

// The uniform schemes: float32((2u - 1) * bound), u = (mix(key + j) >> 11) / 2^53.
void uniform_row(std::uint64_t seed, std::int64_t id, std::size_t d_model, double bound, float* out) {
  const std::uint64_t key = mix(mix(seed) ^ static_cast<std::uint64_t>(id));
  for (std::size_t j = 0; j < d_model; ++j) {
    const double u = static_cast<double>(mix(key + j) >> 11) * 0x1p-53;
    out[j] = static_cast<float>((2.0 * u - 1.0) * bound);
  }
}

}  // namespace

const char* init_name(Init init) {
  switch (init) {
    case Init::normal: return "normal";
    case Init::scaled_normal: return "scaled-normal";
    case Init::xavier_uniform: return "xavier-uniform";
    case Init::uniform: return "uniform";
  }
  return "normal";
}

RandomNormalTable::RandomNormalTable(std::int64_t vocab_size, std::size_t d_model, std::uint64_t seed,
                                     InitScheme init)
    : vocab_size_(vocab_size), d_model_(d_model), seed_(seed), init_(init) {
  if (vocab_size <= 0) throw UsageError("embedding table needs at least one row");
  if (d_model == 0) throw UsageError("d_model must be at least 1", {"d_model"});
  switch (init.kind) {
    case Init::normal: break;
    case Init::scaled_normal: factor_ = 1.0 / std::sqrt(static_cast<double>(d_model)); break;
    case Init::xavier_uniform:
      factor_ = std::sqrt(6.0 / (static_cast<double>(vocab_size) + static_cast<double>(d_model)));
      break;
    case Init::uniform:
      if (init.range == 0) {
        throw UsageError("init uniform needs init_range R: the values are drawn from U(-R, R)", {"init", "init_range"});
      }
      // Below float32's smallest normal number most values would round to 0.
      if (!(init.range >= std::numeric_limits<float>::min()) || !std::isfinite(init.range)) {
        throw UsageError("init_range must be a finite number from 1.2e-38 (float32's smallest normal) up",
                         {"init_range"});
      }
      factor_ = init.range;
      break;
  }
  cache_ = std::make_unique<RowCache>(static_cast<std::size_t>(vocab_size), d_model, kRowCacheLimit,
                                      kHugePageCacheLimit);
}

RandomNormalTable::~RandomNormalTable() = default;

const float* RandomNormalTable::row_data(std::int64_t id) const {
  return cache_->get(static_cast<std::size_t>(id), [&](float* slot) { row(id, slot); });
}

void RandomNormalTable::row(std::int64_t id, float* out) const {
  switch (init_.kind) {
    case Init::normal: return normal_row(seed_, id, d_model_, out);
    case Init::scaled_normal:
      normal_row(seed_, id, d_model_, out);
      for (std::size_t j = 0; j < d_model_; ++j) out[j] = static_cast<float>(static_cast<double>(out[j]) * factor_);
      return;
    case Init::xavier_uniform:
    case Init::uniform: return uniform_row(seed_, id, d_model_, factor_, out);
  }
}

std::string RandomNormalTable::describe() const {
  const std::string seed = "seed=" + std::to_string(seed_);
  char bound[64];
  std::snprintf(bound, sizeof bound, "%.9g", factor_);
  switch (init_.kind) {
    case Init::normal: break;
    case Init::scaled_normal:
      return "random-normal(init=scaled-normal, std=1/sqrt(" + std::to_string(d_model_) + "), " + seed +
             ", generator=" + kGenerator + ")";
    case Init::xavier_uniform:
      return "random-uniform(init=xavier-uniform, bound=sqrt(6/(" + std::to_string(vocab_size_) + "+" +
             std::to_string(d_model_) + "))=" + bound + ", " + seed + ", generator=" + kUniformGenerator + ")";
    case Init::uniform:
      return "random-uniform(init=uniform, bound=" + std::string(bound) + ", " + seed +
             ", generator=" + kUniformGenerator + ")";
  }
  return "random-normal(" + seed + ", generator=" + kGenerator + ")";
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

namespace {
std::string table_name(const WeightFile& file, const WeightTensor& t) {
  const std::string type = t.ggml_type ? ggml::type_info(*t.ggml_type)->name : dtype_info(t.dtype).safetensors;
  return file.path() + (t.name.empty() ? "" : ":" + t.name) + " " + type;
}
}  // namespace

MappedTable::MappedTable(std::shared_ptr<const WeightFile> file, const WeightTensor& tensor)
    : file_(std::move(file)), tensor_(&tensor) {
  if (tensor.shape.size() != 2) {
    throw Error(file_->path() + ": tensor " + (tensor.name.empty() ? "" : tensor.name + " ") + "has " +
                std::to_string(tensor.shape.size()) + " dimensions; an embedding table is (vocab, d_model)");
  }
  if (tensor.shape[0] == 0 || tensor.shape[1] == 0) throw Error(file_->path() + ": the embedding table is empty");
  vocab_size_ = static_cast<std::int64_t>(tensor.shape[0]);
  d_model_ = tensor.shape[1];
  description_ = table_name(*file_, tensor);
  const char* bytes = file_->data(tensor);
  if (tensor.dtype == DType::float32 && (!tensor.ggml_type || *tensor.ggml_type == 0) &&
      std::endian::native == std::endian::little &&
      reinterpret_cast<std::uintptr_t>(bytes) % alignof(float) == 0) {
    direct_ = reinterpret_cast<const float*>(bytes);
  }
}

const float* MappedTable::row_data(std::int64_t id) const {
  return direct_ ? direct_ + static_cast<std::size_t>(id) * d_model_ : nullptr;
}

void MappedTable::row(std::int64_t id, float* out) const {
  read_floats(*file_, *tensor_, static_cast<std::size_t>(id) * d_model_, d_model_, out);
}

QuantizedTable::QuantizedTable(std::shared_ptr<const WeightFile> file, const WeightTensor& values,
                               const WeightTensor& scales)
    : file_(std::move(file)), values_(&values), scales_(&scales) {
  if (values.shape.size() != 2 || values.shape[0] == 0 || values.shape[1] == 0) {
    throw Error(file_->path() + ": int8 tensor " + values.name + " must be a non-empty (vocab, d_model) table");
  }
  if (scales.dtype != DType::float32 || scales.shape.size() != 1 || scales.shape[0] != values.shape[0]) {
    throw Error(file_->path() + ": " + scales.name + " must be F32 of shape (" + std::to_string(values.shape[0]) +
                ",), one scale per row");
  }
  vocab_size_ = static_cast<std::int64_t>(values.shape[0]);
  d_model_ = values.shape[1];
  description_ = table_name(*file_, values) + " per-row symmetric";
}

void QuantizedTable::row(std::int64_t id, float* out) const {
  float scale;
  std::memcpy(&scale, file_->data(*scales_) + 4 * static_cast<std::size_t>(id), 4);
  const auto* q = reinterpret_cast<const std::int8_t*>(file_->data(*values_)) + static_cast<std::size_t>(id) * d_model_;
  for (std::size_t j = 0; j < d_model_; ++j) out[j] = static_cast<float>(q[j]) * scale;
}

PaddingIdxTable::PaddingIdxTable(std::unique_ptr<EmbeddingTable> inner, std::int64_t padding_idx)
    : inner_(std::move(inner)), padding_idx_(padding_idx), zeros_(inner_->d_model(), 0.0f) {
  if (padding_idx < 0 || padding_idx >= inner_->vocab_size()) {
    throw UsageError("padding_idx " + std::to_string(padding_idx) + " is outside the table's " +
                         std::to_string(inner_->vocab_size()) + " rows",
                     {"padding_idx"});
  }
}

void PaddingIdxTable::row(std::int64_t id, float* out) const {
  if (id == padding_idx_) {
    std::fill(out, out + d_model(), 0.0f);
  } else {
    inner_->row(id, out);
  }
}

const float* PaddingIdxTable::row_data(std::int64_t id) const {
  return id == padding_idx_ ? zeros_.data() : inner_->row_data(id);
}

std::string PaddingIdxTable::describe() const {
  return inner_->describe() + " padding_idx=" + std::to_string(padding_idx_);
}

std::unique_ptr<EmbeddingTable> open_embedding_table(const std::string& spec) {
  const TensorSpec ts = parse_tensor_spec(spec);
  auto file = WeightFile::open(ts.path);
  const WeightTensor& t = select_tensor(*file, ts.tensor, kEmbeddingNames, "token embedding");
  if (t.dtype == DType::int8) {
    const WeightTensor* scales = file->find(t.name + ".scale");
    if (!scales) throw Error(file->path() + ": int8 tensor " + t.name + " has no " + t.name + ".scale tensor");
    return std::make_unique<QuantizedTable>(file, t, *scales);
  }
  return std::make_unique<MappedTable>(file, t);
}

}  // namespace embedpe
