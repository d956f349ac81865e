// How a matrix is to be drawn as a heatmap: its colour scale, causal mask and
// column panels. Plain data, so that a PE kind can say how its tables look
// (PeMatrix::look, pe_kind.h) without the PNG renderer (heatmap.h).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace embedpe {

enum class ColourScale {
  diverging,   // [-max|v|, +max|v|], white at 0
  sequential,  // [min v, max v]
  categorical, // whole numbers 0..categories-1 (T5 buckets), each one flat colour, a stepped legend
};

// A group of columns drawn as one panel, under its own title.
struct HeatmapPanel {
  std::string title;                 // "sin (even dims)"
  std::vector<std::size_t> columns;  // indices into the matrix's columns, in drawing order
  // The tick label of the panel's k-th column is first_label + k; unset, it is
  // the column's own label (Heatmap::col_first + its index). RoPE's cos and sin
  // panels are one matrix [cos | sin] whose sin columns are labelled by dim again.
  std::optional<std::size_t> first_label;
};

// How a matrix is drawn, beyond its values and labels.
struct HeatmapLook {
  ColourScale scale = ColourScale::diverging;
  // Cells whose column label is above their row label (a key after its
  // query) are masked, as in causal attention: drawn hatched, left out of the range.
  bool causal_mask = false;
  std::vector<HeatmapPanel> panels;  // empty: one panel of every column in order
  // categorical: how many categories there are, and where a second hue ramp
  // starts (0: one ramp). T5's bidirectional buckets give their upper half to
  // keys after the query: two ramps tell the two directions apart. The legend
  // heads each ramp with its label.
  std::size_t categories = 0;
  std::size_t second_ramp = 0;
  std::string first_ramp_label, second_ramp_label;
};

}  // namespace embedpe
