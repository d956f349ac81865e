#include "embedpe/positional_encoding.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "embedpe/error.h"
#include "memory.h"
#include "embedpe/weights.h"

namespace embedpe {
namespace {

// A table that max_len lengthens says so; any other can only be given fewer positions.
[[noreturn]] void throw_beyond(const PositionTable& table, const std::string& what) {
  if (table.extensible()) {
    throw UsageError(what + " beyond the position table; " + table.extent() + "; raise max_len", {"max_len"});
  }
  throw UsageError(what + " beyond the position table; " + table.extent() + "; truncate with seq_len", {"seq_len"});
}

}  // namespace

xt::xtensor<float, 2> PositionTable::rows(std::size_t first, std::size_t count) const {
  if (count > 0 && (first >= max_len() || count > max_len() - first)) {
    throw_beyond(*this, "positions " + std::to_string(first) + ".." + std::to_string(first + count - 1) + " go");
  }
  check_allocation(checked_product({count, d_model(), sizeof(float)}, "PE table"), "PE table",
                   "lower d_model or the number of positions", {"d_model"});
  auto table = xt::xtensor<float, 2>::from_shape({count, d_model()});
  for (std::size_t r = 0; r < count; ++r) row(first + r, table.data() + r * d_model());
  return table;
}

SinusoidalEncoding::SinusoidalEncoding(SinusoidalOptions options) : options_(options) {
  if (options_.d_model == 0) throw UsageError("d_model must be at least 1", {"d_model"});
  if (options_.max_len == 0) throw UsageError("max_len must be at least 1", {"max_len"});
  if (!(options_.base > 1.0) || !std::isfinite(options_.base)) {
    throw UsageError("base must be a finite number greater than 1", {"base"});
  }
  if (!(options_.position_scale > 0.0) || !std::isfinite(options_.position_scale)) {
    throw UsageError("position_scale must be a positive number", {"position_scale"});
  }
  const std::size_t d = options_.d_model;
  divide_ = options_.frequencies == PeFrequencies::paper;
  // Paper frequencies give odd d one more sin column (the PyTorch recipe's pe[:, 0::2]
  // and Marian's sentinel); fairseq frequencies give it a zero column.
  sins_ = divide_ ? (d + 1) / 2 : d / 2;
  coss_ = d / 2;
  // Up to 2^22 pairs (32 MiB) the frequencies are kept; beyond, each is
  // computed when used, so that `pe --dims 0:8` of a huge d_model is cheap.
  if (sins_ <= (std::size_t(1) << 22)) {
    k_.reserve(sins_);
    for (std::size_t i = 0; i < sins_; ++i) k_.push_back(k(i));
  }
}

// The paper's formula divides by base^(2i/d); fairseq multiplies by its
// inverse frequency. Each is kept as written, so that values equal the
// float64 results of those formulas.
double SinusoidalEncoding::k(std::size_t i) const {
  if (i < k_.size()) return k_[i];
  const std::size_t d = options_.d_model, h = d / 2;
  if (divide_) return std::pow(options_.base, static_cast<double>(2 * i) / static_cast<double>(d));
  return std::exp(-static_cast<double>(i) * std::log(options_.base) / static_cast<double>(h > 1 ? h - 1 : 1));
}

std::string SinusoidalEncoding::extent() const {
  return "the PE table has " + std::to_string(options_.max_len) + " positions (max_len)";
}

template <class T>
void SinusoidalEncoding::fill_row(std::size_t pos, T* out) const {
  if (pos >= options_.max_len) {
    throw UsageError("position " + std::to_string(pos) + " is beyond the PE table (max_len " +
                         std::to_string(options_.max_len) + "); raise max_len",
                     {"max_len"});
  }
  const std::size_t d = options_.d_model;
  std::fill(out, out + d, T(0));  // fairseq's zero row and odd-d column stay zero
  if (options_.zero_position && pos == *options_.zero_position) return;
  const double p = static_cast<double>(pos) / options_.position_scale;
  const bool interleaved = options_.layout == PeLayout::interleaved;
  auto angle = [&](double k) { return divide_ ? p / k : p * k; };
  for (std::size_t i = 0; i < sins_; ++i) out[interleaved ? 2 * i : i] = static_cast<T>(std::sin(angle(k(i))));
  for (std::size_t i = 0; i < coss_; ++i) {
    out[interleaved ? 2 * i + 1 : sins_ + i] = static_cast<T>(std::cos(angle(k(i))));
  }
}

double SinusoidalEncoding::value(std::size_t pos, std::size_t dim) const {
  if (options_.zero_position && pos == *options_.zero_position) return 0.0;
  bool is_sin;
  std::size_t i;
  if (options_.layout == PeLayout::interleaved) {
    is_sin = dim % 2 == 0;
    i = dim / 2;
  } else {
    is_sin = dim < sins_;
    i = is_sin ? dim : dim - sins_;
  }
  if (i >= (is_sin ? sins_ : coss_)) return 0.0;  // fairseq's zero column of an odd d
  const double p = static_cast<double>(pos) / options_.position_scale;
  const double a = divide_ ? p / k(i) : p * k(i);
  return is_sin ? std::sin(a) : std::cos(a);
}

xt::xtensor<float, 2> SinusoidalEncoding::columns(std::size_t first_pos, std::size_t count, std::size_t first_dim,
                                                  std::size_t dims) const {
  if (count > 0 && (first_pos >= max_len() || count > max_len() - first_pos)) {
    throw_beyond(*this, "positions " + std::to_string(first_pos) + ".." + std::to_string(first_pos + count - 1) + " go");
  }
  if (first_dim > d_model() || dims > d_model() - first_dim) {
    throw UsageError("dims " + std::to_string(first_dim) + ".." + std::to_string(first_dim + dims - 1) +
                     " go beyond d_model " + std::to_string(d_model()));
  }
  check_allocation(checked_product({count, dims, sizeof(float)}, "PE table"), "PE table",
                   "lower d_model or the number of positions", {"d_model"});
  auto table = xt::xtensor<float, 2>::from_shape({count, dims});
  for (std::size_t r = 0; r < count; ++r) {
    for (std::size_t c = 0; c < dims; ++c) {
      if (first_pos + r >= options_.max_len) throw_beyond(*this, "position");
      table(r, c) = static_cast<float>(value(first_pos + r, first_dim + c));
    }
  }
  return table;
}

void SinusoidalEncoding::row(std::size_t pos, float* out) const { fill_row(pos, out); }
void SinusoidalEncoding::row_f64(std::size_t pos, double* out) const { fill_row(pos, out); }

std::vector<double> SinusoidalEncoding::pair_frequencies() const {
  std::vector<double> freq;
  check_allocation(checked_product({sins_, sizeof(double)}, "PE frequency list"), "PE frequency list",
                   "lower d_model", {"d_model"});
  freq.reserve(sins_);
  for (std::size_t i = 0; i < sins_; ++i) freq.push_back((divide_ ? 1.0 / k(i) : k(i)) / options_.position_scale);
  return freq;
}

LearnedPositions::LearnedPositions(std::shared_ptr<const WeightFile> file, const WeightTensor& tensor)
    : file_(std::move(file)), tensor_(&tensor) {
  if (tensor.shape.size() != 2 || tensor.shape[0] == 0 || tensor.shape[1] == 0) {
    throw Error(file_->path() + ": a learned position table must be a non-empty (max_len, d_model) matrix");
  }
  if (tensor.dtype == DType::int8) throw Error(file_->path() + ": int8 position tables are not supported");
  max_len_ = tensor.shape[0];
  d_model_ = tensor.shape[1];
  description_ = file_->path() + (tensor.name.empty() ? "" : ":" + tensor.name) + " " + dtype_info(tensor.dtype).safetensors;
}

std::string LearnedPositions::extent() const {
  return "the learned position table " + description_ + " has " + std::to_string(max_len_) + " rows";
}

void LearnedPositions::row(std::size_t pos, float* out) const {
  if (pos >= max_len_) {
    throw UsageError("position " + std::to_string(pos) + " is beyond the learned position table (" +
                     std::to_string(max_len_) + " rows); truncate with seq_len",
                     {"seq_len"});
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
