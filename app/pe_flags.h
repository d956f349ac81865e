// The positional-encoding registry (embedpe/pe_kind.h) as flags: every
// kind's parameters become --kebab-case options, and the choice of kind is
// one option over the registry's names. No kind is named here: a new kind
// brings its flags with it.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "embedpe/pe_kind.h"

namespace embedpe::cli {

// Offers the parameters that matter for `use` (layer: encode; inspect: pe) of
// every kind that `offered` selects, each once, storing what is given in `args`.
void add_pe_params(CLI::App& cmd, PeArgs& args, PeParam::Use use, const std::function<bool(const PeKind&)>& offered);

// `flag` choosing among the kinds that `offered` selects.
CLI::Option* add_pe_kind_option(CLI::App& cmd, const std::string& flag, const PeKind*& kind,
                                const std::function<bool(const PeKind&)>& offered, const std::string& help);

// "a, b or c": the kinds `offered` selects (the first is the default).
std::string pe_kind_list(const std::function<bool(const PeKind&)>& offered);

}  // namespace embedpe::cli
