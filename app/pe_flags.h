// Flags for positional-encoding conventions and RoPE, shared by `pe` and
// `encode`.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "embedpe/positional_encoding.h"
#include "embedpe/rope.h"

namespace embedpe::cli {

enum class Convention { paper, marian, fairseq, tensor2tensor };

struct SinusoidalFlags {
  std::optional<Convention> convention;
  std::optional<PeLayout> layout;
  std::optional<PeFrequencies> frequencies;
  double base = 10000.0;
  double position_scale = 1.0;
};

struct RopeFlags {
  RopeOptions options;  // dim is set from --d-model
};

void add_sinusoidal_flags(CLI::App& cmd, SinusoidalFlags& flags);
void add_rope_flags(CLI::App& cmd, RopeFlags& flags);

// The options the flags describe; --layout/--pe-freq override the convention.
// fairseq's convention also zeroes the row of `padding_idx` (default 1).
SinusoidalOptions sinusoidal_options(const SinusoidalFlags& flags, std::size_t d_model, std::size_t max_len,
                                     std::optional<std::size_t> padding_idx);
nlohmann::ordered_json sinusoidal_json(const SinusoidalOptions& o);
nlohmann::ordered_json rope_json(const RopeOptions& o, const RopeFrequencies& f);

}  // namespace embedpe::cli
