#include "pe_flags.h"

#include "common.h"
#include "embedpe/error.h"

namespace embedpe::cli {

void add_sinusoidal_flags(CLI::App& cmd, SinusoidalFlags& f) {
  add_choice<Convention>(cmd, "--convention", [&f](Convention c) { f.convention = c; },
                         {{"paper", Convention::paper}, {"marian", Convention::marian},
                          {"fairseq", Convention::fairseq}, {"tensor2tensor", Convention::tensor2tensor}},
                         "Sinusoidal PE as a framework computes it: paper (Vaswani et al. 2017; default), marian (HF), "
                         "fairseq, tensor2tensor");
  add_choice<PeLayout>(cmd, "--layout", [&f](PeLayout l) { f.layout = l; },
                       {{"interleaved", PeLayout::interleaved}, {"concat", PeLayout::concat}},
                       "sin/cos interleaved (paper) or concatenated (t2t, fairseq, Marian)");
  add_choice<PeFrequencies>(cmd, "--pe-freq", [&f](PeFrequencies q) { f.frequencies = q; },
                            {{"paper", PeFrequencies::paper}, {"fairseq", PeFrequencies::fairseq}},
                            "Frequencies 1/base^(2i/d) (paper) or exp(-i·ln(base)/(d/2-1)) (fairseq, t2t)");
  add_number(cmd, "--base", f.base, kMinBase, kMaxBase, "Sinusoid base");
  add_number(cmd, "--position-scale", f.position_scale, 1e-6, 1e6, "Position interpolation: encode position/K")
      ->type_name("K");
}

void add_rope_flags(CLI::App& cmd, RopeFlags& f) {
  RopeOptions& o = f.options;
  add_number(cmd, "--rope-theta", o.theta, kMinBase, kMaxBase, "RoPE base (rope_theta)");
  add_choice<RopeScaling>(cmd, "--rope-scaling", [&o](RopeScaling s) { o.scaling = s; },
                          {{"none", RopeScaling::none}, {"linear", RopeScaling::linear},
                           {"dynamic", RopeScaling::dynamic}, {"yarn", RopeScaling::yarn},
                           {"llama3", RopeScaling::llama3}},
                          "RoPE scaling as in HF transformers (default none)");
  add_number(cmd, "--rope-factor", o.factor, 1e-6, 1e6, "Scaling factor");
  add_number(cmd, "--rope-original-max-positions", o.original_max_positions, 1, kMaxPosition,
             "Original context (max_position_embeddings / original_max_position_embeddings)");
  add_number(cmd, "--rope-beta-fast", o.beta_fast, 1e-6, 1e6, "yarn beta_fast");
  add_number(cmd, "--rope-beta-slow", o.beta_slow, 1e-6, 1e6, "yarn beta_slow");
  add_number(cmd, "--rope-low-freq-factor", o.low_freq_factor, 1e-6, 1e6, "llama3 low_freq_factor");
  add_number(cmd, "--rope-high-freq-factor", o.high_freq_factor, 1e-6, 1e6, "llama3 high_freq_factor");
}

SinusoidalOptions sinusoidal_options(const SinusoidalFlags& f, std::size_t d_model, std::size_t max_len,
                                     std::optional<std::size_t> padding_idx) {
  SinusoidalOptions o{.d_model = d_model, .max_len = max_len, .base = f.base};
  switch (f.convention.value_or(Convention::paper)) {
    case Convention::paper: break;
    case Convention::marian: o.layout = PeLayout::concat; break;
    case Convention::tensor2tensor:
      o.layout = PeLayout::concat;
      o.frequencies = PeFrequencies::fairseq;
      break;
    case Convention::fairseq:
      o.layout = PeLayout::concat;
      o.frequencies = PeFrequencies::fairseq;
      o.zero_position = padding_idx.value_or(1);
      break;
  }
  if (f.layout) o.layout = *f.layout;
  if (f.frequencies) o.frequencies = *f.frequencies;
  o.position_scale = f.position_scale;
  return o;
}

nlohmann::ordered_json sinusoidal_json(const SinusoidalOptions& o) {
  return {{"kind", "sinusoidal"},
          {"layout", o.layout == PeLayout::interleaved ? "interleaved" : "concat"},
          {"frequencies", o.frequencies == PeFrequencies::paper ? "paper" : "fairseq"},
          {"base", o.base},
          {"position_scale", o.position_scale},
          {"zero_position", o.zero_position ? nlohmann::ordered_json(*o.zero_position) : nlohmann::ordered_json()},
          {"max_len", o.max_len}};
}

nlohmann::ordered_json rope_json(const RopeOptions& o, const RopeFrequencies& f) {
  static constexpr const char* kNames[] = {"none", "linear", "dynamic", "yarn", "llama3"};
  return {{"kind", "rope"},
          {"dim", o.dim},
          {"theta", o.theta},
          {"scaling", kNames[static_cast<int>(o.scaling)]},
          {"factor", o.factor},
          {"original_max_positions", o.original_max_positions},
          {"beta_fast", o.beta_fast},
          {"beta_slow", o.beta_slow},
          {"low_freq_factor", o.low_freq_factor},
          {"high_freq_factor", o.high_freq_factor},
          {"attention_factor", f.attention_factor},
          {"layout", "rotate_half: cos = cos(cat(freqs, freqs)) * attention_factor"}};
}

}  // namespace embedpe::cli
