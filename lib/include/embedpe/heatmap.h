// PNG heatmaps of a matrix, for `embedpe pe --format png`.
//
//   embedpe::Heatmap h{.values = pe.rows(0, 64), .title = "sinusoidal PE d=128",
//                      .row_label = "position", .col_label = "dim"};
//   embedpe::write_heatmap_png(out, h);
//
// A diverging colour map (blue < 0 < red, white at 0) symmetric about zero,
// each cell a square of several pixels, tick labels for rows and columns, and
// a colour bar with the value range. Text uses a small built-in 5×7 font.
// The PNG is 8-bit RGB, written with zlib.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "embedpe/output_file.h"

namespace embedpe {

struct Heatmap {
  xt::xtensor<float, 2> values;  // (rows, cols)
  std::string title;
  std::string row_label = "position";
  std::string col_label = "dim";
  std::size_t row_first = 0;  // label of the first row
  std::size_t col_first = 0;  // label of the first column
};

// The RGB image of a heatmap: width, height and width × height × 3 bytes.
struct Image {
  std::size_t width = 0, height = 0;
  std::vector<std::uint8_t> rgb;
};

Image render_heatmap(const Heatmap& heatmap);
// A PNG file's bytes for an RGB image.
std::string encode_png(const Image& image);
void write_heatmap_png(OutputFile& out, const Heatmap& heatmap);

// The diverging colour of t in [-1, 1].
void diverging_colour(double t, std::uint8_t rgb[3]);

}  // namespace embedpe
