// What the positional-encoding kinds in this folder share: number text for
// their record views, the similarity view and the position fields of a
// layer's description.
#pragma once

#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <xtensor/xtensor.hpp>

#include "embedpe/pe_analysis.h"
#include "embedpe/pe_kind.h"
#include "memory.h"

namespace embedpe::pe_support {

// printf-style text of one number for a record cell ("%.6g" unless said).
inline std::string fmt(double v, const char* spec = "%.6g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, spec, v);
  return buf;
}

inline const char* yes_no(bool b) { return b ? "yes" : "no"; }

// Per-pair statistics are one record per dimension pair, whose strings (and
// JSON objects) dominate: refuse a width whose records cannot be held.
inline void check_pair_records(std::size_t d_model) {
  const std::size_t pairs = d_model / 2 + 1;
  const std::string what = "stats of " + std::to_string(pairs) + " dimension pairs";
  check_allocation(checked_product({pairs, 1024}, what), what, "lower d_model", {"stats", "d_model"});
}

// Where a layer's tokens sit in the table, recorded after the kind's own fields.
inline void add_positions(nlohmann::ordered_json& config, std::size_t offset, std::optional<std::size_t> pad) {
  config["position_offset"] = offset;
  config["pad_position"] = pad ? nlohmann::ordered_json(*pad) : nlohmann::ordered_json();
}

// Columns [first, first + count) of m: (rows, count).
inline xt::xtensor<float, 2> columns_of(const xt::xtensor<float, 2>& m, std::size_t first, std::size_t count) {
  auto out = xt::xtensor<float, 2>::from_shape({m.shape()[0], count});
  for (std::size_t r = 0; r < m.shape()[0]; ++r)
    for (std::size_t c = 0; c < count; ++c) out(r, c) = m(r, first + c);
  return out;
}

// A sinusoidal table's picture as two panels, the sin columns and the cos
// columns: interleaved side by side they alternate column by column, which
// at d=512 reads only as stripes. `is_sin(dim)` says which a dim is; the
// matrix's columns are dims dims_first.. .
inline void sin_cos_panels(PeMatrix& m, std::size_t dims_first, const std::function<bool(std::size_t)>& is_sin) {
  HeatmapPanel sins{"sin", {}}, coss{"cos", {}};
  for (std::size_t c = 0; c < m.values.shape()[1]; ++c) (is_sin(dims_first + c) ? sins : coss).columns.push_back(c);
  if (!sins.columns.empty() && !coss.columns.empty()) m.look.panels = {std::move(sins), std::move(coss)};
}

// One pair's cells of a stats record: pair, sin_dim, cos_dim, frequency,
// wavelength, aliases, incomplete (after the columns `before` gives).
inline std::vector<std::string> frequency_cells(const FrequencyStat& s, std::vector<std::string> before = {}) {
  for (std::string cell : {std::to_string(s.pair), std::to_string(s.sin_dim), std::to_string(s.cos_dim), fmt(s.frequency),
                           fmt(s.wavelength), std::string(yes_no(s.aliases)), std::string(yes_no(s.incomplete))}) {
    before.push_back(std::move(cell));
  }
  return before;
}

// The similarity view: PE.PE^T of the rows shown (`rows`, positions r.first..),
// on a sequential scale (similarities are not centred on zero: it spends its
// colours on the range they take), titled "PE.PE^T similarity, `what`".
inline void similarity_view(PeInspection& v, const xt::xtensor<float, 2>& rows, const PeInspectRequest& r,
                            const std::string& what) {
  v.matrix = PeMatrix{similarity(rows), "position", "position", r.first, r.first};
  v.matrix->look.scale = ColourScale::sequential;
  v.title = "PE.PE^T similarity, " + what;
  v.matrix_name = "similarity";
}

// Head h of a (heads, n, n) bias: (n, n).
inline xt::xtensor<float, 2> head_of(const xt::xtensor<float, 3>& bias, std::size_t h) {
  const std::size_t n = bias.shape()[1];
  auto out = xt::xtensor<float, 2>::from_shape({n, bias.shape()[2]});
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < bias.shape()[2]; ++j) out(i, j) = bias(h, i, j);
  return out;
}

}  // namespace embedpe::pe_support
