// The input layer's flags: each one sets a field of the library's LayerSpec
// (embedpe/layer_spec.h), which builds the layer. Shared by encode and lookup.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "embedpe/layer_spec.h"
#include "embedpe/model_source.h"

namespace embedpe::cli {

struct LayerFlags {
  LayerSpec spec;                       // every field but scale is set by its flag
  std::string scale = "sqrt";           // --scale, parsed into spec.scale by layer_spec()
  std::string pretrained;               // --pretrained DIR: the spec read from a model directory
  const CLI::App* cmd = nullptr;        // the command the flags belong to: which were given

  // Whether the flag of a layer parameter was given.
  IsGiven is_given() const;
};

// --d-model, --seed, --init, --weights, --padding-idx, --factorize, --projection.
void add_table_flags(CLI::App& cmd, TableSpec& table);
void add_layer_flags(CLI::App& cmd, LayerFlags& flags);

// The spec the flags describe: with --pretrained, the directory's (read
// from `source`), each flag given overriding its own part; `dtype`, the
// output's, is the one the model is taken to run in (pretrained_scale).
LayerSpec layer_spec(const LayerFlags& flags, const ModelSource& source, DType dtype = DType::float32);

}  // namespace embedpe::cli
