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
#pragma once

#include <cstddef>

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

}  // namespace embedpe
