// The sinusoidal kind (Vaswani et al. 2017) and the frameworks' conventions
// of it: parameters, the convention builders, the layer's table with
// fairseq's position rules, the JSON description and the inspection views
// (table, stats, similarity, precision audit).
#include <string>
#include <vector>

#include "embedpe/error.h"
#include "embedpe/pe_analysis.h"
#include "embedpe/pe_kind.h"
#include "embedpe/positional_encoding.h"
#include "embedpe/version.h"
#include "pe/kinds/kind_support.h"

namespace embedpe {

SinusoidalOptions convention_options(PeConvention convention, std::size_t d_model, std::size_t max_len,
                                     std::optional<std::size_t> padding_idx) {
  SinusoidalOptions o{.d_model = d_model, .max_len = max_len};
  switch (convention) {
    case PeConvention::paper: break;
    case PeConvention::marian: o.layout = PeLayout::concat; break;
    case PeConvention::tensor2tensor:
      o.layout = PeLayout::concat;
      o.frequencies = PeFrequencies::fairseq;
      break;
    case PeConvention::fairseq:
      o.layout = PeLayout::concat;
      o.frequencies = PeFrequencies::fairseq;
      o.zero_position = padding_idx.value_or(1);
      break;
  }
  return o;
}

nlohmann::ordered_json to_json(const SinusoidalOptions& o) {
  return {{"kind", "sinusoidal"},
          {"layout", o.layout == PeLayout::interleaved ? "interleaved" : "concat"},
          {"frequencies", o.frequencies == PeFrequencies::paper ? "paper" : "fairseq"},
          {"base", o.base},
          {"position_scale", o.position_scale},
          {"zero_position", o.zero_position ? nlohmann::ordered_json(*o.zero_position) : nlohmann::ordered_json()},
          {"max_len", o.max_len}};
}

namespace {

using pe_support::fmt;
using Type = PeParam::Type;
using Use = PeParam::Use;

// fairseq numbers positions from padding_idx + 1 and gives padding padding_idx (default 1).
constexpr std::size_t kFairseqPaddingIdx = 1;
// The audit evaluates up to 2000 sampled positions per band at every dim in
// float64, float32, float16 and bfloat16: beyond this width it would run for hours.
constexpr std::size_t kMaxAuditDModel = 65536;

class Sinusoidal final : public PeKind {
 public:
  Sinusoidal()
      : PeKind({.name = "sinusoidal", .label = "sinusoidal (any convention)", .layer_choice = true,
                .inspectable = true,
                .views = {PeViewKind::table, PeViewKind::stats, PeViewKind::similarity, PeViewKind::audit},
                .sized_by_max_len = true}) {}

  const std::vector<PeParam>& params() const override {
    static const std::vector<PeParam> p = {
        {.name = "convention", .type = Type::choice, .choices = {"paper", "marian", "fairseq", "tensor2tensor"},
         .help = "Sinusoidal PE as a framework computes it: paper (Vaswani et al. 2017), marian (HF), "
                 "fairseq, tensor2tensor",
         .default_text = "paper"},
        {.name = "layout", .type = Type::choice, .choices = {"interleaved", "concat"},
         .help = "sin/cos interleaved (paper) or concatenated (t2t, fairseq, Marian)",
         .default_text = "the convention's"},
        {.name = "pe_freq", .type = Type::choice, .choices = {"paper", "fairseq"},
         .help = "Frequencies 1/base^(2i/d) (paper) or exp(-i·ln(base)/(d/2-1)) (fairseq, t2t)",
         .default_text = "the convention's"},
        {.name = "base", .default_value = 10000.0, .min = 1.001, .max = 1e12, .help = "Sinusoid base"},
        {.name = "position_scale", .default_value = 1.0, .min = 1e-6, .max = 1e6,
         .help = "Position interpolation: encode position/K", .value_name = "K"},
        // A layer takes padding_idx from its token table; inspection asks for it.
        {.name = "padding_idx", .type = Type::integer, .min = 0, .max = double(kMaxPePosition - 1),
         .help = "fairseq convention: this position's row is zero", .default_text = "1", .use = Use::inspect},
    };
    return p;
  }

  std::size_t position_offset(const PeArgs& args, const LayerPeRequest& r) const override {
    const bool fairseq = convention(args) == PeConvention::fairseq;
    return r.position_offset.value_or(fairseq ? r.padding_idx.value_or(kFairseqPaddingIdx) + 1 : 0);
  }

  LayerPe layer(const PeArgs& args, const LayerPeRequest& r) const override {
    const bool fairseq = convention(args) == PeConvention::fairseq;
    LayerPe pe;
    pe.position_offset = position_offset(args, r);
    pe.pad_position = r.pad_position;
    if (!pe.pad_position && fairseq) pe.pad_position = r.padding_idx.value_or(kFairseqPaddingIdx);
    const SinusoidalOptions o = options(args, r.d_model, r.max_len, r.padding_idx);
    pe.table = std::make_unique<SinusoidalEncoding>(o);
    pe.config = to_json(o);
    pe_support::add_positions(pe.config, pe.position_offset, pe.pad_position);
    return pe;
  }

  void check_inspect(const PeArgs&, const PeInspectRequest& r) const override {
    const std::size_t d = r.d_model.value_or(0);
    if (r.view == PeViewKind::stats) pe_support::check_pair_records(d);
    if (r.view == PeViewKind::audit && d > kMaxAuditDModel) {
      throw UsageError("audit takes d_model up to " + std::to_string(kMaxAuditDModel) + ", not " + std::to_string(d) +
                           "; lower d_model",
                       {"audit", "d_model"});
    }
  }

  PeInspection compute_inspection(const PeArgs& args, const PeInspectRequest& r) const override {
    const std::size_t d = r.d_model.value_or(0);
    const std::size_t first = r.first + r.position_offset;
    const SinusoidalOptions o = options(args, d, first + r.count, optional_integer(args, "padding_idx"));
    const SinusoidalEncoding pe(o);
    PeInspection v;
    v.config = {{"embedpe_version", version()}, {"d_model", d}, {"positional_encoding", to_json(o)},
                {"position_offset", r.position_offset}};
    const std::string params = describe(o, r.position_offset);
    switch (r.view) {
      case PeViewKind::stats: {
        PeRecords rec{{"pair", "sin_dim", "cos_dim", "frequency", "wavelength", "aliases", "incomplete"}, {}, "pairs"};
        for (const auto& s : frequency_stats(pe, r.count)) rec.rows.push_back(pe_support::frequency_cells(s));
        v.records = std::move(rec);
        v.title = "sinusoidal PE d=" + std::to_string(d) + " (" + params +
                  "): frequency in radians/position, wavelength in positions; aliases: wavelength < 2; "
                  "incomplete: no full period in " + std::to_string(r.count) + " positions";
        return v;
      }
      case PeViewKind::audit: {
        // Two different things are measured, and the names say which: f32_computed is the table
        // computed in float32 the naive way, f16_stored and bf16_stored the exact value rounded for storage.
        PeRecords rec{{"first", "last", "sampled", "f32_computed_max", "f32_computed_mean", "f16_stored_max",
                       "f16_stored_mean", "bf16_stored_max", "bf16_stored_mean"},
                      {},
                      "bands"};
        for (const auto& b : audit_precision(o, first, r.count)) {
          rec.rows.push_back({std::to_string(b.first), std::to_string(b.last), std::to_string(b.sampled),
                              fmt(b.max_error[0], "%.6e"), fmt(b.mean_error[0], "%.6e"), fmt(b.max_error[1], "%.6e"),
                              fmt(b.mean_error[1], "%.6e"), fmt(b.max_error[2], "%.6e"), fmt(b.mean_error[2], "%.6e")});
        }
        v.records = std::move(rec);
        v.config["columns"] = {
            {"f32_computed", "the table computed in float32 the naive way, as the PyTorch / Annotated Transformer "
                             "recipe does (float32 position * div_term, then sin/cos)"},
            {"f16_stored", "the exact (float64) value rounded to float16 for storage"},
            {"bf16_stored", "the exact (float64) value rounded to bfloat16 for storage"},
            {"error", "max and mean abs error against float64 over the sampled positions and every dim"}};
        v.title = "abs error against float64 per position band, d=" + std::to_string(d) + " " + params +
                  ". f32_computed: computed in float32 the naive way, as the PyTorch recipe does; "
                  "f16_stored, bf16_stored: the exact value rounded to float16, bfloat16 for storage "
                  "(embedpe itself writes the float64 value rounded to float32)";
        return v;
      }
      case PeViewKind::similarity:
        pe_support::similarity_view(v, pe.rows(first, r.count), r, "d=" + std::to_string(d) + " " + params);
        return v;
      case PeViewKind::table: break;
    }
    v.title = "sinusoidal PE d=" + std::to_string(d) + " " + params;
    v.note_hidden_dims = true;
    // Only the shown columns are computed: a few dims of a huge d_model are cheap.
    v.matrix = PeMatrix{pe.columns(first, r.count, r.dims_first, r.dims_count), "position", "dim", r.first,
                        r.dims_first};
    pe_support::sin_cos_panels(*v.matrix, r.dims_first, [&](std::size_t dim) { return pe.is_sin_column(dim); });
    v.matrix_name = "positional_encoding";
    return v;
  }

 private:
  // The parameters a title carries: "interleaved, paper frequencies, base 10000" and what differs from the paper.
  static std::string describe(const SinusoidalOptions& o, std::size_t position_offset) {
    std::string text = std::string(o.layout == PeLayout::interleaved ? "interleaved" : "concat") + ", " +
                       (o.frequencies == PeFrequencies::paper ? "paper" : "fairseq") + " frequencies, base " +
                       fmt(o.base);
    if (o.position_scale != 1.0) text += ", position scale " + fmt(o.position_scale);
    if (o.zero_position) text += ", position " + std::to_string(*o.zero_position) + " zero (padding_idx)";
    if (position_offset) text += ", position offset " + std::to_string(position_offset);
    return text;
  }

  PeConvention convention(const PeArgs& args) const {
    const std::string c = text(args, "convention");
    if (c == "marian") return PeConvention::marian;
    if (c == "fairseq") return PeConvention::fairseq;
    if (c == "tensor2tensor") return PeConvention::tensor2tensor;
    return PeConvention::paper;
  }

  // The convention's options; layout and pe_freq, when given, override it.
  SinusoidalOptions options(const PeArgs& args, std::size_t d, std::size_t max_len,
                            std::optional<std::size_t> padding_idx) const {
    SinusoidalOptions o = convention_options(convention(args), d, max_len, padding_idx);
    o.base = number(args, "base");
    if (auto l = optional_text(args, "layout")) o.layout = *l == "concat" ? PeLayout::concat : PeLayout::interleaved;
    if (auto f = optional_text(args, "pe_freq")) {
      o.frequencies = *f == "fairseq" ? PeFrequencies::fairseq : PeFrequencies::paper;
    }
    o.position_scale = number(args, "position_scale");
    return o;
  }
};

}  // namespace

const PeKind& sinusoidal_kind() {
  static const Sinusoidal kind;
  return kind;
}

}  // namespace embedpe
