// PNG heatmaps of a matrix, for `embedpe pe --format png`.
//
//   embedpe::Heatmap h{.values = pe.rows(0, 64), .title = "sinusoidal PE d=128, base 10000",
//                      .row_label = "position", .col_label = "dim"};
//   h.look.panels = {{"sin", {0, 2, 4}}, {"cos", {1, 3, 5}}};  // columns drawn side by side
//   embedpe::write_heatmap_png(out, h);
//
// Three colour scales: diverging (blue < 0 < red, white at 0, symmetric about
// zero) for values of both signs around a meaningful zero; sequential (dark
// to light over the data's own [min, max]) for values such as similarities
// whose range is not centred on zero; and categorical, for whole numbers that
// name categories (T5's bucket indices): one flat colour per category, from
// one or two hue ramps, and a legend of steps, one per category drawn. Cells
// whose key comes after their query can be drawn as masked (hatched grey), as
// causal attention never sees them; the range then covers the visible cells
// only. Columns can be split into titled panels (the sin and the cos columns
// of an interleaved table, which side by side would alternate column by
// column). Each cell is a rectangle of several pixels, with tick labels for
// rows and columns, a colour bar with the value range (steps, for
// categories) and the title above.
// Text uses a built-in 5×7 font, drawn twice its size (each font pixel a
// 2×2 square) unless the plot is under 192 pixels both ways. The column axis
// label is above the column ticks, at the top. The PNG is 8-bit RGB, written with
// zlib, with the title also in a tEXt "Title" chunk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "embedpe/heatmap_look.h"
#include "embedpe/output_file.h"

namespace embedpe {

struct Heatmap {
  xt::xtensor<float, 2> values;  // (rows, cols)
  std::string title;
  std::string row_label = "position";
  std::string col_label = "dim";
  std::size_t row_first = 0;  // label of the first row
  std::size_t col_first = 0;  // label of the first column
  HeatmapLook look;
};

// Where a panel's cells are in an image, in pixels.
struct ImageRect {
  std::size_t x = 0, y = 0, width = 0, height = 0;
};

// The RGB image of a heatmap: width, height and width × height × 3 bytes.
struct Image {
  std::size_t width = 0, height = 0;
  std::vector<std::uint8_t> rgb;
  std::string title;                // written as the PNG's tEXt "Title"
  std::vector<ImageRect> panels;    // where each panel's cells are
  double range_min = 0, range_max = 0;  // the values at the colour bar's ends
};

Image render_heatmap(const Heatmap& heatmap);
// A PNG file's bytes for an RGB image.
std::string encode_png(const Image& image);
void write_heatmap_png(OutputFile& out, const Heatmap& heatmap);

// The diverging colour of t in [-1, 1].
void diverging_colour(double t, std::uint8_t rgb[3]);
// The sequential colour of t in [0, 1] (0 the data's minimum, 1 its maximum).
void sequential_colour(double t, std::uint8_t rgb[3]);
// The flat colour of a category of a categorical look: its ramp's colour,
// light for the first category of the ramp, dark for the last.
void category_colour(std::size_t category, const HeatmapLook& look, std::uint8_t rgb[3]);
// A masked cell's two colours: the ground and its hatching.
inline constexpr std::uint8_t kMaskGround[3] = {224, 224, 224};
inline constexpr std::uint8_t kMaskHatch[3] = {150, 150, 150};

}  // namespace embedpe
