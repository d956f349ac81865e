#include "embedpe/pe_view.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <variant>
#include <vector>

#include "embedpe/error.h"
#include "embedpe/heatmap.h"
#include "memory.h"
#include "embedpe/message.h"
#include "parallel.h"

namespace embedpe {
namespace {

// The float32 value in the shortest text that reads back as it, or in
// `precision` significant digits (of the float32 value itself).
std::string float_text(double v, int precision) {
  char buf[64];
  const float f = static_cast<float>(v);
  auto r = precision ? std::to_chars(buf, buf + sizeof buf, f, std::chars_format::general, precision)
                     : std::to_chars(buf, buf + sizeof buf, f);
  return std::string(buf, r.ptr);
}

std::string integer(double v) { return std::to_string(std::llround(v)); }

void write_matrix_table(OutputFile& out, const PeMatrix& m, const std::string& title, int precision) {
  const std::size_t rows = m.values.shape()[0], cols = m.values.shape()[1];
  // Wide enough for a sign, the digits, a point and an exponent ("-1.2345e-05").
  const int width = precision ? std::max(6, precision + 7) : 6;
  std::string text = "# " + title + (m.look.causal_mask ? "; keys after the query are masked" : "") + "\n";
  char cell[64];
  std::snprintf(cell, sizeof cell, "%10s", (m.row_label.substr(0, 3) + "\\" + m.col_label.substr(0, 3)).c_str());
  text += cell;
  for (std::size_t c = 0; c < cols; ++c) {
    std::snprintf(cell, sizeof cell, " %*zu", width, m.col_first + c);
    text += cell;
  }
  text += "\n";
  for (std::size_t r = 0; r < rows; ++r) {
    std::snprintf(cell, sizeof cell, "%10zu", m.row_first + r);
    text += cell;
    for (std::size_t c = 0; c < cols; ++c) {
      double v = m.values(r, c);
      if (m.look.causal_mask && m.col_first + c > m.row_first + r) {
        // A key after the query, which causal attention never sees (as the picture greys it out).
        std::snprintf(cell, sizeof cell, " %*s", width, "masked");
      } else if (m.integers) {
        std::snprintf(cell, sizeof cell, " %*s", width, integer(v).c_str());
      } else if (precision) {
        std::snprintf(cell, sizeof cell, " %*s", width, float_text(v, precision).c_str());
      } else {
        // Two decimals like the tables tutorials print; "-0.00" would only be noise.
        if (std::abs(v) < 0.005) v = 0.0;
        std::snprintf(cell, sizeof cell, " %6.2f", v);
      }
      text += cell;
    }
    text += "\n";
  }
  out.write(text);
}

void write_matrix_csv(OutputFile& out, const PeMatrix& m, int precision) {
  const std::size_t rows = m.values.shape()[0], cols = m.values.shape()[1];
  std::string text = m.row_label;
  for (std::size_t c = 0; c < cols; ++c) text += "," + m.col_label + std::to_string(m.col_first + c);
  text += "\n";
  for (std::size_t r = 0; r < rows; ++r) {
    text += std::to_string(m.row_first + r);
    for (std::size_t c = 0; c < cols; ++c) {
      text += ',';
      text += m.integers ? integer(m.values(r, c)) : float_text(m.values(r, c), precision);
    }
    text += "\n";
    if (text.size() > (1u << 20)) {
      out.write(text);
      text.clear();
    }
  }
  out.write(text);
}

void write_records_json(OutputFile& out, const PeInspection& v) {
  const PeRecords& rec = *v.records;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& r : rec.rows) {
    nlohmann::ordered_json o;
    for (std::size_t k = 0; k < rec.columns.size(); ++k) {
      const std::string& cell = r[k];
      // Numbers are JSON literals; yes/no are booleans; words (block's "within") are strings.
      if (cell == "yes" || cell == "no") o[rec.columns[k]] = cell == "yes";
      else if (nlohmann::ordered_json::accept(cell)) o[rec.columns[k]] = nlohmann::ordered_json::parse(cell);
      else o[rec.columns[k]] = cell;
    }
    list.push_back(o);
  }
  out.write(nlohmann::ordered_json{{"config", v.config}, {rec.key, list}}.dump(1) + "\n");
}

void write_records_text(OutputFile& out, PeView view, const PeInspection& v) {
  const PeRecords& rec = *v.records;
  std::string text;
  if (view == PeView::csv) {
    for (std::size_t k = 0; k < rec.columns.size(); ++k) text += (k ? "," : "") + rec.columns[k];
    text += "\n";
    for (const auto& r : rec.rows) {
      for (std::size_t k = 0; k < r.size(); ++k) text += (k ? "," : "") + r[k];
      text += "\n";
    }
  } else {
    text = "# " + v.title + "\n";
    std::vector<std::size_t> width(rec.columns.size());
    for (std::size_t k = 0; k < rec.columns.size(); ++k) {
      width[k] = rec.columns[k].size();
      for (const auto& r : rec.rows) width[k] = std::max(width[k], r[k].size());
    }
    auto line = [&](const std::vector<std::string>& cells) {
      for (std::size_t k = 0; k < cells.size(); ++k) {
        text += (k ? "  " : "") + std::string(width[k] - cells[k].size(), ' ') + cells[k];
      }
      text += "\n";
    };
    line(rec.columns);
    for (const auto& r : rec.rows) line(r);
  }
  out.write(text);
}

void refuse_records(const PeInspection& v) {
  if (!v.records_as_json) throw UsageError("this analysis is written as table, csv or json");
}

}  // namespace

void write_pe_view(OutputFile& out, PeView view, const PeInspection& v, int precision) {
  if (v.records) {
    if (view != PeView::png) return write_records_text(out, view, v);
    refuse_records(v);
    return write_records_json(out, v);
  }
  if (!v.matrix) throw UsageError("this view is written as json or npz");
  const PeMatrix& m = *v.matrix;
  switch (view) {
    case PeView::table: return write_matrix_table(out, m, v.title, precision);
    case PeView::csv: return write_matrix_csv(out, m, precision);
    case PeView::png:
      return write_heatmap_png(out, {.values = m.values, .title = v.title, .row_label = m.row_label,
                                     .col_label = m.col_label, .row_first = m.row_first, .col_first = m.col_first,
                                     .look = m.look});
  }
}

void write_pe_records(OutputFile& out, const SinkFormat& format, const PeInspection& v) {
  if (!v.records) throw InternalError("an inspection without records written as records");
  if (format.traits.binary) refuse_records(v);
  write_records_json(out, v);
}

SinkTables pe_tables(const PeInspection& v, std::size_t first, std::size_t count, const SinkTraits& traits) {
  if (v.records) throw UsageError("this analysis is written as table, csv or json");
  SinkTables t;
  t.members["config"] = v.config;
  for (const PeTensor& p : v.tensors) {
    std::visit([&](const auto& values) { t.tensors.push_back(tensor_ref(p.name, values)); }, p.values);
  }
  if (!t.tensors.empty() && !traits.one_tensor) {
    t.members["positions"] = {{"first", first}, {"count", count}};
    return t;
  }
  if (v.npy_tensor && traits.one_tensor) {
    t.tensors = {t.tensors.at(*v.npy_tensor)};
    return t;
  }
  if (!v.matrix) throw UsageError("this view is written as json or npz");
  const PeMatrix& m = *v.matrix;
  t.members = {{"config", v.config},
               {m.row_label + "s", {{"first", m.row_first}, {"count", m.values.shape()[0]}}},
               {m.col_label + "s", {{"first", m.col_first}, {"count", m.values.shape()[1]}}}};
  t.tensors = {tensor_ref(v.matrix_name, m.values)};
  return t;
}

std::vector<PeFormat> pe_formats() {
  std::vector<PeFormat> all = {{"table", PeView::table}};
  auto sink = [&](const char* name) { all.push_back({name, std::nullopt, find_sink_format(name)}); };
  sink("json");
  all.push_back({"csv", PeView::csv});
  sink("npy");
  sink("npz");
  all.push_back({"png", PeView::png});
  for (const SinkFormat* f : sink_formats()) {
    const bool listed = std::any_of(all.begin(), all.end(), [&](const PeFormat& e) { return e.sink == f; });
    if (f->traits.tables && !listed) all.push_back({f->name, std::nullopt, f});
  }
  return all;
}

std::vector<std::pair<std::string, PeFormat>> pe_format_extensions() {
  std::vector<std::pair<std::string, PeFormat>> extensions = {{".txt", pe_formats().front()}};
  for (const PeFormat& f : pe_formats()) {
    if (f.sink) {
      for (const std::string& ext : f.sink->extensions) extensions.emplace_back(ext, f);
    } else if (!f.is(PeView::table)) {
      extensions.emplace_back("." + f.name, f);
    }
  }
  return extensions;
}

void write_pe_inspection(const PeKind& kind, const PeArgs& args, PeInspectJob job, const std::string& output) {
  const PeFormat& format = job.format;
  PeInspectRequest& request = job.request;
  if (job.precision && format.binary()) {
    throw UsageError("precision sets the digits of text (table, csv, json); " + format.binary_name() +
                         " keeps floats exact: drop precision",
                     {"precision"});
  }
  const bool dims_given = request.dims_count > 0;
  if (dims_given && !kind.needs_d_model()) {
    throw UsageError("dims chooses columns of a table d_model wide; kind " + std::string(kind.name()) +
                         " has no such width: drop dims",
                     {"dims", "kind"});
  }
  if (dims_given && request.view != PeViewKind::table) {
    throw UsageError("dims chooses the columns of the table; stats, similarity and audit use every dim: drop dims",
                     {"dims", "stats", "similarity", "audit"});
  }
  request.text_table = format.is(PeView::table);
  request.csv = format.is(PeView::csv);
  request.png = format.is(PeView::png);
  request.whole = format.sink && !format.sink->traits.one_tensor;
  // The columns: those given, or every dim (the first 8 in a text table).
  const bool table = kind.needs_d_model() && request.view == PeViewKind::table && request.d_model;
  const std::size_t d = request.d_model.value_or(0);
  if (!table) {
    request.dims_first = request.dims_count = 0;
  } else if (!dims_given) {
    request.dims_first = 0;
    request.dims_count = format.is(PeView::table) ? std::min<std::size_t>(d, 8) : d;
  }
  check_pe_args(args, {&kind}, PeParam::Use::inspect, "kind");
  kind.check_inspection(args, request);
  if (table) {
    const std::size_t cols = kind.view_columns(args, request);
    const std::string what =
        "a PE table of " + std::to_string(request.count) + " positions x " + std::to_string(cols) + " dims";
    // A text table or CSV is built whole: about 16 bytes a value on top of its floats.
    const std::size_t text = request.text_table || request.csv ? checked_product({request.count, cols, 16}, what) : 0;
    check_allocation(checked_sum({checked_product({request.count, cols, sizeof(float)}, what), text}, what), what,
                     Message() << "lower d_model, " << Verbatim{"show fewer positions"}
                               << " (max_len, positions) or fewer dims",
                     {"d_model", "max_len", "positions", "dims"}, /*what_is_text=*/true);
  }
  // The output is opened before computing, so that an unwritable one is
  // refused first. Tables go through the sink; stats and audit are lists,
  // written as text (JSON for a sink's format), like every view of pe's own.
  const bool records = request.view == PeViewKind::stats || request.view == PeViewKind::audit;
  if (format.sink && !records) {
    std::unique_ptr<TensorSink> sink = format.sink->make(output);
    sink->begin({.threads = usable_threads(available_cores()), .precision = job.precision});
    PeInspection v = kind.inspect(args, request);
    if (job.precision) v.config["precision"] = job.precision;
    sink->add_tables(pe_tables(v, request.first, request.count, format.sink->traits));
    sink->finish();
    return;
  }
  OutputFile out(output);
  PeInspection v = kind.inspect(args, request);
  if (v.note_hidden_dims && table && format.is(PeView::table) && !dims_given && request.dims_count < d) {
    v.title += " (dims 0:" + std::to_string(request.dims_count) + " of " + std::to_string(d) + "; choose with " +
               job.dims_label + ")";
  }
  if (format.view) {
    write_pe_view(out, *format.view, v, job.precision);
  } else {
    write_pe_records(out, *format.sink, v);
  }
  out.commit();
}

}  // namespace embedpe
