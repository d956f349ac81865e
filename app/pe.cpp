// embedpe pe: inspect the positional encodings of the library's registry
// (embedpe/pe_kind.h) — tables, biases, statistics — as a table, CSV or PNG
// heatmap (embedpe/pe_view.h), or through a sink (embedpe/sink.h: JSON, .npy,
// .npz, .safetensors). The kinds compute and the library checks and writes
// (write_pe_inspection); this file parses the flags.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "clikit/usage.h"
#include "commands.h"
#include "common.h"
#include "embedpe/error.h"
#include "embedpe/pe_kind.h"
#include "embedpe/pe_view.h"
#include "embedpe/pretrained_model.h"
#include "embedpe/sink.h"
#include "errors.h"
#include "pe_flags.h"

namespace embedpe::cli {
namespace {

struct PeCommand {
  const PeKind* kind = pe_kinds().front();  // sinusoidal
  std::optional<std::size_t> d_model;
  std::optional<std::size_t> max_len;
  std::optional<Span> positions;
  std::optional<Span> dims;
  std::optional<PeFormat> format;
  std::string output = "-";
  PeArgs args;  // the kinds' parameters (--convention, --rope-theta, --heads, ...)
  std::string pretrained;  // --pretrained DIR: the model's RoPE
  const CLI::App* sub = nullptr;
  std::size_t position_offset = 0;
  bool stats = false, show_similarity = false, audit = false;
  int precision = 0;  // --precision: significant digits in table, csv and json; 0: the default
};

PeFormat infer_format(const PeCommand& cmd) {
  if (cmd.format) {
    std::vector<std::pair<std::string, std::string>> names;  // (.txt takes a csv as well as a table)
    for (const auto& [ext, f] : pe_format_extensions()) {
      if (!f.is(PeView::table)) names.emplace_back(ext, f.name);
    }
    refuse_contradicting_extension(cmd.output, cmd.format->name, names);
    return *cmd.format;
  }
  return format_from_extension(cmd.output, pe_format_extensions()).value_or(pe_formats().front());
}

// pe --pretrained DIR: the RoPE of the model's config.json, each flag given overriding its part.
PeCommand with_pretrained(const PeCommand& given) {
  PeCommand cmd = given;
  const PeKind& rope = find_pe_kind("rope");
  if (given.sub->count("--kind") && given.kind != &rope) {
    throw UsageError("--pretrained shows a model's RoPE tables: drop --kind " + std::string(given.kind->name()));
  }
  cmd.kind = &rope;
  const PretrainedRope r = pretrained_rope(given.pretrained);
  if (!cmd.d_model) cmd.d_model = r.head_dim;
  cmd.args = with_values(rope, given.args, r.parameters);  // each flag given kept
  return cmd;
}

void run_pe(const PeCommand& given, const TakePeInspection& take) {
  const PeCommand cmd = given.pretrained.empty() ? given : with_pretrained(given);
  // An output that would overwrite an input (T5's --weights table) is the first thing refused.
  refuse_outputs_over_inputs({cmd.output}, as_flags(cmd.kind->inputs(cmd.args)));
  const PeFormat format = infer_format(cmd);
  if (format.binary()) refuse_binary_to_terminal(cmd.output, format.binary_name());
  if (int(cmd.stats) + int(cmd.show_similarity) + int(cmd.audit) > 1) {
    throw UsageError("--stats, --similarity and --audit are separate views; give one");
  }
  Span positions{0, cmd.max_len.value_or(50)};
  if (cmd.positions) {
    if (cmd.max_len) throw UsageError("give --max-len N or --positions A:B, not both");
    positions = *cmd.positions;
  }
  const PeViewKind view = cmd.stats             ? PeViewKind::stats
                          : cmd.show_similarity ? PeViewKind::similarity
                          : cmd.audit           ? PeViewKind::audit
                                                : PeViewKind::table;
  const Span dims = cmd.dims.value_or(Span{0, 0});
  const PeInspectJob job{.request = {.d_model = cmd.d_model, .first = positions.first, .count = positions.count,
                                     .position_offset = cmd.position_offset, .dims_first = dims.first,
                                     .dims_count = dims.count, .view = view},
                         .format = format, .precision = cmd.precision, .dims_label = "--dims"};
  if (take) {
    take(*cmd.kind, cmd.args, job);
  } else {
    write_pe_inspection(*cmd.kind, cmd.args, job, cmd.output);
  }
}

}  // namespace

void setup_pe(CLI::App& app, TakePeInspection take) {
  auto cmd = std::make_shared<PeCommand>();
  const auto inspectable = [](const PeKind& k) { return k.inspectable(); };
  std::string labels;
  for (const PeKind* k : pe_kinds()) {
    if (k->inspectable()) labels += (labels.empty() ? "" : ", ") + std::string(k->label());
  }
  auto* sub = app.add_subcommand("pe", "Inspect positional encodings: " + labels);
  option_group(*sub, kPositionalGroup);
  add_pe_kind_option(*sub, "--kind", cmd->kind, inspectable, "What to inspect: " + pe_kind_list(inspectable));
  add_number(*sub, "--d-model", cmd->d_model, 1, kMaxDModel, "Width (the rotary dimension for RoPE)");
  add_number(*sub, "--max-len", cmd->max_len, 1, kMaxPePosition,
             "Positions shown: 0..N-1 (encode's --max-len is the size of its PE table)")
      ->default_str("50");
  add_span(*sub, "--positions", cmd->positions, kMaxPePosition,
           "Positions shown: A..B-1 (B excluded), e.g. 999990:1000000; instead of --max-len");
  add_span(*sub, "--dims", cmd->dims, kMaxDModel, "Dimensions shown: A..B-1 (B excluded)")
      ->default_str("0:8 in a table, else all");
  add_number(*sub, "--position-offset", cmd->position_offset, 0, kMaxPePosition - 1, "Row l shows position l+K")
      ->type_name("K");
  add_pe_params(*sub, cmd->args, PeParam::Use::inspect, inspectable);
  cmd->sub = sub;
  sub->add_option("--pretrained", cmd->pretrained,
                  "A Hugging Face model directory whose positions are RoPE: its tables (rope_theta, rope_scaling; "
                  "--d-model defaults to its head_dim)")
      ->type_name("DIR")
      ->check(non_empty_path());
  add_output_option(*sub, cmd->output);
  std::vector<std::pair<std::string, PeFormat>> formats;
  for (const PeFormat& f : pe_formats()) formats.emplace_back(f.name, f);
  add_choice<PeFormat>(*sub, "--format", [cmd](PeFormat f) { cmd->format = f; }, formats, "Output format",
                     "from --output's extension, else table");
  add_precision_option(*sub, cmd->precision, "table, csv and json")
      ->default_str("two decimals in a table; else the shortest that reads back exactly");
  sub->add_flag("--stats", cmd->stats, "Per dimension pair: frequency, wavelength, aliasing, incomplete periods");
  sub->add_flag("--similarity", cmd->show_similarity, "The PE . PE^T matrix of the positions");
  sub->add_flag("--audit", cmd->audit, "Error vs float64 of float32 computed the naive way (as the PyTorch recipe does; "
                "f32_computed) and of the exact value stored as float16, bfloat16 (f16_stored, bf16_stored)");
  clikit::set_examples(*sub, {
                       "embedpe pe --max-len 8 --d-model 16                    # the sinusoidal table",
                       "embedpe pe --max-len 128 --d-model 64 -o pe.png",
                       "embedpe pe --kind t5 --max-len 16 --num-buckets 32 --max-distance 128"});
  sub->callback([cmd, take] { run_pe(*cmd, take); });
}

}  // namespace embedpe::cli
