// Writing what a positional-encoding kind shows (pe_kind.h's PeInspection):
// its matrix or records as a text table, CSV or PNG heatmap, its records as
// JSON, or its tensors as tables for a sink (sink.h: JSON, .npy, .npz,
// .safetensors).
//
//   embedpe::PeInspection v = kind.inspect(args, request);
//   embedpe::OutputFile out("-");
//   embedpe::write_pe_view(out, embedpe::PeView::table, v);
//   out.commit();
//
//   const embedpe::SinkFormat& f = *embedpe::find_sink_format("npz");
//   auto sink = f.make("pe.npz");
//   sink->begin({});
//   sink->add_tables(embedpe::pe_tables(v, request.first, request.count, f.traits));  // points into v
//   sink->finish();
//
// Or all of it, checked first, the way `embedpe pe` does it:
//
//   embedpe::write_pe_inspection(kind, args, {.request = request, .format = embedpe::pe_formats()[0]}, "-");
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "embedpe/output_file.h"
#include "embedpe/pe_kind.h"
#include "embedpe/sink.h"

namespace embedpe {

// The views that are not sinks.
enum class PeView { table, csv, png };

// The records or the matrix as a text table (titled, two decimals, integers
// whole) or CSV (shortest floats), or the matrix as a PNG heatmap. Records
// given to png are written as JSON when the kind says so (records_as_json),
// else refused (UsageError). A `precision` above 0 writes the matrix's floats
// in that many significant digits, in the table and the CSV.
void write_pe_view(OutputFile& out, PeView view, const PeInspection& v, int precision = 0);

// The records as one JSON document {"config": ..., key: [...]}: written into
// a text format, or into any when the kind says so (records_as_json); a
// binary format is refused (UsageError).
void write_pe_records(OutputFile& out, const SinkFormat& format, const PeInspection& v);

// The tensors of an inspection of positions [first, first + count) for a
// sink whose traits are given, pointing into v: every tensor with the config
// and the positions, one tensor (npy_tensor) for a one-tensor format, else
// the matrix with its rows and columns. Records are refused (UsageError).
SinkTables pe_tables(const PeInspection& v, std::size_t first, std::size_t count, const SinkTraits& traits);

// What an inspection is written as: one of the views above, or a sink's format.
struct PeFormat {
  std::string name;  // "table", "csv", "png", or the sink's
  std::optional<PeView> view;
  const SinkFormat* sink = nullptr;

  bool is(PeView v) const { return view == v; }
  bool binary() const { return sink ? sink->traits.binary : view == PeView::png; }
  // How a refusal to write it to a terminal names it: ".npy", "PNG".
  std::string binary_name() const { return sink ? "." + std::string(sink->name) : "PNG"; }
};

// The formats in the order front ends list them: table, json, csv, npy, npz,
// png, then every other sink format that holds tables.
std::vector<PeFormat> pe_formats();
// (extension, format) for choosing a format by an output's name: .txt is a
// table; csv and png by their names; sinks by their extensions.
std::vector<std::pair<std::string, PeFormat>> pe_format_extensions();

// One inspection, and how it is written.
struct PeInspectJob {
  // The positions, view and d_model. dims_count 0: the default columns (all
  // of d_model; the first 8 in a text table, whose title then says so).
  PeInspectRequest request;
  PeFormat format;
  int precision = 0;  // significant digits of text (table, csv, json); 0: the format's default
  // How the title of a text table names the choice of columns ("dims"); a
  // front end may spell it its own way ("--dims").
  std::string dims_label = "dims";
};

// Checks `job` (a UsageError naming parameters: precision with a binary
// format, dims where the kind has no width or the view uses every one, and
// check_inspection's refusals), checks that the table fits in memory, opens
// `output`, then computes and writes: tables through the sink, lists (stats,
// audit) and pe's own views as text.
void write_pe_inspection(const PeKind& kind, const PeArgs& args, PeInspectJob job, const std::string& output);

}  // namespace embedpe
