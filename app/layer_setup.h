// The input layer's parts as the command line describes them: which
// embedding table (default N(0,1), or --weights), which positional encoding
// (a kind of the library's registry, with its parameters), offsets,
// LayerNorm. Shared by encode and lookup.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "embedpe/embedding.h"
#include "embedpe/input_layer.h"
#include "embedpe/pe_kind.h"
#include "embedpe/positional_encoding.h"
#include "embedpe/tokenizer.h"

namespace embedpe::cli {

struct TableFlags {
  std::optional<std::size_t> d_model;   // default 512, or from --weights
  std::uint64_t seed = 0;
  CLI::Option* seed_option = nullptr;   // to tell an explicit --seed
  std::string weights;                  // PATH[:TENSOR]
  std::optional<std::int64_t> padding_idx;
};

struct LayerFlags {
  TableFlags table;
  std::size_t max_len = 5000;
  std::string scale = "sqrt";
  const PeKind* pe = pe_kinds().front();  // sinusoidal
  PeArgs pe_args;                         // every kind's parameters (--convention, --rope-theta, ...)
  std::string pe_weights;
  std::optional<std::size_t> position_offset;  // default 0 (fairseq convention: padding_idx + 1)
  std::optional<std::size_t> pad_position;
  bool layernorm = false;
  double layernorm_eps = 1e-5;
  std::string layernorm_weight;
  std::string layernorm_bias;
};

void add_table_flags(CLI::App& cmd, TableFlags& flags);
void add_layer_flags(CLI::App& cmd, LayerFlags& flags);

// The embedding table: --weights (checked against --d-model and, given a
// tokenizer, its vocabulary), else N(0,1) rows for the tokenizer's
// vocabulary (a tokenizer is then required).
std::unique_ptr<EmbeddingTable> open_table(const TableFlags& flags, const Tokenizer* tokenizer);
std::size_t requested_d_model(const TableFlags& flags);

// Token l's position: l + this (fairseq's convention starts at padding_idx + 1).
std::size_t position_offset(const LayerFlags& flags);
// What the flags ask of the positional encoding, given the table's width.
LayerPeRequest pe_request(const LayerFlags& flags, std::size_t d_model);

struct LayerParts {
  std::unique_ptr<EmbeddingTable> table;
  std::unique_ptr<PositionTable> pe;  // null when the kind adds nothing (--pe none)
  InputLayerOptions options;
  nlohmann::ordered_json config;      // what the JSON output records
};

LayerParts build_layer(const LayerFlags& flags, const Tokenizer& tokenizer);

// The files the layer reads, as (flag, PATH[:TENSOR]) pairs, so that no
// output replaces one of them.
std::vector<std::pair<std::string, std::string>> layer_inputs(const LayerFlags& flags);

}  // namespace embedpe::cli
