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
// rounded IEEE float32 operation at a time (+ - * / sqrt, in the order
// written; the library is built with -ffp-contract=off and without
// -ffast-math), so a row has the same bits on every compiler, optimisation
// level and vector width. log and sincos are polynomials rather than libm's
// so that the loop vectorises and NumPy can repeat the exact operations.

struct NormalCoefficients {
  float log[5];  // 2 / (2k + 1):      ln f = s · Σ log[k] s^2k,     s = (f - 1) / (f + 1)
  float sin[5];  // (-1)^k / (2k+1)!:  sin x = x · Σ sin[k] x^2k
  float cos[6];  // (-1)^k / (2k)!:    cos x = Σ cos[k] x^2k
};

// Each coefficient is the float64 quotient rounded to float32.
constexpr NormalCoefficients normal_coefficients() {
  NormalCoefficients c{};
  for (int k = 0; k < 5; ++k) c.log[k] = static_cast<float>(2.0 / (2 * k + 1));
  double factorial = 1;  // exact up to 22!
  for (int n = 1; n <= 10; ++n) {
    factorial *= n;
    const double sign = (n / 2) % 2 ? -1.0 : 1.0;
    if (n % 2 == 1) c.sin[n / 2] = static_cast<float>(sign / factorial);
    if (n % 2 == 0) c.cos[n / 2] = static_cast<float>(sign / factorial);
  }
  c.cos[0] = 1.0f;
  return c;
}
constexpr NormalCoefficients kNormal = normal_coefficients();

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

// Box–Muller in float32 on one splitmix64 draw: out[0], out[1] of pair k.
// Written without branches so that the loop calling it vectorises.
[[gnu::always_inline]] inline void normal_pair(std::uint64_t key, std::uint64_t k, float* out) {
  constexpr float kLn2Hi = 0x1.62e4p-1f;  // ln 2 = kLn2Hi + kLn2Lo; e · kLn2Hi is exact for |e| < 2^7
  constexpr float kLn2Lo = 0x1.7f7d1cp-20f;
  constexpr float kAngleStep = static_cast<float>(2 * std::numbers::pi * 0x1p-24);  // 2π / 2^24, rounded
  const std::uint64_t a = mix(key + k);
  // r = sqrt(-2 ln u1), u1 = m / 2^24 in (0, 1]: m = 2^e · f with f in
  // (sqrt(1/2), sqrt(2)], ln u1 = (e - 24) ln 2 + ln f. m <= 2^24 is exact
  // as a float.
  const std::uint32_t m = static_cast<std::uint32_t>(a >> 40) + 1;
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(static_cast<float>(static_cast<std::int32_t>(m)));
  const std::uint32_t mantissa = bits & 0x7FFFFFu;
  const std::uint32_t halve = (mantissa + (0x800000u - 0x3504F4u)) >> 23;  // f > sqrt(2)
  const float f = std::bit_cast<float>(mantissa | ((127u - halve) << 23));
  const float e = static_cast<float>(static_cast<std::int32_t>((bits >> 23) + halve) - 151);  // e - 24
  const float s = (f - 1.0f) / (f + 1.0f);
  const float z = s * s;
  float p = kNormal.log[4];
  for (int j = 3; j >= 0; --j) p = p * z + kNormal.log[j];
  const float r = std::sqrt(-2.0f * ((e * kLn2Lo + s * p) + e * kLn2Hi));
  // θ = 2π u2, u2 = w / 2^24 (the draw's low 24 bits): quadrant q (nearest
  // multiple of π/2) and x = θ - q π/2 in [-π/4, π/4), split off exactly in
  // integers.
  const std::uint32_t t = (static_cast<std::uint32_t>(a) & 0xFFFFFFu) + (1u << 21);
  const std::uint32_t q = (t >> 22) & 3u;
  const float x = static_cast<float>(static_cast<std::int32_t>(t & ((1u << 22) - 1)) - (1 << 21)) * kAngleStep;
  const float y = x * x;
  float ps = kNormal.sin[4];
  for (int j = 3; j >= 0; --j) ps = ps * y + kNormal.sin[j];
  float pc = kNormal.cos[5];
  for (int j = 4; j >= 0; --j) pc = pc * y + kNormal.cos[j];
  // cos θ, sin θ = (cos x, sin x), (-sin x, cos x), (-cos x, -sin x), (sin x, -cos x) for q = 0..3,
  // as bit operations (swap, then flip signs).
  const std::uint32_t cx = std::bit_cast<std::uint32_t>(pc), sx = std::bit_cast<std::uint32_t>(x * ps);
  const std::uint32_t swap = 0u - (q & 1u);
  out[0] = r * std::bit_cast<float>(((sx & swap) | (cx & ~swap)) ^ ((((q + 1) >> 1) & 1u) << 31));
  out[1] = r * std::bit_cast<float>(((cx & swap) | (sx & ~swap)) ^ ((q >> 1) << 31));
}

EMBEDPE_VECTOR_CLONES
void normal_row(std::uint64_t seed, std::int64_t id, std::size_t d_model, float* out) {
  const std::uint64_t key = mix(mix(seed) ^ static_cast<std::uint64_t>(id));
  const std::size_t whole = d_model / 2;  // pairs whose both values are in the row
  for (std::size_t k = 0; k < whole; ++k) normal_pair(key, k, out + 2 * k);
  if (d_model % 2 != 0) {
    float last[2];
    normal_pair(key, whole, last);
    out[d_model - 1] = last[0];
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
