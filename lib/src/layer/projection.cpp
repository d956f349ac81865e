#include "embedpe/projection.h"

#include <cmath>
#include <string_view>

#include "embedpe/error.h"
#include "embedpe/weights.h"
#include "memory.h"
#include "row_cache.h"

namespace embedpe {

const char* projection_order_name(ProjectionOrder order) {
  switch (order) {
    case ProjectionOrder::albert: return "albert";
    case ProjectionOrder::deberta: return "deberta";
    case ProjectionOrder::first: break;
  }
  return "first";
}

void Projection::apply(const float* x, float* y) const {
  for (std::size_t o = 0; o < out; ++o) {
    const float* w = weight.data() + o * in;
    double sum = 0;
    for (std::size_t k = 0; k < in; ++k) sum += static_cast<double>(x[k]) * w[k];
    y[o] = static_cast<float>(bias.empty() ? sum : sum + bias[o]);
  }
}

Projection generated_projection(std::int64_t vocab, std::size_t in, std::size_t out, std::uint64_t seed) {
  if (in == 0 || out == 0) throw UsageError("factorize needs a width of at least 1", {"factorize"});
  const std::string what = "a (" + std::to_string(out) + ", " + std::to_string(in) + ") projection";
  check_allocation(checked_product({in, out, sizeof(float)}, what), what, "lower factorize or d_model",
                   {"factorize", "d_model"});
  const double bound = 1.0 / std::sqrt(static_cast<double>(in));
  const InitScheme init{Init::uniform, bound};
  const auto v = static_cast<std::uint64_t>(vocab);
  // Element j of generator row r depends on (seed, r, j) alone, not on the table's width.
  const RandomNormalTable weight_rows(static_cast<std::int64_t>(v + out), in, seed, init);
  const RandomNormalTable bias_row(static_cast<std::int64_t>(v + out + 1), out, seed, init);
  Projection p;
  p.in = in;
  p.out = out;
  p.weight.resize(in * out);
  for (std::size_t o = 0; o < out; ++o) weight_rows.row(static_cast<std::int64_t>(v + o), p.weight.data() + o * in);
  p.bias.resize(out);
  bias_row.row(static_cast<std::int64_t>(v + out), p.bias.data());
  char b[32];
  std::snprintf(b, sizeof b, "%.9g", bound);
  p.weight_source = "random-uniform(bound=1/sqrt(" + std::to_string(in) + ")=" + b + ", seed=" + std::to_string(seed) +
                    ", rows " + std::to_string(vocab) + ".., generator=" + RandomNormalTable::kUniformGenerator + ")";
  p.bias_source = "random-uniform(row " + std::to_string(v + out) + ")";
  return p;
}

std::optional<Projection> read_projection(const std::string& spec, const std::string& weights, std::size_t in) {
  std::shared_ptr<const WeightFile> file;
  const WeightTensor* w = nullptr;
  if (!spec.empty()) {
    const TensorSpec ts = parse_tensor_spec(spec);
    file = WeightFile::open(ts.path);
    w = &select_tensor(*file, ts.tensor, kProjectionNames, "projection");
  } else if (!weights.empty()) {
    file = WeightFile::open(parse_tensor_spec(weights).path);
    for (auto name : kProjectionNames) {
      if (const WeightTensor* found = file->find(name)) {
        if (w) {
          throw Error(file->path() + " has several projections (" + w->name + ", " + found->name +
                          "), and which one belongs to the embedding is not known; pick one with projection",
                      {"projection"}, {{0, file->path().size()}});
        }
        w = found;
      }
    }
  }
  if (!w) return std::nullopt;
  const std::string name = file->path() + (w->name.empty() ? "" : ":" + w->name);
  if (w->shape.size() != 2 || w->dtype == DType::int8 || w->dtype == DType::int64) {
    throw Error(name + " has shape " + shape_text(w->shape) + " " + dtype_info(w->dtype).safetensors +
                "; a projection is a 2-D float matrix");
  }
  // nn.Linear's (out, in), else its transpose (in, out).
  const bool linear = w->shape[1] == in;
  if (!linear && w->shape[0] != in) {
    throw Error(name + " has shape " + shape_text(w->shape) + " but the embedding table's rows have " +
                std::to_string(in) + " values: a projection from them is (d_model, " + std::to_string(in) +
                ") as nn.Linear stores it, or (" + std::to_string(in) + ", d_model)");
  }
  Projection p;
  p.in = in;
  p.out = linear ? w->shape[0] : w->shape[1];
  if (p.out == 0) throw Error(name + " has shape " + shape_text(w->shape) + ": it projects to no values");
  check_allocation(checked_product({in, p.out, sizeof(float), 2}, name), name, "give a smaller projection");
  std::vector<float> stored(in * p.out);
  read_floats(*file, *w, 0, stored.size(), stored.data());
  if (linear) {
    p.weight = std::move(stored);
  } else {
    p.weight.resize(stored.size());
    for (std::size_t k = 0; k < in; ++k) {
      for (std::size_t o = 0; o < p.out; ++o) p.weight[o * in + k] = stored[k * p.out + o];
    }
  }
  p.weight_source = name + (linear ? "" : " (transposed)");
  constexpr std::string_view kWeight = ".weight";
  if (w->name.size() > kWeight.size() && w->name.ends_with(kWeight)) {
    const std::string bias_name = w->name.substr(0, w->name.size() - kWeight.size()) + ".bias";
    if (const WeightTensor* b = file->find(bias_name)) {
      if (b->shape.size() != 1 || b->shape[0] != p.out) {
        throw Error(file->path() + ":" + bias_name + " has shape " + shape_text(b->shape) + " but the projection " +
                    name + " gives " + std::to_string(p.out) + " values");
      }
      p.bias = read_vector(*file, *b);
      p.bias_source = file->path() + ":" + bias_name;
    }
  }
  return p;
}

std::optional<StoredFactorization> stored_factorization(const WeightFile& file) {
  StoredFactorization f;
  f.table = find_usual(file, kEmbeddingNames);
  f.weight = find_usual(file, kProjectionNames);
  if (!f.table || !f.weight || f.table->shape.size() != 2 || f.weight->shape.size() != 2 ||
      !dtype_info(f.weight->dtype).is_float) {
    return std::nullopt;  // as read_projection would refuse it
  }
  f.vocab = f.table->shape[0];
  f.embedding_size = f.table->shape[1];
  if (f.weight->shape[1] == f.embedding_size) {
    f.d_model = f.weight->shape[0];
  } else if (f.weight->shape[0] == f.embedding_size) {
    f.d_model = f.weight->shape[1];
  } else {
    return std::nullopt;
  }
  const std::string& name = f.weight->name;
  if (name.ends_with(".weight")) f.bias = file.find(name.substr(0, name.size() - 7) + ".bias");
  if (f.bias && (f.bias->shape != std::vector<std::size_t>{f.d_model} || !dtype_info(f.bias->dtype).is_float)) {
    return std::nullopt;
  }
  f.bytes = f.table->size_bytes + f.weight->size_bytes + (f.bias ? f.bias->size_bytes : 0);
  f.full_bytes = f.vocab * f.d_model * dtype_info(f.table->dtype).size;
  return f;
}

ProjectedTable::ProjectedTable(std::unique_ptr<EmbeddingTable> inner, Projection projection)
    : inner_(std::move(inner)), projection_(std::move(projection)) {
  if (projection_.in != inner_->d_model()) {
    throw UsageError("the projection takes " + std::to_string(projection_.in) +
                     " values but the embedding table's rows have " + std::to_string(inner_->d_model()));
  }
  cache_ = std::make_unique<RowCache>(static_cast<std::size_t>(inner_->vocab_size()), projection_.out,
                                      RandomNormalTable::kRowCacheLimit, RandomNormalTable::kHugePageCacheLimit);
}

ProjectedTable::~ProjectedTable() = default;

void ProjectedTable::row(std::int64_t id, float* out) const {
  const float* x = inner_->row_data(id);
  std::vector<float> scratch;
  if (!x) {
    scratch.resize(inner_->d_model());
    inner_->row(id, scratch.data());
    x = scratch.data();
  }
  projection_.apply(x, out);
}

const float* ProjectedTable::row_data(std::int64_t id) const {
  return cache_->get(static_cast<std::size_t>(id), [&](float* slot) { row(id, slot); });
}

std::string ProjectedTable::describe() const {
  return inner_->describe() + " projected to " + std::to_string(projection_.out) + " by " + projection_.weight_source;
}

}  // namespace embedpe
