#include "embedpe/embedding.h"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <thread>
#include <cmath>
#include <cstring>
#include <numbers>

#include "embedpe/error.h"
#include "embedpe/weights.h"

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
  if (d_model == 0) throw UsageError("d_model must be at least 1", {"d_model"});
  const auto rows = static_cast<std::size_t>(vocab_size);
  if (d_model <= kRowCacheLimit / sizeof(float) / rows) {
    const std::size_t bytes = rows * d_model * sizeof(float) + rows;
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) {  // else no cache: rows are generated each time
      mapping_ = p;
      mapping_bytes_ = bytes;
      cache_ = static_cast<float*>(p);
      state_ = static_cast<std::uint8_t*>(p) + rows * d_model * sizeof(float);  // zero pages: all empty
    }
  }
}

RandomNormalTable::~RandomNormalTable() {
  if (mapping_) ::munmap(mapping_, mapping_bytes_);
}

const float* RandomNormalTable::row_data(std::int64_t id) const {
  if (!cache_) return nullptr;
  enum : std::uint8_t { kEmpty, kFilling, kReady };
  float* slot = cache_ + static_cast<std::size_t>(id) * d_model_;
  std::atomic_ref<std::uint8_t> state(state_[static_cast<std::size_t>(id)]);
  std::uint8_t s = state.load(std::memory_order_acquire);
  if (s == kReady) return slot;
  if (s == kEmpty && state.compare_exchange_strong(s, kFilling, std::memory_order_acquire)) {
    row(id, slot);
    state.store(kReady, std::memory_order_release);
    return slot;
  }
  // Another thread is generating this row: a few microseconds.
  while (state.load(std::memory_order_acquire) != kReady) std::this_thread::yield();
  return slot;
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

namespace {
std::string table_name(const WeightFile& file, const WeightTensor& t) {
  return file.path() + (t.name.empty() ? "" : ":" + t.name) + " " + dtype_info(t.dtype).safetensors;
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
  if (tensor.dtype == DType::float32 && std::endian::native == std::endian::little &&
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
