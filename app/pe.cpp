// embedpe pe: inspect the positional encodings of the library's registry
// (embedpe/pe_kind.h) — tables, biases, statistics — as a table, JSON, CSV,
// .npy/.npz or a PNG heatmap. The kinds compute; this file parses the flags,
// checks what fits in memory and writes.
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "commands.h"
#include "common.h"
#include "embedpe/error.h"
#include "embedpe/heatmap.h"
#include "json_writer.h"
#include "memory.h"
#include "embedpe/output_file.h"
#include "parallel.h"
#include "embedpe/pe_kind.h"
#include "embedpe/tensor_io.h"
#include "pe_flags.h"

namespace embedpe::cli {
namespace {

enum class Format { table, json, csv, npy, npz, png };

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
};

using Range = Span;

std::string span_text(Range r) { return std::to_string(r.first) + ":" + std::to_string(r.first + r.count); }

std::string shortest(double v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, static_cast<float>(v));
  return std::string(buf, r.ptr);
}

Format infer_format(const PeCommand& cmd) {
  if (cmd.format) return *cmd.format;
  return format_from_extension<Format>(cmd.output, {{".txt", Format::table},
                                                    {".json", Format::json},
                                                    {".csv", Format::csv},
                                                    {".npy", Format::npy},
                                                    {".npz", Format::npz},
                                                    {".png", Format::png}})
      .value_or(Format::table);
}

// A matrix with the labels of its rows and columns.
struct Labelled {
  xt::xtensor<float, 2> values;  // (rows, cols)
  std::string row_label, col_label;
  std::size_t row_first = 0, col_first = 0;
};

void write_matrix(OutputFile& out, Format format, const Labelled& m, const std::string& title,
                  const nlohmann::ordered_json& config, const std::string& name) {
  const std::size_t rows = m.values.shape()[0], cols = m.values.shape()[1];
  switch (format) {
    case Format::table: {
      std::string text = "# " + title + "\n";
      char cell[64];
      std::snprintf(cell, sizeof cell, "%10s", (m.row_label.substr(0, 3) + "\\" + m.col_label.substr(0, 3)).c_str());
      text += cell;
      for (std::size_t c = 0; c < cols; ++c) {
        std::snprintf(cell, sizeof cell, " %6zu", m.col_first + c);
        text += cell;
      }
      text += "\n";
      for (std::size_t r = 0; r < rows; ++r) {
        std::snprintf(cell, sizeof cell, "%10zu", m.row_first + r);
        text += cell;
        for (std::size_t c = 0; c < cols; ++c) {
          // Two decimals like the tables tutorials print; "-0.00" would only be noise.
          double v = m.values(r, c);
          if (std::abs(v) < 0.005) v = 0.0;
          std::snprintf(cell, sizeof cell, " %6.2f", v);
          text += cell;
        }
        text += "\n";
      }
      out.write(text);
      break;
    }
    case Format::csv: {
      std::string text = m.row_label;
      for (std::size_t c = 0; c < cols; ++c) text += "," + m.col_label + std::to_string(m.col_first + c);
      text += "\n";
      for (std::size_t r = 0; r < rows; ++r) {
        text += std::to_string(m.row_first + r);
        for (std::size_t c = 0; c < cols; ++c) text += "," + shortest(m.values(r, c));
        text += "\n";
        if (text.size() > (1u << 20)) {
          out.write(text);
          text.clear();
        }
      }
      out.write(text);
      break;
    }
    case Format::json: {
      nlohmann::ordered_json meta = {{"config", config},
                                     {m.row_label + "s", {{"first", m.row_first}, {"count", rows}}},
                                     {m.col_label + "s", {{"first", m.col_first}, {"count", cols}}}};
      write_json(out, meta, {tensor_ref(name, m.values)}, available_cores());
      break;
    }
    case Format::npy: write_npy(out, tensor_ref(name, m.values)); break;
    case Format::npz: write_npz(out, {tensor_ref(name, m.values)}); break;
    case Format::png:
      write_heatmap_png(out, {.values = m.values, .title = title, .row_label = m.row_label,
                              .col_label = m.col_label, .row_first = m.row_first, .col_first = m.col_first});
      break;
  }
}

void write_records(OutputFile& out, Format format, const std::vector<std::string>& columns,
                   const std::vector<std::vector<std::string>>& rows, const std::string& title,
                   const nlohmann::ordered_json& config, const std::string& key) {
  if (format == Format::json) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& r : rows) {
      nlohmann::ordered_json o;
      for (std::size_t k = 0; k < columns.size(); ++k) {
        const std::string& v = r[k];
        if (v == "yes" || v == "no") o[columns[k]] = v == "yes";
        else o[columns[k]] = nlohmann::ordered_json::parse(v);
      }
      list.push_back(o);
    }
    out.write(nlohmann::ordered_json{{"config", config}, {key, list}}.dump(1) + "\n");
    return;
  }
  if (format != Format::table && format != Format::csv) {
    throw UsageError("this analysis is written as table, csv or json");
  }
  std::string text;
  if (format == Format::csv) {
    for (std::size_t k = 0; k < columns.size(); ++k) text += (k ? "," : "") + columns[k];
    text += "\n";
    for (const auto& r : rows) {
      for (std::size_t k = 0; k < r.size(); ++k) text += (k ? "," : "") + r[k];
      text += "\n";
    }
  } else {
    text = "# " + title + "\n";
    std::vector<std::size_t> width(columns.size());
    for (std::size_t k = 0; k < columns.size(); ++k) {
      width[k] = columns[k].size();
      for (const auto& r : rows) width[k] = std::max(width[k], r[k].size());
    }
    auto line = [&](const std::vector<std::string>& cells) {
      for (std::size_t k = 0; k < cells.size(); ++k) {
        text += (k ? "  " : "") + std::string(width[k] - cells[k].size(), ' ') + cells[k];
      }
      text += "\n";
    };
    line(columns);
    for (const auto& r : rows) line(r);
  }
  out.write(text);
}

// --dims, or by default every dim (the first 8 in a table); within d.
Range shown_dims(const PeCommand& cmd, Format format, std::size_t d) {
  if (!cmd.dims) return {0, format == Format::table ? std::min<std::size_t>(d, 8) : d};
  if (cmd.dims->first + cmd.dims->count > d) {
    throw UsageError("--dims " + span_text(*cmd.dims) + " goes beyond d_model " + std::to_string(d) +
                     "; choose dims below " + std::to_string(d));
  }
  return *cmd.dims;
}

// The bytes a matrix of rows x cols takes as `format` output on top of its
// floats: the text of table/csv is built whole; JSON is rendered in chunks.
std::size_t text_bytes(Format format, std::size_t rows, std::size_t cols) {
  if (format == Format::table || format == Format::csv) {
    return checked_product({rows, cols, 16}, "the " + std::string(format == Format::table ? "table" : "CSV"));
  }
  return 0;
}

PeViewKind view_of(const PeCommand& cmd) {
  if (cmd.stats) return PeViewKind::stats;
  if (cmd.show_similarity) return PeViewKind::similarity;
  if (cmd.audit) return PeViewKind::audit;
  return PeViewKind::table;
}

bool offers(const PeKind& kind, PeViewKind view) {
  const auto views = kind.views();
  return std::find(views.begin(), views.end(), view) != views.end();
}

// "a, b or c": the inspectable kinds that offer `view`.
std::string kinds_offering(PeViewKind view) {
  std::vector<std::string> names;
  for (const PeKind* k : pe_kinds()) {
    if (k->inspectable() && offers(*k, view)) names.emplace_back(k->name());
  }
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return text;
}

void write_inspection(OutputFile& out, Format format, const PeInspection& v, Range positions) {
  if (v.records) {
    const bool text = format == Format::table || format == Format::csv;
    write_records(out, v.records_as_json && !text ? Format::json : format, v.records->columns, v.records->rows,
                  v.title, v.config, v.records->key);
    return;
  }
  std::vector<TensorRef> tensors;
  for (const PeTensor& t : v.tensors) {
    std::visit([&](const auto& values) { tensors.push_back(tensor_ref(t.name, values)); }, t.values);
  }
  if (!tensors.empty() && format == Format::json) {
    write_json(out, {{"config", v.config}, {"positions", {{"first", positions.first}, {"count", positions.count}}}},
               tensors, available_cores());
    return;
  }
  if (!tensors.empty() && format == Format::npz) return write_npz(out, tensors);
  if (v.npy_tensor && format == Format::npy) return write_npy(out, tensors.at(*v.npy_tensor));
  if (!v.matrix) throw UsageError("this view is written as json or npz");
  const PeMatrix& m = *v.matrix;
  write_matrix(out, format, {m.values, m.row_label, m.col_label, m.row_first, m.col_first}, v.title, v.config,
               v.matrix_name);
}

void run_pe(const PeCommand& cmd) {
  const Format format = infer_format(cmd);
  if (format == Format::npy || format == Format::npz || format == Format::png) {
    refuse_binary_to_terminal(cmd.output, format == Format::npy ? ".npy" : format == Format::npz ? ".npz" : "PNG");
  }
  if (int(cmd.stats) + int(cmd.show_similarity) + int(cmd.audit) > 1) {
    throw UsageError("--stats, --similarity and --audit are separate views; give one");
  }
  const PeKind& kind = *cmd.kind;
  const PeViewKind view = view_of(cmd);
  if (kind.needs_d_model() && !cmd.d_model) throw UsageError("--d-model is required");
  if ((cmd.show_similarity || cmd.audit) && !offers(kind, view)) {
    throw UsageError("--similarity and --audit apply to --kind " + kinds_offering(view));
  }
  if (cmd.stats && !offers(kind, view)) throw UsageError("--stats applies to --kind " + kinds_offering(view));
  Range positions{0, cmd.max_len.value_or(50)};
  if (cmd.positions) {
    if (cmd.max_len) throw UsageError("give --max-len N or --positions A:B, not both");
    positions = *cmd.positions;
  }
  // Positions stay below 2^53, where float64 holds every whole number exactly.
  if (positions.first + positions.count > kMaxPosition - cmd.position_offset) {
    throw UsageError("positions " + span_text(positions) + (cmd.position_offset ? " with --position-offset " +
                     std::to_string(cmd.position_offset) : "") + " go beyond " + std::to_string(kMaxPosition) +
                     " (2^53, where float64 positions stop being exact); lower --positions" +
                     (cmd.position_offset ? " or --position-offset" : ""));
  }
  PeInspectRequest request{.d_model = cmd.d_model, .first = positions.first, .count = positions.count,
                           .position_offset = cmd.position_offset, .view = view, .text_table = format == Format::table,
                           .csv = format == Format::csv, .whole = format == Format::json || format == Format::npz};
  kind.check_inspect(cmd.args, request);
  std::size_t hidden_dims = 0;  // a table's default leaves out the dims beyond the first 8
  if (kind.needs_d_model() && view == PeViewKind::table) {
    const std::size_t d = *cmd.d_model;
    const Range dims = shown_dims(cmd, format, d);
    request.dims_first = dims.first;
    request.dims_count = dims.count;
    if (format == Format::table && !cmd.dims && dims.count < d) hidden_dims = d;
    const std::size_t cols = kind.view_columns(cmd.args, request);
    const std::string what = "a PE table of " + std::to_string(positions.count) + " positions x " +
                             std::to_string(cols) + " dims";
    check_allocation(checked_sum({checked_product({positions.count, cols, sizeof(float)}, what),
                                  text_bytes(format, positions.count, cols)}, what),
                     what, "lower --d-model, show fewer positions (--max-len, --positions) or fewer --dims");
  }
  OutputFile out(cmd.output);
  PeInspection v = kind.inspect(cmd.args, request);
  if (v.note_hidden_dims && hidden_dims) {
    v.title += " (dims 0:" + std::to_string(request.dims_count) + " of " + std::to_string(hidden_dims) +
               "; choose with --dims)";
  }
  write_inspection(out, format, v, positions);
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
  add_pe_kind_option(*sub, "--kind", cmd->kind, inspectable, pe_kind_list(inspectable));
  add_number(*sub, "--d-model", cmd->d_model, 1, kMaxDModel, "Width (the rotary dimension for RoPE)");
  add_number(*sub, "--max-len", cmd->max_len, 1, kMaxPosition, "Positions 0..N-1 (default 50)");
  sub->add_option_function<std::string>(
         "--positions", [cmd](const std::string& v) { cmd->positions = parse_span("--positions", v, kMaxPosition); },
         "Positions A..B-1, e.g. 999990:1000000")
      ->type_name("A:B");
  sub->add_option_function<std::string>(
         "--dims", [cmd](const std::string& v) { cmd->dims = parse_span("--dims", v, kMaxDModel); },
         "Dimensions A..B-1 (table: default 0:8)")
      ->type_name("A:B");
  add_choice<Format>(*sub, "--format", [cmd](Format f) { cmd->format = f; },
                     {{"table", Format::table}, {"json", Format::json}, {"csv", Format::csv}, {"npy", Format::npy},
                      {"npz", Format::npz}, {"png", Format::png}},
                     "Output format (default: from --output's extension, else table)");
  add_output_option(*sub, cmd->output);
  add_number(*sub, "--position-offset", cmd->position_offset, 0, kMaxPosition - 1, "Row l shows position l+K")
      ->type_name("K");
  add_pe_params(*sub, cmd->args, PeParam::Use::inspect, inspectable);
  sub->add_flag("--stats", cmd->stats, "Per dimension pair: frequency, wavelength, aliasing, incomplete periods");
  sub->add_flag("--similarity", cmd->show_similarity, "The PE . PE^T matrix of the positions");
  sub->add_flag("--audit", cmd->audit, "Error of float32 (as the usual PyTorch recipe computes it), float16, bfloat16 vs float64");
  sub->callback([cmd] { run_pe(*cmd); });
}

}  // namespace embedpe::cli
