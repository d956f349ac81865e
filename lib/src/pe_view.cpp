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
  std::string text = "# " + title + "\n";
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
      if (m.integers) {
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
  if (!v.records) throw Error("internal error: an inspection without records written as records");
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

}  // namespace embedpe
