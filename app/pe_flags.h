// The library's parameters as flags: its parameter tables
// (embedpe/param_table.h) and the positional-encoding registry
// (embedpe/pe_kind.h). Every parameter becomes a --kebab-case option, and the
// choice of PE kind is one option over the registry's names. No kind is
// named here: a new kind brings its flags with it.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "embedpe/param_table.h"
#include "embedpe/pe_kind.h"

namespace embedpe::cli {

// What adds a parameter the table leaves to the front end, given its help
// (its flags spelled); the option it returns, if any, takes the table's
// type name, path check and default.
using ParamHooks = std::map<std::string, std::function<CLI::Option*(const std::string& help)>, std::less<>>;

// Each parameter of `params` as an option, in order, in its help group; one
// without a target is added by hooks.at(its name).
void add_params(CLI::App& cmd, const std::vector<Param>& params, const ParamHooks& hooks = {});

// Offers the parameters that matter for `use` (layer: encode; inspect: pe) of
// every kind that `offered` selects, each once, storing what is given in `args`.
void add_pe_params(CLI::App& cmd, PeArgs& args, PeParam::Use use, const std::function<bool(const PeKind&)>& offered);

// `flag` choosing among the kinds that `offered` selects.
CLI::Option* add_pe_kind_option(CLI::App& cmd, const std::string& flag, const PeKind*& kind,
                                const std::function<bool(const PeKind&)>& offered, const std::string& help);

// "a, b or c": the kinds `offered` selects (the first is the default).
std::string pe_kind_list(const std::function<bool(const PeKind&)>& offered);

}  // namespace embedpe::cli
