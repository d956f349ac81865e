// The input layer's flags: each one sets a field of the library's LayerSpec
// (embedpe/layer_spec.h), which builds the layer. Shared by encode and lookup.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "embedpe/layer_spec.h"

namespace embedpe::cli {

struct LayerFlags {
  LayerSpec spec;                       // every field but scale is set by its flag
  std::string scale = "sqrt";           // --scale, parsed into spec.scale by layer_spec()
};

// --d-model, --seed, --init, --weights, --padding-idx, --factorize, --projection.
void add_table_flags(CLI::App& cmd, TableSpec& table);
void add_layer_flags(CLI::App& cmd, LayerFlags& flags);

// The spec the flags describe.
LayerSpec layer_spec(const LayerFlags& flags);

}  // namespace embedpe::cli
