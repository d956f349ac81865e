// The rope kind (RoFormer, with Hugging Face's scalings): parameters, the
// options they give (also for encode's rope_cos/rope_sin), the JSON
// description, the refusal to be added to the input, and the inspection
// views (cos or sin table, every table, per-pair stats).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "embedpe/error.h"
#include "embedpe/pe_analysis.h"
#include "embedpe/pe_kind.h"
#include "embedpe/rope.h"
#include "embedpe/version.h"
#include "embedpe/message.h"
#include "pe/kinds/kind_support.h"

namespace embedpe {
namespace {

using Type = PeParam::Type;
using Use = PeParam::Use;

constexpr const char* kScalings[] = {"none", "linear", "dynamic", "yarn", "llama3"};

class Rope final : public PeKind {
 public:
  // Offered to a layer so that asking for it explains where RoPE goes.
  Rope()
      : PeKind({.name = "rope", .label = "RoPE", .layer_choice = true, .inspectable = true,
                .views = {PeViewKind::table, PeViewKind::stats}, .acts_in_attention = true}) {}

  const std::vector<PeParam>& params() const override {
    static const RopeOptions d;
    static const std::vector<PeParam> p = {
        {.name = "rope_theta", .default_value = d.theta, .min = 1.001, .max = 1e12, .help = "RoPE base (rope_theta)"},
        {.name = "rope_scaling", .type = Type::choice, .choices = {std::begin(kScalings), std::end(kScalings)},
         .help = "RoPE scaling as in HF transformers", .default_text = "none"},
        {.name = "rope_factor", .default_value = d.factor, .min = 1e-6, .max = 1e6, .help = "Scaling factor"},
        {.name = "rope_original_max_positions", .type = Type::integer,
         .default_value = std::uint64_t(d.original_max_positions), .min = 1, .max = double(kMaxPePosition),
         .help = "Original context (max_position_embeddings / original_max_position_embeddings)"},
        {.name = "rope_beta_fast", .default_value = d.beta_fast, .min = 1e-6, .max = 1e6, .help = "yarn beta_fast"},
        {.name = "rope_beta_slow", .default_value = d.beta_slow, .min = 1e-6, .max = 1e6, .help = "yarn beta_slow"},
        {.name = "rope_low_freq_factor", .default_value = d.low_freq_factor, .min = 1e-6, .max = 1e6,
         .help = "llama3 low_freq_factor"},
        {.name = "rope_high_freq_factor", .default_value = d.high_freq_factor, .min = 1e-6, .max = 1e6,
         .help = "llama3 high_freq_factor"},
        {.name = "rope_table", .type = Type::choice, .choices = {"cos", "sin"},
         .help = "RoPE table for table/csv/npy (png draws cos and sin side by side; json and npz hold inv_freq, "
                 "cos and sin)",
         .default_text = "cos",
         .use = Use::inspect},
    };
    return p;
  }

  LayerPe layer(const PeArgs&, const LayerPeRequest&) const override {
    throw UsageError("RoPE is not added to the input: it rotates queries and keys inside attention. Use pe none "
                     "for a RoPE model, and emit rope_cos,rope_sin to see its tables for the batch's positions",
                     {"pe", "emit"});
  }

  std::size_t view_columns(const PeArgs&, const PeInspectRequest& r) const override {
    // JSON and .npz hold both tables whole; a PNG draws both for the dims shown.
    return r.whole ? 2 * r.d_model.value_or(0) : r.png ? 2 * r.dims_count : r.dims_count;
  }

  void check_inspect(const PeArgs& args, const PeInspectRequest& r) const override {
    if (r.view == PeViewKind::stats) pe_support::check_pair_records(r.d_model.value_or(0));
    if (r.png && r.view == PeViewKind::table && args.find("rope_table")) {
      throw UsageError("rope_table chooses the table for table, csv and npy; a PNG draws both cos and sin: drop "
                       "rope_table",
                       {"rope_table"});
    }
  }

  PeInspection compute_inspection(const PeArgs& args, const PeInspectRequest& r) const override {
    RopeOptions o = rope_options(args);
    o.dim = r.d_model.value_or(0);
    if (o.seq_len == 0) o.seq_len = r.first + r.count;
    const RopeFrequencies f = rope_frequencies(o);
    PeInspection v;
    v.config = {{"embedpe_version", version()}, {"rope", to_json(o, f)},
                {"note", "RoPE is not added to the input: it rotates Q and K in attention"}};
    if (r.view == PeViewKind::stats) {
      PeRecords rec{{"pair", "inv_freq", "wavelength", "aliases", "incomplete"}, {}, "pairs"};
      for (const auto& s : rope_pair_stats(f, r.count)) {
        rec.rows.push_back({std::to_string(s.pair), pe_support::fmt(s.inv_freq, "%.9g"), pe_support::fmt(s.wavelength),
                            pe_support::yes_no(s.aliases), pe_support::yes_no(s.incomplete)});
      }
      v.records = std::move(rec);
      v.title = "RoPE inv_freq (attention_factor " + pe_support::fmt(f.attention_factor) + ")";
      return v;
    }
    // RoPE positions are the rows shown: position_offset is a layer's, not the model's.
    auto [cos, sin] = rope_tables(f, r.first, r.count);  // (count, dim) each
    if (r.whole) {
      auto inv = xt::xtensor<float, 1>::from_shape({f.inv_freq.size()});  // (dim/2,)
      for (std::size_t i = 0; i < f.inv_freq.size(); ++i) inv(i) = static_cast<float>(f.inv_freq[i]);
      v.tensors.push_back({"inv_freq", std::move(inv)});
      v.tensors.push_back({"cos", std::move(cos)});
      v.tensors.push_back({"sin", std::move(sin)});
      return v;
    }
    if (r.png) {
      // cos and sin side by side, each panel labelled by dim, as the
      // sinusoidal picture draws its sin and cos columns: one matrix [cos | sin].
      const std::size_t n = r.dims_count;
      auto both = xt::xtensor<float, 2>::from_shape({r.count, 2 * n});
      for (std::size_t p = 0; p < r.count; ++p) {
        for (std::size_t c = 0; c < n; ++c) {
          both(p, c) = cos(p, r.dims_first + c);
          both(p, n + c) = sin(p, r.dims_first + c);
        }
      }
      v.matrix = PeMatrix{std::move(both), "position", "dim", r.first, r.dims_first};
      HeatmapPanel cos_panel{"cos", {}, r.dims_first}, sin_panel{"sin", {}, r.dims_first};
      for (std::size_t c = 0; c < n; ++c) {
        cos_panel.columns.push_back(c);
        sin_panel.columns.push_back(n + c);
      }
      v.matrix->look.panels = {std::move(cos_panel), std::move(sin_panel)};
      v.title = "RoPE cos and sin dim=" + std::to_string(o.dim) + ", " + describe(o, f);
      v.matrix_name = "cos_sin";
      return v;
    }
    const bool is_cos = text(args, "rope_table") != "sin";
    v.matrix = PeMatrix{pe_support::columns_of(is_cos ? cos : sin, r.dims_first, r.dims_count), "position", "dim",
                        r.first, r.dims_first};
    v.title = std::string("RoPE ") + (is_cos ? "cos" : "sin") + " dim=" + std::to_string(o.dim) + ", " +
              describe(o, f);
    v.matrix_name = is_cos ? "cos" : "sin";
    return v;
  }

  // The parameters a title carries: theta, and the scaling with its own parameters.
  static std::string describe(const RopeOptions& o, const RopeFrequencies& f) {
    using pe_support::fmt;
    std::string text = "theta " + fmt(o.theta);
    if (o.scaling == RopeScaling::none) return text;
    text += std::string(", ") + kScalings[static_cast<int>(o.scaling)] + " scaling factor " + fmt(o.factor);
    if (o.scaling != RopeScaling::linear) text += ", original " + std::to_string(o.original_max_positions) + " positions";
    if (o.scaling == RopeScaling::yarn) text += ", beta_fast " + fmt(o.beta_fast) + ", beta_slow " + fmt(o.beta_slow);
    if (o.scaling == RopeScaling::llama3) {
      text += ", low_freq_factor " + fmt(o.low_freq_factor) + ", high_freq_factor " + fmt(o.high_freq_factor);
    }
    if (f.attention_factor != 1.0) text += ", attention_factor " + fmt(f.attention_factor);
    return text;
  }

  RopeOptions options(const PeArgs& args) const {
    RopeOptions o;
    o.theta = number(args, "rope_theta");
    const std::string scaling = text(args, "rope_scaling");
    for (std::size_t i = 0; i < std::size(kScalings); ++i) {
      if (scaling == kScalings[i]) o.scaling = static_cast<RopeScaling>(i);
    }
    o.factor = number(args, "rope_factor");
    o.original_max_positions = integer(args, "rope_original_max_positions");
    o.beta_fast = number(args, "rope_beta_fast");
    o.beta_slow = number(args, "rope_beta_slow");
    o.low_freq_factor = number(args, "rope_low_freq_factor");
    o.high_freq_factor = number(args, "rope_high_freq_factor");
    check_scaling_args(args, o.scaling);
    return o;
  }

  // A scaling parameter the chosen scaling does not read would be ignored
  // (and yet recorded in the config): refused, as check_pe_args refuses
  // another kind's parameters.
  static void check_scaling_args(const PeArgs& args, RopeScaling scaling) {
    using S = RopeScaling;
    static const std::pair<const char*, std::vector<S>> kReadBy[] = {
        {"rope_factor", {S::linear, S::dynamic, S::yarn, S::llama3}},
        {"rope_original_max_positions", {S::dynamic, S::yarn, S::llama3}},
        {"rope_beta_fast", {S::yarn}},
        {"rope_beta_slow", {S::yarn}},
        {"rope_low_freq_factor", {S::llama3}},
        {"rope_high_freq_factor", {S::llama3}}};
    for (const auto& [name, readers] : kReadBy) {
      if (!args.find(name) || std::find(readers.begin(), readers.end(), scaling) != readers.end()) continue;
      std::vector<std::string> takers;
      for (S s : readers) takers.emplace_back(kScalings[static_cast<int>(s)]);
      throw UsageError(std::string(name) + " applies to rope_scaling " + or_list(takers) + ", not " +
                           kScalings[static_cast<int>(scaling)] + ": it would be ignored, so drop " + name,
                       {name, "rope_scaling"});
    }
  }
};

const Rope& rope() {
  static const Rope kind;
  return kind;
}

}  // namespace

const PeKind& rope_kind() { return rope(); }

RopeOptions rope_options(const PeArgs& args) { return rope().options(args); }

nlohmann::ordered_json to_json(const RopeOptions& o, const RopeFrequencies& f) {
  return {{"kind", "rope"},
          {"dim", o.dim},
          {"theta", o.theta},
          {"scaling", kScalings[static_cast<int>(o.scaling)]},
          {"factor", o.factor},
          {"original_max_positions", o.original_max_positions},
          {"beta_fast", o.beta_fast},
          {"beta_slow", o.beta_slow},
          {"low_freq_factor", o.low_freq_factor},
          {"high_freq_factor", o.high_freq_factor},
          {"attention_factor", f.attention_factor},
          {"layout", "rotate_half: cos = cos(cat(freqs, freqs)) * attention_factor"}};
}

}  // namespace embedpe
