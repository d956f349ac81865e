#include "embedpe/input_layer.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstdint>
#include <cmath>
#include <limits>
#include <vector>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "embedpe/error.h"
#include "mapped_block.h"
#include "memory.h"
#include "embedpe/message.h"
#include "parallel.h"

namespace embedpe {

Scale Scale::parse(std::string_view text) {
  if (text == "sqrt") return {ScaleKind::sqrt_d_model, 1.0};
  if (text == "none") return {ScaleKind::none, 1.0};
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  const bool whole = end == text.data() + text.size();
  // Rows are scaled in float32: a number beyond its range is refused as what
  // it is, not as "not a number" (1e-400 is one; it would scale every row to 0).
  if (whole && (ec == std::errc() || ec == std::errc::result_out_of_range)) {
    const std::string copy(text);
    errno = 0;
    const double d = std::strtod(copy.c_str(), nullptr);
    const bool ranged = errno == ERANGE;
    Message m;
    m << "scale '" << Verbatim{text} << "' ";
    if ((ranged && std::abs(d) <= std::numeric_limits<double>::min()) ||
        (d != 0 && std::abs(d) < std::numeric_limits<float>::min())) {
      m << "underflows: it is not 0, but smaller in magnitude than float32's smallest normal number "
        << "(1.17549e-38); write 0 for zero";
      throw m.usage_error({"scale"});
    }
    if ((ranged && std::isinf(d)) || (std::isfinite(d) && std::abs(d) > std::numeric_limits<float>::max())) {
      m << "overflows: it is larger in magnitude than float32's largest number (3.40282e+38)";
      throw m.usage_error({"scale"});
    }
  }
  if (ec != std::errc() || !whole || !std::isfinite(value)) {
    throw UsageError("scale must be sqrt, none or a finite number, not '" + std::string(text) + "'", {"scale"});
  }
  return {ScaleKind::value, value};
}

float Scale::factor(std::size_t d_model) const {
  switch (kind) {
    case ScaleKind::sqrt_d_model: return static_cast<float>(std::sqrt(static_cast<double>(d_model)));
    case ScaleKind::none: return 1.0f;
    case ScaleKind::value: return static_cast<float>(value);
  }
  return 1.0f;
}

std::string Scale::to_string() const {
  switch (kind) {
    case ScaleKind::sqrt_d_model: return "sqrt";
    case ScaleKind::none: return "none";
    case ScaleKind::value: {
      char buf[32];
      auto r = std::to_chars(buf, buf + sizeof buf, value);
      return std::string(buf, r.ptr);
    }
  }
  return "sqrt";
}

InputLayer::InputLayer(const EmbeddingTable& table, const PositionTable* pe, InputLayerOptions options)
    : table_(table), pe_(pe), options_(std::move(options)) {
  if (pe && table.d_model() != pe->d_model()) {
    throw UsageError("the embedding table has d_model " + std::to_string(table.d_model()) +
                     " but the position table has " + std::to_string(pe->d_model()));
  }
  if (options_.token_types && options_.token_types->d_model() != table.d_model()) {
    throw UsageError("the token type table has rows of " + std::to_string(options_.token_types->d_model()) +
                     " values but the embedding table has d_model " + std::to_string(table.d_model()));
  }
  if (options_.layer_norm) {
    const auto& ln = *options_.layer_norm;
    // After the projection (DeBERTa's order), LayerNorm has the projection's width.
    const std::size_t width =
        options_.layer_norm_after_projection && options_.projection ? options_.projection->out : table.d_model();
    if (ln.gamma.size() != width || ln.beta.size() != width) {
      throw UsageError("LayerNorm weight and bias must have d_model = " + std::to_string(width) +
                       " values, not " + std::to_string(ln.gamma.size()) + " and " + std::to_string(ln.beta.size()));
    }
    if (!(ln.eps > 0.0) || !std::isfinite(ln.eps)) throw UsageError("layer_norm.eps must be a positive number", {"layer_norm.eps"});
  }
  if (options_.dropout && !(options_.dropout->p >= 0.0 && options_.dropout->p < Dropout::kMaxP)) {
    throw UsageError("dropout.p must be in [0, 1)", {"dropout.p"});
  }
  if (options_.projection && options_.projection->in != table.d_model()) {
    throw UsageError("the projection takes " + std::to_string(options_.projection->in) +
                     " values but the embedding table's rows have " + std::to_string(table.d_model()));
  }
}

void InputLayer::check_memory(std::size_t batch, std::size_t seq_len, std::size_t d_model,
                              bool want_token_embeddings) {
  const std::string what = "output of shape [" + std::to_string(batch) + ", " + std::to_string(seq_len) + ", " +
                           std::to_string(d_model) + "]";
  const std::size_t tensors = want_token_embeddings ? 2 : 1;
  const std::size_t outputs = checked_product({batch, seq_len, d_model, sizeof(float), tensors}, what);
  // The PE rows kept by the layer and their copy in positional_encoding.
  const std::size_t pe = checked_product({seq_len, d_model, sizeof(float), 2}, what);
  // The ids and the mask the batch already holds.
  const std::size_t ids = checked_product({batch, seq_len, 2 * sizeof(std::int64_t)}, what);
  check_allocation(checked_sum({outputs, pe, ids}, what), what);
}

std::shared_ptr<const std::vector<float>> InputLayer::position_rows(std::size_t count) const {
  const std::size_t d = table_.d_model();
  std::lock_guard<std::mutex> lock(pe_mutex_);
  if (pe_rows_ && pe_rows_->size() >= count * d) return pe_rows_;
  // Grow into a new vector (a forward pass on another thread may still be
  // reading the old one), keeping the rows already computed.
  auto grown = std::make_shared<std::vector<float>>(count * d, 0.0f);
  std::size_t have = 0;
  if (pe_rows_) {
    std::copy(pe_rows_->begin(), pe_rows_->end(), grown->begin());
    have = pe_rows_->size() / d;
  }
  if (pe_) {
    for (std::size_t r = have; r < count; ++r) pe_->row(options_.position_offset + r, grown->data() + r * d);
  }
  pe_rows_ = std::move(grown);
  return pe_rows_;
}

void InputLayer::check_positions(std::size_t seq_len, const std::vector<std::size_t>& lengths,
                                 const std::vector<std::string>& origins) const {
  const std::size_t offset = options_.position_offset;
  if (!pe_ || seq_len == 0 || (offset < pe_->max_len() && seq_len <= pe_->max_len() - offset)) return;
  // A table that max_len lengthens can grow; any table fits a shorter seq_len.
  const bool grows = pe_->extensible();
  if (grows && !lengths.empty() && origins.size() == lengths.size()) {
    const std::size_t i = static_cast<std::size_t>(std::max_element(lengths.begin(), lengths.end()) - lengths.begin());
    const std::size_t room = offset < pe_->max_len() ? pe_->max_len() - offset : 0;
    // The origin is the user's text: a file called seq_len is not the parameter.
    // Padding may be what is too long: blame the sequences' padded length then.
    if (lengths[i] <= room) {
      throw UsageError("sequences are padded to " + std::to_string(seq_len) + " tokens but the PE table has " +
                           std::to_string(room) + (room == 1 ? " position" : " positions") +
                           (offset ? " after position_offset " + std::to_string(offset) : "") +
                           "; lower seq_len or pad_to_multiple_of, or raise max_len",
                       {"seq_len", "pad_to_multiple_of", "max_len", "position_offset"});
    }
    throw UsageError(origins[i] + " is " + std::to_string(lengths[i]) + " tokens long but the PE table has " +
                         std::to_string(room) + (room == 1 ? " position" : " positions") +
                         (offset ? " after position_offset " + std::to_string(offset) : "") +
                         (offset ? "; raise max_len, lower position_offset, or truncate with seq_len"
                                 : "; raise max_len, or truncate with seq_len"),
                     offset ? std::vector<std::string>{"max_len", "position_offset", "seq_len"}
                            : std::vector<std::string>{"max_len", "seq_len"},
                     {{0, origins[i].size()}});
  }
  throw UsageError("sequences are " + std::to_string(seq_len) + " tokens long" +
                       (offset ? " (positions from " + std::to_string(offset) + ")" : std::string()) + " but " +
                       pe_->extent() +
                       (grows ? "; raise max_len, or truncate with seq_len"
                              : "; truncate with seq_len (at most " +
                                    std::to_string(offset < pe_->max_len() ? pe_->max_len() - offset : 0) + ")"),
                   grows ? std::vector<std::string>{"max_len", "seq_len"} : std::vector<std::string>{"seq_len"});
}

InputLayerOutput InputLayer::forward(const xt::xtensor<std::int64_t, 2>& ids, const xt::xtensor<std::int64_t, 2>& mask,
                                     std::size_t threads, std::size_t first_row,
                                     const xt::xtensor<std::int64_t, 2>* token_type_ids) const {
  InputLayerOutput out;
  forward_into(out, ids, mask, threads, first_row, token_type_ids);
  return out;
}

namespace {

// out[j] = e[j] × scale + pe[j] (and tok[j] = e[j] × scale): the multiply is
// rounded to float32 before the add, as PyTorch computes E·scale + PE.
void scale_and_add(const float* e, float scale, const float* pe, float* out, float* tok, std::size_t d) {
  if (tok) {
    for (std::size_t j = 0; j < d; ++j) {
      const float v = e[j] * scale;
      tok[j] = v;
      out[j] = v + pe[j];
    }
  } else {
    for (std::size_t j = 0; j < d; ++j) out[j] = e[j] * scale + pe[j];
  }
}

constexpr std::size_t kStreamingStoreBytes = std::size_t(32) << 20;

// The same, with non-temporal stores where the target is 16-byte aligned:
// for outputs far larger than the caches, which are not read back soon.
void scale_and_add_stream(const float* e, float scale, const float* pe, float* out, std::size_t d) {
#if defined(__SSE2__)
  std::size_t j = 0;
  for (; j < d && reinterpret_cast<std::uintptr_t>(out + j) % 16 != 0; ++j) out[j] = e[j] * scale + pe[j];
  const __m128 s = _mm_set1_ps(scale);
  for (; j + 4 <= d; j += 4) {
    _mm_stream_ps(out + j, _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(e + j), s), _mm_loadu_ps(pe + j)));
  }
  for (; j < d; ++j) out[j] = e[j] * scale + pe[j];
#else
  scale_and_add(e, scale, pe, out, nullptr, d);
#endif
}

// The row index into the PE table of token (b, l), batch × seq_len, when
// positions come from the ids (HF create_position_ids_from_input_ids: those
// other than positions_skip_id count) or from the mask (cumsum - 1); kPad for
// padding. Empty when positions are the plain arange.
constexpr std::size_t kPad = static_cast<std::size_t>(-1);

std::vector<std::size_t> position_indices(const InputLayerOptions& o, const xt::xtensor<std::int64_t, 2>& ids,
                                          const xt::xtensor<std::int64_t, 2>& mask) {
  const std::size_t batch = ids.shape()[0], seq_len = ids.shape()[1];
  std::vector<std::size_t> at;
  if (!o.positions_skip_id && !(o.positions_from_mask && mask.size() == ids.size())) return at;
  at.resize(batch * seq_len);
  for (std::size_t b = 0; b < batch; ++b) {
    std::size_t next = 0;
    for (std::size_t l = 0; l < seq_len; ++l) {
      const bool counts = o.positions_skip_id ? ids(b, l) != *o.positions_skip_id : mask(b, l) != 0;
      at[b * seq_len + l] = counts ? next++ : kPad;
    }
  }
  return at;
}

// Outputs are reused from batch to batch; a new buffer's first touches are
// a fault per 4 KiB page (10-20 us each on a VM) unless it has huge pages.
void resize_reused(xt::xtensor<float, 3>& t, std::array<std::size_t, 3> shape) {
  const float* before = t.data();
  t.resize(shape);
  if (t.data() != before) advise_huge_pages(t.data(), t.size() * sizeof(float));
}

void normalize(const LayerNorm& ln, float* row, std::size_t width) {
  double mean = 0;
  for (std::size_t j = 0; j < width; ++j) mean += row[j];
  mean /= static_cast<double>(width);
  double var = 0;
  for (std::size_t j = 0; j < width; ++j) var += (row[j] - mean) * (row[j] - mean);
  var /= static_cast<double>(width);
  const double inv = 1.0 / std::sqrt(var + ln.eps);
  for (std::size_t j = 0; j < width; ++j) {
    row[j] = static_cast<float>((row[j] - mean) * inv * ln.gamma[j] + ln.beta[j]);
  }
}

// Inverted dropout, its mask a function of (seed, row of the run, position, dimension) alone.
struct DropoutMask {
  double p = 0;
  float keep_scale = 1.0f;
  std::uint64_t key = 0;

  void apply(float* row, std::size_t d, std::uint64_t base) const {
    constexpr double kTwoPow53 = 9007199254740992.0;
    for (std::size_t j = 0; j < d; ++j) {
      const double u = static_cast<double>(splitmix64(key + base + j) >> 11) / kTwoPow53;
      row[j] = u < p ? 0.0f : row[j] * keep_scale;
    }
  }
};

// Row `id` of `table`, in place where the table holds float32 rows, else converted into `scratch`.
const float* row_of(const EmbeddingTable& table, std::int64_t id, std::size_t d, std::vector<float>& scratch) {
  if (const float* r = table.row_data(id)) return r;
  scratch.resize(d);
  table.row(id, scratch.data());
  return scratch.data();
}

[[noreturn]] void refuse_row(const char* what, std::int64_t value, std::size_t b, std::size_t l, const char* table,
                             std::int64_t rows, std::vector<std::string> parameters = {}) {
  throw UsageError(std::string(what) + " " + std::to_string(value) + " (sequence " + std::to_string(b) +
                       ", position " + std::to_string(l) + ") is outside the " + table + "'s " +
                       std::to_string(rows) + " rows",
                   std::move(parameters));
}

}  // namespace

void InputLayer::forward_into(InputLayerOutput& out, const xt::xtensor<std::int64_t, 2>& ids,
                              const xt::xtensor<std::int64_t, 2>& mask, std::size_t threads,
                              std::size_t first_row, const xt::xtensor<std::int64_t, 2>* token_type_ids) const {
  const std::size_t batch = ids.shape()[0];
  const std::size_t seq_len = ids.shape()[1];
  const std::size_t d = table_.d_model();  // of the sum; the output's too unless projected last
  const Projection* projection = options_.projection;
  const std::size_t d_out = projection ? projection->out : d;
  const bool use_mask = options_.pad_position.has_value() && mask.size() == ids.size();
  check_positions(seq_len);
  if (pe_ && options_.pad_position && *options_.pad_position >= pe_->max_len()) {
    throw UsageError("pad_position " + std::to_string(*options_.pad_position) + " is beyond the position table",
                     {"pad_position"});
  }
  check_memory(batch, seq_len, std::max(d, d_out), options_.want_token_embeddings);

  const std::shared_ptr<const std::vector<float>> pe_rows = position_rows(seq_len);
  const float* pe = pe_rows->data();  // (≥ seq_len, d)
  out.positional_encoding.resize({seq_len, d});
  std::copy(pe, pe + seq_len * d, out.positional_encoding.data());
  std::vector<float> pad_row(pe_ && options_.pad_position ? d : 0);  // (d,)
  if (!pad_row.empty()) pe_->row(*options_.pad_position, pad_row.data());
  const std::vector<std::size_t> from_mask = position_indices(options_, ids, mask);  // (batch, seq_len) or empty
  resize_reused(out.output, {batch, seq_len, d_out});
  resize_reused(out.token_embeddings, options_.want_token_embeddings ? std::array<std::size_t, 3>{batch, seq_len, d}
                                                                     : std::array<std::size_t, 3>{0, 0, 0});

  const float scale = options_.scale.factor(d_out);  // sqrt of the output's width (projection.h)
  float* dst = out.output.data();  // (batch, seq_len, d)
  float* tok = options_.want_token_embeddings ? out.token_embeddings.data() : nullptr;

  const bool dropping = options_.dropout && options_.dropout->p > 0.0;
  DropoutMask dropout;
  if (dropping) {
    dropout.p = options_.dropout->p;
    dropout.keep_scale = static_cast<float>(1.0 / (1.0 - dropout.p));
    dropout.key = splitmix64(splitmix64(options_.dropout->seed) ^ 0xD1B54A32D192ED03ULL);
  }
  const std::int64_t vocab = table_.vocab_size();
  const std::int64_t* id_data = ids.data();
  // An output much larger than the caches goes straight to memory: the
  // stores then cost no reads of the lines they replace. Rows that LayerNorm
  // or dropout read back stay in the cache.
  const EmbeddingTable* types = options_.token_types;
  const std::int64_t* type_data = types && token_type_ids && token_type_ids->size() == ids.size()
                                      ? token_type_ids->data()
                                      : nullptr;  // type 0 everywhere
  const std::int64_t type_count = types ? types->vocab_size() : 0;
  const bool stream = !tok && !types && !options_.layer_norm && !dropping && !projection && !options_.mask_output &&
                      batch * seq_len * d * sizeof(float) >= kStreamingStoreBytes;

  // Tokens (b, l) flattened, so that a short batch of long sequences still
  // spreads over the threads. Streamed outputs go position by position (the
  // PE row stays in L1 across the batch: ~15% faster on the kernel bench),
  // others sequence by sequence.
  parallel_for(batch * seq_len, threads, [&](std::size_t i_begin, std::size_t i_end) {
    std::vector<float> scratch, type_scratch;  // for tables whose rows are converted or computed
    std::vector<float> sum(projection ? d : 0);  // a token's sum in E dimensions, before the projection
    // (b, l) of token i, advanced without a division per token.
    std::size_t b = stream ? i_begin % batch : i_begin / seq_len;
    std::size_t l = stream ? i_begin / batch : i_begin % seq_len;
    for (std::size_t i = i_begin; i < i_end; ++i) {
      const std::size_t t = b * seq_len + l;
      const std::int64_t id = id_data[t];
      if (id < 0 || id >= vocab) refuse_row("token id", id, b, l, "embedding table", vocab);
      float* row = projection ? sum.data() : dst + t * d;
      const float* pe_row;
      if (!from_mask.empty()) {
        const std::size_t at = from_mask[t];
        pe_row = at != kPad ? pe + at * d : !pad_row.empty() ? pad_row.data() : pe;  // padding: pad_position, else 0
      } else {
        pe_row = (use_mask && mask(b, l) == 0) ? pad_row.data() : pe + l * d;
      }
      const float* e = row_of(table_, id, d, scratch);
      if (types) {
        const std::int64_t type = type_data ? type_data[t] : 0;
        if (type < 0 || type >= type_count) {
          refuse_row("token type", type, b, l, "token type table", type_count, {"token_type_ids"});
        }
        const float* tt = row_of(*types, type, d, type_scratch);
        for (std::size_t j = 0; j < d; ++j) {  // in BertEmbeddings' order: (word + token type) + position
          const float v = e[j] * scale;
          if (tok) tok[t * d + j] = v;
          row[j] = (v + tt[j]) + pe_row[j];
        }
      } else if (stream) {
        scale_and_add_stream(e, scale, pe_row, row, d);
      } else {
        scale_and_add(e, scale, pe_row, row, tok ? tok + t * d : nullptr, d);
      }
      if (options_.layer_norm && !options_.layer_norm_after_projection) normalize(*options_.layer_norm, row, d);
      if (dropping) dropout.apply(row, d, ((first_row + b) * seq_len + l) * d);
      if (projection) projection->apply(row, dst + t * d_out);
      if (options_.layer_norm && options_.layer_norm_after_projection) {
        normalize(*options_.layer_norm, dst + t * d_out, d_out);
      }
      if (options_.mask_output && mask.size() == ids.size() && mask(b, l) == 0) {
        float* o = dst + t * d_out;
        for (std::size_t j = 0; j < d_out; ++j) o[j] *= 0.0f;  // as embeddings * mask computes it (-0 for x < 0)
      }
      if (stream) {  // the next token
        if (++b == batch) {
          b = 0;
          ++l;
        }
      } else if (++l == seq_len) {
        l = 0;
        ++b;
      }
    }
#if defined(__SSE2__)
    if (stream) _mm_sfence();  // the streamed rows are visible once the threads are joined
#endif
  });
}

}  // namespace embedpe
