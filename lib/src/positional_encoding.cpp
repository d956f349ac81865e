#include "embedpe/positional_encoding.h"

#include <cmath>
#include <string>

#include "embedpe/error.h"
#include "embedpe/memory.h"
#include "embedpe/weights.h"

namespace embedpe {

xt::xtensor<float, 2> PositionTable::rows(std::size_t first, std::size_t count) const {
  if (count > 0 && (first >= max_len() || count > max_len() - first)) {
    throw UsageError("positions " + std::to_string(first) + ".." + std::to_string(first + count - 1) +
                     " go beyond the position table; " + limit_hint());
  }
  check_allocation(checked_product({count, d_model(), sizeof(float)}, "PE table"), "PE table");
  auto table = xt::xtensor<float, 2>::from_shape({count, d_model()});
  for (std::size_t r = 0; r < count; ++r) row(first + r, table.data() + r * d_model());
  return table;
}

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

std::string SinusoidalEncoding::limit_hint() const {
  return "the PE table has " + std::to_string(options_.max_len) + " positions (--max-len); raise --max-len";
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

LearnedPositions::LearnedPositions(std::shared_ptr<const WeightFile> file, const WeightTensor& tensor)
    : file_(std::move(file)), tensor_(&tensor) {
  if (tensor.shape.size() != 2 || tensor.shape[0] == 0 || tensor.shape[1] == 0) {
    throw Error(file_->path() + ": a learned position table must be a non-empty (max_len, d_model) matrix");
  }
  if (tensor.dtype == WeightDType::i8) throw Error(file_->path() + ": int8 position tables are not supported");
  max_len_ = tensor.shape[0];
  d_model_ = tensor.shape[1];
  description_ = file_->path() + (tensor.name.empty() ? "" : ":" + tensor.name) + " " + weight_dtype_name(tensor.dtype);
}

std::string LearnedPositions::limit_hint() const {
  return "the learned position table " + description_ + " has " + std::to_string(max_len_) +
         " rows; truncate with --seq-len";
}

void LearnedPositions::row(std::size_t pos, float* out) const {
  if (pos >= max_len_) {
    throw UsageError("position " + std::to_string(pos) + " is beyond the learned position table (" +
                     std::to_string(max_len_) + " rows); truncate with --seq-len");
  }
  read_floats(*file_, *tensor_, pos * d_model_, d_model_, out);
}

std::unique_ptr<PositionTable> open_position_table(const std::string& spec) {
  const TensorSpec ts = parse_tensor_spec(spec);
  auto file = WeightFile::open(ts.path);
  const WeightTensor& t = select_tensor(*file, ts.tensor, kPositionNames, "position embedding");
  return std::make_unique<LearnedPositions>(file, t);
}

}  // namespace embedpe
