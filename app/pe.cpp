// embedpe pe: inspect the positional encodings of the library's registry
// (embedpe/pe_kind.h) — tables, biases, statistics — as a table, CSV or PNG
// heatmap (embedpe/pe_view.h), or through a sink (embedpe/sink.h: JSON, .npy,
// .npz, .safetensors). The kinds compute and the library writes; this file
// parses the flags, checks what fits in memory and picks the writer.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "clikit/usage.h"
#include "commands.h"
#include "common.h"
#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/pe_kind.h"
#include "embedpe/pe_view.h"
#include "embedpe/sink.h"
#include "memory.h"
#include "parallel.h"
#include "pe_flags.h"

namespace embedpe::cli {
namespace {

// What pe writes: a view of its own, or a sink format's file.
struct Format {
  std::optional<PeView> view;
  const SinkFormat* sink = nullptr;

  bool is(PeView v) const { return view == v; }
  bool binary() const { return sink ? sink->traits.binary : view == PeView::png; }
  // How a refusal to write to a terminal names it.
  std::string binary_name() const { return sink ? "." + std::string(sink->name) : "PNG"; }
};

// pe's formats in the order it lists them: its views among the sinks it has
// always offered, then any other format that holds tables.
std::vector<std::pair<std::string, Format>> formats() {
  std::vector<std::pair<std::string, Format>> all = {{"table", {PeView::table}}};
  auto sink = [&](const char* name) { all.push_back({name, {std::nullopt, find_sink_format(name)}}); };
  sink("json");
  all.push_back({"csv", {PeView::csv}});
  sink("npy");
  sink("npz");
  all.push_back({"png", {PeView::png}});
  for (const SinkFormat* f : sink_formats()) {
    const bool listed = std::any_of(all.begin(), all.end(), [&](const auto& e) { return e.second.sink == f; });
    if (f->traits.tables && !listed) all.push_back({f->name, {std::nullopt, f}});
  }
  return all;
}

struct PeCommand {
  const PeKind* kind = pe_kinds().front();  // sinusoidal
  std::optional<std::size_t> d_model;
  std::optional<std::size_t> max_len;
  std::optional<Span> positions;
  std::optional<Span> dims;
  std::optional<Format> format;
  std::string output = "-";
  PeArgs args;  // the kinds' parameters (--convention, --rope-theta, --heads, ...)
  std::size_t position_offset = 0;
  bool stats = false, show_similarity = false, audit = false;
  int precision = 0;  // --precision: significant digits in table, csv and json; 0: the default
};

using Range = Span;

Format infer_format(const PeCommand& cmd) {
  std::vector<std::pair<std::string, Format>> extensions = {{".txt", {PeView::table}}};
  std::vector<std::pair<std::string, std::string>> names;  // (.txt takes a csv as well as a table)
  for (const auto& [name, f] : formats()) {
    if (f.sink) {
      for (const std::string& ext : f.sink->extensions) {
        extensions.emplace_back(ext, f);
        names.emplace_back(ext, name);
      }
    } else if (!f.is(PeView::table)) {
      extensions.emplace_back("." + name, f);
      names.emplace_back("." + name, name);
    }
  }
  if (cmd.format) {
    std::string given = "table";
    for (const auto& [name, f] : formats()) {
      if (f.view == cmd.format->view && f.sink == cmd.format->sink) given = name;
    }
    refuse_contradicting_extension(cmd.output, given, names);
    return *cmd.format;
  }
  return format_from_extension<Format>(cmd.output, extensions).value_or(Format{PeView::table});
}

// The bytes a matrix of rows x cols takes as `format` output on top of its
// floats: the text of table/csv is built whole; JSON is rendered in chunks.
std::size_t text_bytes(Format format, std::size_t rows, std::size_t cols) {
  if (format.is(PeView::table) || format.is(PeView::csv)) {
    return checked_product({rows, cols, 16}, "the " + std::string(format.is(PeView::table) ? "table" : "CSV"));
  }
  return 0;
}

PeViewKind view_of(const PeCommand& cmd) {
  if (cmd.stats) return PeViewKind::stats;
  if (cmd.show_similarity) return PeViewKind::similarity;
  if (cmd.audit) return PeViewKind::audit;
  return PeViewKind::table;
}

void run_pe(const PeCommand& cmd) {
  // An output that would overwrite an input (T5's --weights table) is the first thing refused.
  refuse_outputs_over_inputs({cmd.output}, pe_arg_inputs(*cmd.kind, cmd.args));
  const Format format = infer_format(cmd);
  if (format.binary()) refuse_binary_to_terminal(cmd.output, format.binary_name());
  if (int(cmd.stats) + int(cmd.show_similarity) + int(cmd.audit) > 1) {
    throw UsageError("--stats, --similarity and --audit are separate views; give one");
  }
  const PeKind& kind = *cmd.kind;
  const PeViewKind view = view_of(cmd);
  if (cmd.precision && format.binary()) {
    throw UsageError("--precision sets the digits of text (table, csv, json); " + format.binary_name() +
                     " keeps floats exact: drop --precision");
  }
  if (cmd.dims && !kind.needs_d_model()) {
    throw UsageError("--dims chooses columns of a table d_model wide; --kind " + std::string(kind.name()) +
                     " has no such width: drop --dims");
  }
  if (cmd.dims && view != PeViewKind::table) {
    throw UsageError("--dims chooses the columns of the table; --stats, --similarity and --audit use every dim: "
                     "drop --dims");
  }
  Range positions{0, cmd.max_len.value_or(50)};
  if (cmd.positions) {
    if (cmd.max_len) throw UsageError("give --max-len N or --positions A:B, not both");
    positions = *cmd.positions;
  }
  PeInspectRequest request{.d_model = cmd.d_model, .first = positions.first, .count = positions.count,
                           .position_offset = cmd.position_offset, .view = view, .text_table = format.is(PeView::table),
                           .csv = format.is(PeView::csv), .whole = format.sink && !format.sink->traits.one_tensor};
  // --dims, or by default every dim (the first 8 in a table).
  const bool table = kind.needs_d_model() && view == PeViewKind::table && cmd.d_model;
  const std::size_t d = cmd.d_model.value_or(0);
  const Range dims = cmd.dims.value_or(Range{0, format.is(PeView::table) ? std::min<std::size_t>(d, 8) : d});
  if (table) {
    request.dims_first = dims.first;
    request.dims_count = dims.count;
  }
  check_pe_args(cmd.args, {&kind}, PeParam::Use::inspect, "kind");
  kind.check_inspection(cmd.args, request);
  // A table's default leaves out the dims beyond the first 8.
  const std::size_t hidden_dims = table && format.is(PeView::table) && !cmd.dims && dims.count < d ? d : 0;
  if (table) {
    const std::size_t cols = kind.view_columns(cmd.args, request);
    const std::string what = "a PE table of " + std::to_string(positions.count) + " positions x " +
                             std::to_string(cols) + " dims";
    check_allocation(checked_sum({checked_product({positions.count, cols, sizeof(float)}, what),
                                  text_bytes(format, positions.count, cols)}, what),
                     what, "lower --d-model, show fewer positions (--max-len, --positions) or fewer --dims");
  }
  // The output is opened before computing, so that an unwritable one is
  // refused first. Tables go through the sink; stats and audit are lists,
  // written as text (JSON for a sink's format), like every view of pe's own.
  const bool records = view == PeViewKind::stats || view == PeViewKind::audit;
  if (format.sink && !records) {
    std::unique_ptr<TensorSink> sink = format.sink->make(cmd.output);
    sink->begin({.threads = usable_threads(available_cores()), .precision = cmd.precision});
    PeInspection v = kind.inspect(cmd.args, request);
    if (cmd.precision) v.config["precision"] = cmd.precision;
    sink->add_tables(pe_tables(v, positions.first, positions.count, format.sink->traits));
    sink->finish();
    return;
  }
  OutputFile out(cmd.output);
  PeInspection v = kind.inspect(cmd.args, request);
  if (v.note_hidden_dims && hidden_dims) {
    v.title += " (dims 0:" + std::to_string(request.dims_count) + " of " + std::to_string(hidden_dims) +
               "; choose with --dims)";
  }
  if (format.view) {
    write_pe_view(out, *format.view, v, cmd.precision);
  } else {
    write_pe_records(out, *format.sink, v);
  }
  out.commit();
}

}  // namespace

void setup_pe(CLI::App& app) {
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
  add_number(*sub, "--max-len", cmd->max_len, 1, kMaxPosition,
             "Positions shown: 0..N-1 (encode's --max-len is the size of its PE table)")
      ->default_str("50");
  sub->add_option_function<std::string>(
         "--positions", [cmd](const std::string& v) { cmd->positions = parse_span("--positions", v, kMaxPosition); },
         "Positions shown: A..B-1 (B excluded), e.g. 999990:1000000; instead of --max-len")
      ->type_name("A:B");
  sub->add_option_function<std::string>(
         "--dims", [cmd](const std::string& v) { cmd->dims = parse_span("--dims", v, kMaxDModel); },
         "Dimensions shown: A..B-1 (B excluded)")
      ->type_name("A:B")
      ->default_str("0:8 in a table, else all");
  add_number(*sub, "--position-offset", cmd->position_offset, 0, kMaxPosition - 1, "Row l shows position l+K")
      ->type_name("K");
  add_pe_params(*sub, cmd->args, PeParam::Use::inspect, inspectable);
  add_output_option(*sub, cmd->output);
  add_choice<Format>(*sub, "--format", [cmd](Format f) { cmd->format = f; }, formats(), "Output format",
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
  sub->callback([cmd] { run_pe(*cmd); });
}

}  // namespace embedpe::cli
