// The t5 kind (Raffel et al. 2020): relative-position buckets. Attention
// scores get bias[h, q, k] = relative_attention_bias[bucket(k - q), h];
// nothing is added to the input. The inspection views are the bucket matrix
// [query, key] (int64) and, given the (num_buckets, heads) table, the
// per-head bias [heads, query, key].
//
// bucket() follows Hugging Face transformers'
// T5Attention._relative_position_bucket (src/transformers/models/t5/modeling_t5.py),
// computing its log-spaced part in float32 as torch does, so that the
// buckets match at the edges where float32 rounding decides.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "embedpe/error.h"
#include "memory.h"
#include "embedpe/pe_kind.h"
#include "embedpe/version.h"
#include "embedpe/weights.h"
#include "pe/kinds/kind_support.h"

namespace embedpe {
namespace {

using Type = PeParam::Type;
using Use = PeParam::Use;

// Where checkpoints keep the bias of the first layer (the only one that has it).
const std::vector<std::string_view> kEncoderBiasNames = {
    "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight", "relative_attention_bias.weight"};
const std::vector<std::string_view> kDecoderBiasNames = {
    "decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight", "relative_attention_bias.weight"};

struct Buckets {
  std::int64_t num_buckets = 32;
  std::int64_t max_distance = 128;
  bool bidirectional = true;

  // HF: half the buckets per direction when bidirectional; of those, half for
  // exact distances and half log-spaced up to max_distance.
  std::int64_t max_exact() const { return (bidirectional ? num_buckets / 2 : num_buckets) / 2; }

  std::int64_t bucket(std::int64_t relative_position) const {
    std::int64_t n = num_buckets, out = 0;
    if (bidirectional) {
      n /= 2;
      if (relative_position > 0) out += n;
      relative_position = relative_position < 0 ? -relative_position : relative_position;
    } else {
      relative_position = -std::min<std::int64_t>(relative_position, 0);
    }
    const std::int64_t exact = n / 2;
    if (relative_position < exact) return out + relative_position;
    // torch: log(rp.float() / max_exact) / math.log(max_distance / max_exact) * (n - max_exact), in float32,
    // truncated by .to(torch.long); the Python scalar is a float64 rounded to float32.
    const float scale = static_cast<float>(std::log(static_cast<double>(max_distance) / static_cast<double>(exact)));
    const float ratio = static_cast<float>(relative_position) / static_cast<float>(exact);
    const float spread = std::log(ratio) / scale * static_cast<float>(n - exact);
    return out + std::min<std::int64_t>(exact + static_cast<std::int64_t>(spread), n - 1);
  }
};

class T5 final : public PeKind {
 public:
  T5()
      : PeKind({.name = "t5", .label = "T5 buckets", .inspectable = true, .needs_d_model = false,
                .acts_in_attention = true}) {}

  const std::vector<PeParam>& params() const override {
    static const std::vector<PeParam> p = {
        {.name = "num_buckets", .type = Type::integer, .default_value = std::uint64_t(32), .min = 2, .max = 1 << 20,
         .help = "T5: relative_attention_num_buckets", .default_text = "the bias table's rows, else 32",
         .use = Use::inspect},
        {.name = "max_distance", .type = Type::integer, .default_value = std::uint64_t(128), .min = 1,
         .max = double(kMaxPePosition), .help = "T5: relative_attention_max_distance", .use = Use::inspect},
        {.name = "causal", .type = Type::flag,
         .help = "T5: causal buckets as in the decoder (default: bidirectional, as in the encoder)",
         .use = Use::inspect},
        {.name = "weights", .type = Type::path,
         .help = "T5: relative_attention_bias (num_buckets, heads), .npy or .safetensors[:TENSOR]; shows the "
                 "per-head bias",
         .use = Use::inspect},
        {.name = "head", .type = Type::integer, .default_value = std::uint64_t(0), .min = 0, .max = 65535,
         .help = "the head drawn by table/png", .value_name = "H", .use = Use::inspect},
    };
    return p;
  }

  PeInspection compute_inspection(const PeArgs& args, const PeInspectRequest& r) const override {
    Buckets b{static_cast<std::int64_t>(integer(args, "num_buckets")),
              static_cast<std::int64_t>(integer(args, "max_distance")), !flag(args, "causal")};
    // The table, if any, says how many buckets there are.
    std::shared_ptr<const WeightFile> file;
    const WeightTensor* table = nullptr;
    if (auto spec = optional_text(args, "weights")) {
      const TensorSpec ts = parse_tensor_spec(*spec);
      file = WeightFile::open(ts.path);
      table = &select_tensor(*file, ts.tensor, b.bidirectional ? kEncoderBiasNames : kDecoderBiasNames,
                             "relative_attention_bias");
      if (table->shape.size() != 2 || table->shape[0] == 0 || table->shape[1] == 0) {
        throw Error(file->path() + ": a relative_attention_bias table must be a non-empty (num_buckets, heads) matrix");
      }
      if (table->dtype == DType::int8 || table->dtype == DType::int64) {
        throw Error(file->path() + ": integer bias tables are not supported");
      }
      const auto rows = static_cast<std::int64_t>(table->shape[0]);
      if (!args.find("num_buckets")) {
        b.num_buckets = rows;
      } else if (rows != b.num_buckets) {
        throw UsageError(describe(*file, *table) + " has " + std::to_string(rows) + " rows (buckets) but num_buckets is " +
                             std::to_string(b.num_buckets) + "; drop num_buckets or give the matching table",
                         {"num_buckets"});
      }
    }
    check(b);
    const std::size_t n = r.count, heads = table ? table->shape[1] : 0;
    const std::string what = "T5 buckets for " + std::to_string(n) + " positions";
    // Per query-key cell: its int64 bucket, a float copy to draw, a bias per head, and text.
    check_allocation(checked_product({n, n, 8 + 4 + 16 + 4 * heads}, what), what,
                     "show fewer positions (max_len, positions)", {"max_len", "positions"});

    auto buckets = xt::xtensor<std::int64_t, 2>::from_shape({n, n});  // (query, key)
    for (std::size_t q = 0; q < n; ++q)
      for (std::size_t k = 0; k < n; ++k) buckets(q, k) = b.bucket(static_cast<std::int64_t>(k) - static_cast<std::int64_t>(q));

    PeInspection v;
    v.config = {{"embedpe_version", version()},
                {"kind", "t5"},
                {"num_buckets", b.num_buckets},
                {"max_distance", b.max_distance},
                {"bidirectional", b.bidirectional},
                {"relative_attention_bias", table ? nlohmann::ordered_json(describe(*file, *table)) : nlohmann::ordered_json()},
                {"heads", table ? nlohmann::ordered_json(heads) : nlohmann::ordered_json()},
                {"bucket", "T5Attention._relative_position_bucket(key - query) as in HF transformers"}};
    const std::string shape = std::string(b.bidirectional ? "bidirectional" : "causal") + ", " +
                              std::to_string(b.num_buckets) + " buckets, max_distance " + std::to_string(b.max_distance);
    if (!table) {
      auto shown = xt::xtensor<float, 2>::from_shape({n, n});  // (query, key)
      std::transform(buckets.begin(), buckets.end(), shown.begin(), [](std::int64_t x) { return static_cast<float>(x); });
      v.matrix = PeMatrix{std::move(shown), "query", "key", r.first, r.first, /*integers=*/true};
      // Bucket indices are categories: one flat colour each. Bidirectional
      // buckets give their upper half to keys after the query: a second hue.
      v.matrix->look = {.scale = ColourScale::categorical, .causal_mask = !b.bidirectional,
                        .categories = static_cast<std::size_t>(b.num_buckets)};
      if (b.bidirectional) {
        v.matrix->look.second_ramp = static_cast<std::size_t>(b.num_buckets / 2);
        v.matrix->look.first_ramp_label = "key<=query";
        v.matrix->look.second_ramp_label = "key>query";
      }
      v.matrix_name = "buckets";
      v.title = "T5 relative position buckets (" + shape + ")";
      v.tensors.push_back({"buckets", std::move(buckets)});
      v.npy_tensor = 0;
      return v;
    }
    const std::size_t head = integer(args, "head");
    if (head >= heads) {
      throw UsageError("head " + std::to_string(head) + " is beyond the " + std::to_string(heads) + " heads of " +
                           describe(*file, *table) + "; choose head below " + std::to_string(heads),
                       {"head"});
    }
    std::vector<float> weights(static_cast<std::size_t>(b.num_buckets) * heads);  // (num_buckets, heads)
    read_floats(*file, *table, 0, weights.size(), weights.data());
    auto bias = xt::xtensor<float, 3>::from_shape({heads, n, n});  // (heads, query, key)
    for (std::size_t h = 0; h < heads; ++h)
      for (std::size_t q = 0; q < n; ++q)
        for (std::size_t k = 0; k < n; ++k) bias(h, q, k) = weights[static_cast<std::size_t>(buckets(q, k)) * heads + h];
    v.matrix = PeMatrix{pe_support::head_of(bias, head), "query", "key", r.first, r.first};
    v.matrix->look.causal_mask = !b.bidirectional;  // the decoder never sees keys after the query
    v.matrix_name = "bias";
    v.title = "T5 relative attention bias, head " + std::to_string(head) + " of " + std::to_string(heads) + " (" +
              shape + ")";
    v.tensors.push_back({"buckets", std::move(buckets)});
    v.tensors.push_back({"bias", std::move(bias)});
    v.npy_tensor = 1;
    return v;
  }

 private:
  static std::string describe(const WeightFile& file, const WeightTensor& t) {
    return file.path() + (t.name.empty() ? "" : ":" + t.name);
  }

  // HF accepts any numbers; refused here are those whose buckets are nonsense
  // (a division by zero or a log-spaced range that runs backwards).
  static void check(const Buckets& b) {
    if (b.max_exact() < 1) {
      throw UsageError("num_buckets " + std::to_string(b.num_buckets) +
                           " leaves no bucket for exact distances: bidirectional buckets give half to each direction "
                           "and half of those to exact distances; give num_buckets 4 or more, or causal",
                       {"num_buckets", "causal"});
    }
    if (b.max_distance <= b.max_exact()) {
      throw UsageError("max_distance " + std::to_string(b.max_distance) + " must be above " +
                           std::to_string(b.max_exact()) + ", the distances num_buckets " +
                           std::to_string(b.num_buckets) + " keeps exact (" +
                           (b.bidirectional ? "a quarter of them when bidirectional" : "half of them when causal") +
                           "); raise max_distance",
                       {"max_distance", "num_buckets"});
    }
  }
};

}  // namespace

const PeKind& t5_kind() {
  static const T5 kind;
  return kind;
}

}  // namespace embedpe
