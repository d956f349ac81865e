// The transformer-xl kind (Dai et al. 2019): the relative position table R
// that Transformer-XL's attention reads (it is not added to the input). As
// kimiyoung/transformer-xl builds it (pytorch/mem_transformer.py,
// MemTransformerLM._forward and PositionalEmbedding):
//
//   pos_seq  = klen-1, klen-2, ..., 0        (descending; clamped to clamp_len if it is above 0)
//   inv_freq = 1 / 10000^(2i/d),  i = 0 .. d/2-1
//   R[row]   = [sin(pos_seq[row] * inv_freq) | cos(pos_seq[row] * inv_freq)]   (concatenated)
//
// Shown for klen = max_len (or positions A:B: rows for B-1 down to A; a
// position_offset K adds K to each). Computed in
// float64 and rounded once to float32; the original computes in float32.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "embedpe/error.h"
#include "embedpe/pe_kind.h"
#include "embedpe/version.h"
#include "pe/kinds/kind_support.h"

namespace embedpe {
namespace {

using Type = PeParam::Type;
using Use = PeParam::Use;

class TransformerXl final : public PeKind {
 public:
  TransformerXl()
      : PeKind({.name = "transformer-xl", .label = "Transformer-XL relative", .inspectable = true,
                .acts_in_attention = true}) {}

  const std::vector<PeParam>& params() const override {
    static const std::vector<PeParam> p = {
        {.name = "clamp_len", .type = Type::integer, .min = 0, .max = double(kMaxPePosition - 1),
         .help = "Transformer-XL: relative positions above this use this one; 0, as there, clamps nothing",
         .use = Use::inspect},
    };
    return p;
  }

  void check_inspect(const PeArgs&, const PeInspectRequest& r) const override {
    const std::size_t d = r.d_model.value_or(0);
    if (d % 2 != 0) {
      throw UsageError("transformer-xl concatenates d_model/2 sines and d_model/2 cosines: give an even d_model, not " +
                           std::to_string(d),
                       {"d_model"});
    }
  }

  PeInspection compute_inspection(const PeArgs& args, const PeInspectRequest& r) const override {
    const std::size_t d = *r.d_model, half = d / 2;
    const std::size_t last = r.first + r.position_offset + r.count - 1;  // pos_seq[0]
    // Transformer-XL clamps only when clamp_len > 0.
    const std::uint64_t clamp_len = optional_integer(args, "clamp_len").value_or(0);
    std::vector<double> inv_freq(half);
    for (std::size_t i = 0; i < half; ++i) inv_freq[i] = 1.0 / std::pow(10000.0, static_cast<double>(2 * i) / static_cast<double>(d));
    auto table = xt::xtensor<float, 2>::from_shape({r.count, r.dims_count});
    for (std::size_t row = 0; row < r.count; ++row) {
      const std::size_t pos = clamp_len > 0 ? std::min<std::size_t>(last - row, clamp_len) : last - row;
      for (std::size_t c = 0; c < r.dims_count; ++c) {
        const std::size_t dim = r.dims_first + c;
        const double angle = static_cast<double>(pos) * inv_freq[dim % half];
        table(row, c) = static_cast<float>(dim < half ? std::sin(angle) : std::cos(angle));
      }
    }
    PeInspection v;
    v.config = {{"embedpe_version", version()},
                {"d_model", d},
                {"positional_encoding",
                 {{"kind", "transformer-xl"},
                  {"pos_seq", "descending: row r is relative position " + std::to_string(last) + " - r"},
                  {"first_position", last},
                  {"last_position", last + 1 - r.count},
                  {"clamp_len", clamp_len > 0 ? nlohmann::ordered_json(clamp_len) : nlohmann::ordered_json()},
                  {"inv_freq", "1 / 10000^(2i/d_model)"},
                  {"layout", "concat: sin | cos"}}}};
    v.title = "Transformer-XL relative position table R, d=" + std::to_string(d) + ": row r is position " +
              std::to_string(last) + " - r" + (clamp_len > 0 ? ", clamped to " + std::to_string(clamp_len) : std::string());
    v.note_hidden_dims = true;
    v.matrix = PeMatrix{std::move(table), "row", "dim", 0, r.dims_first};
    pe_support::sin_cos_panels(*v.matrix, r.dims_first, [half](std::size_t dim) { return dim < half; });
    v.matrix_name = "pos_emb";
    return v;
  }
};

}  // namespace

const PeKind& transformer_xl_kind() {
  static const TransformerXl kind;
  return kind;
}

}  // namespace embedpe
