// pe's run as a command asks for it (pe_command.h).
#include "embedpe/pe_command.h"

#include "embedpe/error.h"
#include "embedpe/message.h"
#include "embedpe/pretrained_model.h"

namespace embedpe {

std::vector<Param> pe_params(PeCommand& cmd) {
  const char* g = kPositionalGroup;
  const char* o = kOutputGroup;
  ParamChoice formats{.set = [&cmd](std::size_t i) { cmd.format = pe_formats()[i]; }};
  for (const PeFormat& f : pe_formats()) formats.words.push_back(f.name);
  return {
      {.name = "kind", .group = g},
      {.name = "d_model",
       .target = ParamNumber<std::optional<std::size_t>>{&cmd.d_model, 1, kMaxDModel},
       .help = "Width (the rotary dimension for RoPE)",
       .group = g},
      {.name = "max_len",
       .target = ParamNumber<std::optional<std::size_t>>{&cmd.max_len, 1, kMaxPePosition},
       .help = "Positions shown: 0..N-1 (encode's {max_len} is the size of its PE table)",
       .group = g,
       .default_text = "50"},
      {.name = "positions",
       .help = "Positions shown: A..B-1 (B excluded), e.g. 999990:1000000; instead of {max_len}",
       .group = g},
      {.name = "dims", .help = "Dimensions shown: A..B-1 (B excluded)", .group = g,
       .default_text = "0:8 in a table, else all"},
      {.name = "position_offset",
       .target = ParamNumber<std::size_t>{&cmd.position_offset, 0, kMaxPePosition - 1},
       .help = "Row l shows position l+K",
       .group = g,
       .type_name = "K"},
      {.name = "pe_params", .group = g},
      {.name = "pretrained",
       .target = &cmd.pretrained,
       .help = "A Hugging Face model directory whose positions are RoPE: its tables (rope_theta, rope_scaling; "
               "{d_model} defaults to its head_dim)",
       .group = g,
       .type_name = "DIR",
       .path = true},
      {.name = "output_path",
       .target = &cmd.output,
       .help = "Output path (- for standard output)",
       .group = o,
       .type_name = "PATH",
       .short_name = 'o'},
      {.name = "format",
       .target = std::move(formats),
       .help = "Output format",
       .group = o,
       .default_text = "from {output_path}'s extension, else table"},
      {.name = "precision",
       .target = ParamNumber<int>{&cmd.precision, 1, 9},
       .help = "Significant digits of floats in table, csv and json",
       .group = o,
       .default_text = "two decimals in a table; else the shortest that reads back exactly"},
      {.name = "stats",
       .target = ParamSwitch{&cmd.stats},
       .help = "Per dimension pair: frequency, wavelength, aliasing, incomplete periods",
       .group = o},
      {.name = "similarity",
       .target = ParamSwitch{&cmd.similarity},
       .help = "The PE . PE^T matrix of the positions",
       .group = o},
      {.name = "audit",
       .target = ParamSwitch{&cmd.audit},
       .help = "Error vs float64 of float32 computed the naive way (as the PyTorch recipe does; f32_computed) and of "
               "the exact value stored as float16, bfloat16 (f16_stored, bf16_stored)",
       .group = o},
  };
}

PeCommand pretrained_pe_command(const PeCommand& given) {
  if (given.pretrained.empty()) return given;
  PeCommand cmd = given;
  const PeKind& rope = find_pe_kind("rope");
  if (given.kind_given && given.kind != &rope) {
    Message m;
    m << "pretrained shows a model's RoPE tables: drop kind " << Verbatim{given.kind->name()};
    throw m.usage_error({"pretrained", "kind"});
  }
  cmd.kind = &rope;
  const PretrainedRope r = pretrained_rope(given.pretrained);
  if (!cmd.d_model) cmd.d_model = r.head_dim;
  cmd.args = with_values(rope, given.args, r.parameters);  // each parameter given kept
  return cmd;
}

PeInspectJob pe_inspect_job(const PeCommand& cmd, const PeFormat& format) {
  if (int(cmd.stats) + int(cmd.similarity) + int(cmd.audit) > 1) {
    throw UsageError("stats, similarity and audit are separate views; give one", {"stats", "similarity", "audit"});
  }
  Positions positions{0, cmd.max_len.value_or(50)};
  if (cmd.positions) {
    if (cmd.max_len) throw UsageError("give max_len N or positions A:B, not both", {"max_len", "positions"});
    positions = *cmd.positions;
  }
  const PeViewKind view = cmd.stats        ? PeViewKind::stats
                          : cmd.similarity ? PeViewKind::similarity
                          : cmd.audit      ? PeViewKind::audit
                                           : PeViewKind::table;
  const Dims dims = cmd.dims.value_or(Dims{0, 0});
  return {.request = {.d_model = cmd.d_model,
                      .first = positions.first,
                      .count = positions.count,
                      .position_offset = cmd.position_offset,
                      .dims_first = dims.first,
                      .dims_count = dims.count,
                      .view = view},
          .format = format,
          .precision = cmd.precision,
          .dims_label = cmd.dims_label};
}

}  // namespace embedpe
