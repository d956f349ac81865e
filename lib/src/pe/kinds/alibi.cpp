// The alibi kind (Press et al. 2022): a bias on attention scores linear in
// the distance, one slope per head. Nothing is added to the input; the
// inspection views are the slopes and the (heads, query, key) bias.
#include <cmath>
#include <string>
#include <vector>

#include "embedpe/alibi.h"
#include "embedpe/error.h"
#include "embedpe/pe_kind.h"
#include "embedpe/version.h"
#include "pe/kinds/kind_support.h"

namespace embedpe {
namespace {

using Type = PeParam::Type;
using Use = PeParam::Use;

class Alibi final : public PeKind {
 public:
  Alibi()
      : PeKind({.name = "alibi", .label = "ALiBi", .inspectable = true, .needs_d_model = false,
                .views = {PeViewKind::table, PeViewKind::stats}, .acts_in_attention = true}) {}

  const std::vector<PeParam>& params() const override {
    static const std::vector<PeParam> p = {
        {.name = "heads", .type = Type::integer, .default_value = std::uint64_t(0), .min = 1, .max = 65536,
         .help = "ALiBi: attention heads", .value_name = "H", .use = Use::inspect},
        {.name = "head", .type = Type::integer, .default_value = std::uint64_t(0), .min = 0, .max = 65535,
         .help = "the head drawn by table/png", .value_name = "H", .use = Use::inspect},
    };
    return p;
  }

  PeInspection compute_inspection(const PeArgs& args, const PeInspectRequest& r) const override {
    const std::size_t heads = integer(args, "heads");
    if (heads == 0) throw UsageError("kind alibi needs heads H", {"kind", "heads"});
    const auto slopes = alibi_slopes(heads);
    PeInspection v;
    v.config = {{"embedpe_version", version()}, {"kind", "alibi"}, {"heads", heads},
                {"bias", "slope_h * (j - i); j > i is masked in causal attention"}};
    // The slopes are the whole of ALiBi: CSV lists them rather than one head's bias.
    if (r.view == PeViewKind::stats || r.csv) {
      PeRecords rec{{"head", "slope"}, {}, "slopes"};
      for (std::size_t h = 0; h < slopes.size(); ++h) rec.rows.push_back({std::to_string(h), pe_support::fmt(slopes[h], "%.9g")});
      v.records = std::move(rec);
      v.records_as_json = true;
      v.title = "ALiBi slopes for " + std::to_string(heads) + " heads";
      return v;
    }
    const std::size_t head = integer(args, "head");
    if (head >= heads) throw UsageError("head must be below heads", {"head", "heads"});
    auto bias = alibi_bias(slopes, r.count);  // (heads, count, count)
    auto s = xt::xtensor<float, 1>::from_shape({slopes.size()});  // (heads,)
    for (std::size_t h = 0; h < slopes.size(); ++h) s(h) = static_cast<float>(slopes[h]);
    v.matrix = PeMatrix{pe_support::head_of(bias, head), "query", "key", r.first, r.first};
    // ALiBi biases causal attention (Press et al. 2022): a picture masks the keys after the query, which
    // attention never sees, and spreads its colours over the penalties that remain (slope * distance, to 0).
    v.matrix->look = {.scale = ColourScale::sequential, .causal_mask = true};
    v.matrix_name = "bias";
    v.title = "ALiBi bias, head " + std::to_string(head) + " of " + std::to_string(heads) + ", slope " +
              pe_support::fmt(slopes[head]) + " (2^-" + pe_support::fmt(-std::log2(slopes[head])) +
              "), bias slope * (key - query), causal";
    v.tensors.push_back({"slopes", std::move(s)});
    v.tensors.push_back({"bias", std::move(bias)});
    v.npy_tensor = 1;
    return v;
  }
};

}  // namespace

const PeKind& alibi_kind() {
  static const Alibi kind;
  return kind;
}

}  // namespace embedpe
