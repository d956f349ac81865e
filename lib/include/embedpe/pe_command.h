// pe's run as a command asks for it, once its front end has parsed what was
// given into a PeCommand: a model's RoPE taken from its config, the views and
// positions checked, and the inspection write_pe_inspection writes
// (pe_view.h). The front end keeps the choice of format from its own names
// and the refusal of an output over an input by its names for them.
//
//   PeCommand cmd = pretrained_pe_command(given);  // given.pretrained's RoPE, if any
//   PeInspectJob job = pe_inspect_job(cmd, format);
//   write_pe_inspection(*cmd.kind, cmd.args, job, cmd.output);
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "embedpe/dims.h"
#include "embedpe/param_table.h"
#include "embedpe/pe_kind.h"
#include "embedpe/pe_view.h"

namespace embedpe {

// Positions [first, first + count).
struct Positions {
  std::size_t first = 0, count = 0;
};

struct PeCommand {
  const PeKind* kind = pe_kinds().front();  // sinusoidal
  bool kind_given = false;                  // kind was chosen, not the default
  PeArgs args;                              // the kinds' parameters given
  std::string pretrained;                   // a model directory whose positions are RoPE
  std::optional<std::size_t> d_model;
  std::optional<std::size_t> max_len;       // positions 0..max_len-1; default 50
  std::optional<Positions> positions;       // instead of max_len
  std::optional<Dims> dims;                 // the columns shown
  std::size_t position_offset = 0;
  bool stats = false, similarity = false, audit = false;  // the views; none: the table
  int precision = 0;                        // significant digits of text; 0: the format's default
  std::string output = "-";
  std::optional<PeFormat> format;           // given; unset: the front end's choice by output's name
  std::string dims_label = "dims";          // how a text table's title names dims
};

// pe's parameters: kind, d_model, max_len, positions, dims, position_offset,
// pe_params (the kinds' own), pretrained, output_path, format, precision,
// stats, similarity, audit; without target: kind, positions, dims, pe_params.
std::vector<Param> pe_params(PeCommand& cmd);

// `given` itself without pretrained; else the model's RoPE: kind rope (a
// UsageError naming pretrained and kind if another was chosen), d_model its
// head_dim unless given, its config's parameters under those given.
PeCommand pretrained_pe_command(const PeCommand& given);

// The inspection `cmd` asks for in `format`: one view at most, max_len or
// positions (UsageErrors naming them).
PeInspectJob pe_inspect_job(const PeCommand& cmd, const PeFormat& format);

}  // namespace embedpe
