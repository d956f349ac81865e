// embedpe pe: inspect the positional encodings of the library's registry
// (embedpe/pe_kind.h) — tables, biases, statistics — as a table, CSV or PNG
// heatmap (embedpe/pe_view.h), or through a sink (embedpe/sink.h: JSON, .npy,
// .npz, .safetensors). The kinds compute and the library checks and writes
// (pe_command.h, write_pe_inspection); this file parses the flags and
// chooses the format from --format and the output's name.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "clikit/usage.h"
#include "commands.h"
#include "common.h"
#include "embedpe/encode_command.h"  // refuse_binary_to_terminal
#include "embedpe/error.h"
#include "embedpe/pe_command.h"
#include "embedpe/pe_kind.h"
#include "embedpe/pe_view.h"
#include "embedpe/sink.h"
#include "errors.h"
#include "pe_flags.h"

namespace embedpe::cli {
namespace {

PeFormat infer_format(const PeCommand& cmd) {
  const std::string& output = cmd.output;
  if (cmd.format) {  // --format
    std::vector<std::pair<std::string, std::string>> names;  // (.txt takes a csv as well as a table)
    for (const auto& [ext, f] : pe_format_extensions()) {
      if (!f.is(PeView::table)) names.emplace_back(ext, f.name);
    }
    refuse_contradicting_extension(output, cmd.format->name, names);
    return *cmd.format;
  }
  return format_from_extension(output, pe_format_extensions()).value_or(pe_formats().front());
}

void run_pe(const PeCommand& given, const TakePeInspection& take) {
  const PeCommand cmd = pretrained_pe_command(given);  // --pretrained's RoPE, each flag given overriding its part
  // An output that would overwrite an input (T5's --weights table) is the first thing refused.
  refuse_outputs_over_inputs({cmd.output}, as_flags(cmd.kind->inputs(cmd.args)));
  const PeFormat format = infer_format(cmd);
  if (format.binary()) refuse_binary_to_terminal(cmd.output, format.binary_name());
  const PeInspectJob job = pe_inspect_job(cmd, format);
  if (take) {
    take(*cmd.kind, cmd.args, job);
  } else {
    write_pe_inspection(*cmd.kind, cmd.args, job, cmd.output);
  }
}

}  // namespace

void setup_pe(CLI::App& app, TakePeInspection take) {
  auto cmd = std::make_shared<PeCommand>();
  PeCommand& run = *cmd;
  run.dims_label = "--dims";
  const auto inspectable = [](const PeKind& k) { return k.inspectable(); };
  std::string labels;
  for (const PeKind* k : pe_kinds()) {
    if (k->inspectable()) labels += (labels.empty() ? "" : ", ") + std::string(k->label());
  }
  auto* sub = app.add_subcommand("pe", "Inspect positional encodings: " + labels);
  const ParamHooks hooks = {
      {"kind", [sub, &run, inspectable](const std::string&) {
         const std::string help = "What to inspect: " + pe_kind_list(inspectable);
         return add_pe_kind_option(*sub, "--kind", run.kind, inspectable, help);
       }},
      {"positions", [sub, &run](const std::string& help) {
         return add_span(*sub, "--positions", run.positions, kMaxPePosition, help);
       }},
      {"dims", [sub, &run](const std::string& help) { return add_span(*sub, "--dims", run.dims, kMaxDModel, help); }},
      {"pe_params", [sub, &run, inspectable](const std::string&) {
         add_pe_params(*sub, run.args, PeParam::Use::inspect, inspectable);
         return static_cast<CLI::Option*>(nullptr);
       }}};
  add_params(*sub, pe_params(run), hooks);
  clikit::set_examples(*sub, {
                       "embedpe pe --max-len 8 --d-model 16                    # the sinusoidal table",
                       "embedpe pe --max-len 128 --d-model 64 -o pe.png",
                       "embedpe pe --kind t5 --max-len 16 --num-buckets 32 --max-distance 128"});
  sub->callback([cmd, take, sub] {
    cmd->kind_given = sub->count("--kind") > 0;
    run_pe(*cmd, take);
  });
}

}  // namespace embedpe::cli
