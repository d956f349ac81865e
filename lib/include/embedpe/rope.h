// Rotary position embedding (RoPE) tables, with the scalings of Hugging Face
// transformers' modeling_rope_utils. RoPE is never added to the input: it
// rotates queries and keys inside attention. These are the tables a model
// uses there, for inspection.
//
//   embedpe::RopeOptions o{.dim = 128, .theta = 500000, .scaling = embedpe::RopeScaling::llama3,
//                          .factor = 8, .original_max_positions = 8192};
//   embedpe::RopeFrequencies f = embedpe::rope_frequencies(o);   // inv_freq (64,), attention_factor
//   auto [cos, sin] = embedpe::rope_tables(f, 0, 16);             // (16, 128) each
//
// Layout as in HF (rotate_half): freqs = outer(pos, inv_freq);
// emb = cat(freqs, freqs); cos = cos(emb) · attention_factor, likewise sin.
// Computed in float64 and rounded to float32 (HF computes in float32).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <xtensor/xtensor.hpp>

namespace embedpe {

enum class RopeScaling { none, linear, dynamic, yarn, llama3 };

struct RopeOptions {
  std::size_t dim = 128;      // rotary dimension (head_dim × partial_rotary_factor), even
  double theta = 10000.0;     // rope_theta (the base)
  RopeScaling scaling = RopeScaling::none;
  double factor = 1.0;        // linear, dynamic, yarn, llama3
  std::size_t original_max_positions = 2048;  // dynamic (max_position_embeddings), yarn, llama3
  std::size_t seq_len = 0;    // dynamic: the sequence length the table is for
  double beta_fast = 32.0;    // yarn
  double beta_slow = 1.0;     // yarn
  double low_freq_factor = 1.0;   // llama3
  double high_freq_factor = 4.0;  // llama3
};

struct RopeFrequencies {
  std::vector<double> inv_freq;  // (dim/2,): radians per position
  double attention_factor = 1.0; // multiplies cos and sin (yarn's mscale)
};

RopeFrequencies rope_frequencies(const RopeOptions& options);

// The options the rope kind's parameters (rope_theta, rope_scaling, ...) give,
// as for `encode --emit rope_cos`; dim is left for the caller. Defined with the
// kind (lib/src/pe/rope.cpp), like to_json.
class PeArgs;
RopeOptions rope_options(const PeArgs& args);
// What a run records about the tables: dim, theta, scaling, its factors, attention_factor.
nlohmann::ordered_json to_json(const RopeOptions& options, const RopeFrequencies& frequencies);

// cos and sin for positions [first, first+count): each (count, dim).
std::pair<xt::xtensor<float, 2>, xt::xtensor<float, 2>> rope_tables(const RopeFrequencies& f, std::size_t first,
                                                                     std::size_t count);

}  // namespace embedpe
