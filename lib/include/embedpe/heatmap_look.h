// How a matrix is to be drawn as a heatmap: its colour scale, causal mask and
// column panels. Plain data, so that a PE kind can say how its tables look
// (PeMatrix::look, pe_kind.h) without the PNG renderer (heatmap.h).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace embedpe {

enum class ColourScale {
  diverging,   // [-max|v|, +max|v|], white at 0
  sequential,  // [min v, max v]
};

// A group of columns drawn as one panel, under its own title.
struct HeatmapPanel {
  std::string title;                 // "sin (even dims)"
  std::vector<std::size_t> columns;  // indices into the matrix's columns, in drawing order
};

// How a matrix is drawn, beyond its values and labels.
struct HeatmapLook {
  ColourScale scale = ColourScale::diverging;
  // Cells whose column label is above their row label (a key after its
  // query) are masked, as in causal attention: drawn hatched, left out of the range.
  bool causal_mask = false;
  std::vector<HeatmapPanel> panels;  // empty: one panel of every column in order
};

}  // namespace embedpe
