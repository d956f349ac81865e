#include "embedpe/heatmap.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <string_view>

#include "embedpe/error.h"

namespace embedpe {
namespace {

// ---------------------------------------------------------------- font
// A 5×7 font: each glyph is seven rows of five pixels ('#' = ink).
struct Glyph {
  char c;
  const char* rows[7];
};

constexpr Glyph kFont[] = {
    {'0', {".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."}},
    {'1', {"..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."}},
    {'2', {".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"}},
    {'3', {"#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."}},
    {'4', {"...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."}},
    {'5', {"#####", "#....", "####.", "....#", "....#", "#...#", ".###."}},
    {'6', {"..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."}},
    {'7', {"#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."}},
    {'8', {".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."}},
    {'9', {".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."}},
    {'-', {".....", ".....", ".....", "#####", ".....", ".....", "....."}},
    {'+', {".....", "..#..", "..#..", "#####", "..#..", "..#..", "....."}},
    {'.', {".....", ".....", ".....", ".....", ".....", ".##..", ".##.."}},
    {',', {".....", ".....", ".....", ".....", ".##..", "..#..", ".#..."}},
    {':', {".....", ".##..", ".##..", ".....", ".##..", ".##..", "....."}},
    {'=', {".....", ".....", "#####", ".....", "#####", ".....", "....."}},
    {'(', {"...#.", "..#..", ".#...", ".#...", ".#...", "..#..", "...#."}},
    {')', {".#...", "..#..", "...#.", "...#.", "...#.", "..#..", ".#..."}},
    {'/', {".....", "....#", "...#.", "..#..", ".#...", "#....", "....."}},
    {'x', {".....", ".....", "#...#", ".#.#.", "..#..", ".#.#.", "#...#"}},
    {'^', {"..#..", ".#.#.", "#...#", ".....", ".....", ".....", "....."}},
    {'A', {".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"}},
    {'B', {"####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."}},
    {'E', {"#####", "#....", "#....", "####.", "#....", "#....", "#####"}},
    {'I', {".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."}},
    {'L', {"#....", "#....", "#....", "#....", "#....", "#....", "#####"}},
    {'P', {"####.", "#...#", "#...#", "####.", "#....", "#....", "#...."}},
    {'R', {"####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"}},
    {'S', {".####", "#....", "#....", ".###.", "....#", "....#", "####."}},
    {'T', {"#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."}},
    {'a', {".....", ".....", ".###.", "....#", ".####", "#...#", ".####"}},
    {'b', {"#....", "#....", "#.##.", "##..#", "#...#", "#...#", "####."}},
    {'c', {".....", ".....", ".###.", "#....", "#....", "#...#", ".###."}},
    {'d', {"....#", "....#", ".##.#", "#..##", "#...#", "#...#", ".####"}},
    {'e', {".....", ".....", ".###.", "#...#", "#####", "#....", ".###."}},
    {'f', {"..##.", ".#..#", ".#...", "###..", ".#...", ".#...", ".#..."}},
    {'g', {".....", ".####", "#...#", "#...#", ".####", "....#", ".###."}},
    {'h', {"#....", "#....", "#.##.", "##..#", "#...#", "#...#", "#...#"}},
    {'i', {"..#..", ".....", ".##..", "..#..", "..#..", "..#..", ".###."}},
    {'j', {"...#.", ".....", "..##.", "...#.", "...#.", "#..#.", ".##.."}},
    {'k', {"#....", "#....", "#..#.", "#.#..", "##...", "#.#..", "#..#."}},
    {'l', {".##..", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."}},
    {'m', {".....", ".....", "##.#.", "#.#.#", "#.#.#", "#...#", "#...#"}},
    {'n', {".....", ".....", "#.##.", "##..#", "#...#", "#...#", "#...#"}},
    {'o', {".....", ".....", ".###.", "#...#", "#...#", "#...#", ".###."}},
    {'p', {".....", ".....", "####.", "#...#", "####.", "#....", "#...."}},
    {'q', {".....", ".....", ".##.#", "#..##", ".####", "....#", "....#"}},
    {'r', {".....", ".....", "#.##.", "##..#", "#....", "#....", "#...."}},
    {'s', {".....", ".....", ".###.", "#....", ".###.", "....#", "####."}},
    {'t', {".#...", ".#...", "###..", ".#...", ".#...", ".#..#", "..##."}},
    {'u', {".....", ".....", "#...#", "#...#", "#...#", "#..##", ".##.#"}},
    {'v', {".....", ".....", "#...#", "#...#", "#...#", ".#.#.", "..#.."}},
    {'w', {".....", ".....", "#...#", "#...#", "#.#.#", "#.#.#", ".#.#."}},
    {'y', {".....", ".....", "#...#", "#...#", ".####", "....#", ".###."}},
    {'z', {".....", ".....", "#####", "...#.", "..#..", ".#...", "#####"}},
};

const Glyph* glyph(char c) {
  for (const auto& g : kFont) {
    if (g.c == c) return &g;
  }
  if (c >= 'A' && c <= 'Z') return glyph(static_cast<char>(c - 'A' + 'a'));  // small capitals
  return nullptr;  // drawn as a space
}

constexpr int kCharW = 6, kCharH = 8;  // 5×7 glyph plus spacing

struct Canvas {
  std::size_t w, h;
  std::vector<std::uint8_t> rgb;
  Canvas(std::size_t width, std::size_t height) : w(width), h(height), rgb(width * height * 3, 255) {}
  void set(std::size_t x, std::size_t y, const std::uint8_t c[3]) {
    if (x >= w || y >= h) return;
    std::copy(c, c + 3, rgb.begin() + static_cast<std::ptrdiff_t>((y * w + x) * 3));
  }
  void fill(std::size_t x, std::size_t y, std::size_t fw, std::size_t fh, const std::uint8_t c[3]) {
    for (std::size_t yy = y; yy < y + fh; ++yy)
      for (std::size_t xx = x; xx < x + fw; ++xx) set(xx, yy, c);
  }
  void text(std::size_t x, std::size_t y, std::string_view s) {
    static constexpr std::uint8_t ink[3] = {20, 20, 20};
    for (char c : s) {
      if (const Glyph* g = glyph(c)) {
        for (int r = 0; r < 7; ++r)
          for (int k = 0; k < 5; ++k)
            if (g->rows[r][k] == '#') set(x + static_cast<std::size_t>(k), y + static_cast<std::size_t>(r), ink);
      }
      x += kCharW;
    }
  }
};

std::string number(double v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 3);
  return std::string(buf, r.ptr);
}

// Tick spacing: a round step giving at most ~`max_ticks` ticks.
std::size_t tick_step(std::size_t n, std::size_t max_ticks) {
  for (std::size_t step : {1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000}) {
    if (n / step <= max_ticks) return step;
  }
  return (n / max_ticks / 10000 + 1) * 10000;
}

// CRC and big-endian helpers for PNG chunks.
void put32(std::string& s, std::uint32_t v) {
  for (int i = 3; i >= 0; --i) s += static_cast<char>((v >> (8 * i)) & 0xFF);
}

void chunk(std::string& png, const char type[4], const std::string& data) {
  put32(png, static_cast<std::uint32_t>(data.size()));
  std::string body(type, 4);
  body += data;
  png += body;
  put32(png, static_cast<std::uint32_t>(::crc32(0, reinterpret_cast<const Bytef*>(body.data()),
                                                 static_cast<uInt>(body.size()))));
}

}  // namespace

void diverging_colour(double t, std::uint8_t rgb[3]) {
  // Anchors of a blue–white–red map (ColorBrewer RdBu, reversed).
  static constexpr std::array<std::array<double, 3>, 5> kAnchors = {{
      {33, 102, 172}, {146, 197, 222}, {247, 247, 247}, {244, 165, 130}, {178, 24, 43}}};
  if (!std::isfinite(t)) t = 0;
  t = std::clamp(t, -1.0, 1.0);
  const double x = (t + 1.0) / 2.0 * 4.0;
  const std::size_t i = std::min<std::size_t>(static_cast<std::size_t>(x), 3);
  const double f = x - static_cast<double>(i);
  for (int c = 0; c < 3; ++c) {
    rgb[c] = static_cast<std::uint8_t>(std::lround(kAnchors[i][c] + f * (kAnchors[i + 1][c] - kAnchors[i][c])));
  }
}

Image render_heatmap(const Heatmap& hm) {
  const std::size_t rows = hm.values.shape()[0], cols = hm.values.shape()[1];
  if (rows == 0 || cols == 0) throw UsageError("nothing to draw: the table is empty");
  constexpr std::size_t kMax = 1024;
  if (rows > kMax || cols > kMax) {
    throw UsageError("a PNG shows at most " + std::to_string(kMax) + " rows and columns (this table is " +
                         std::to_string(rows) + " x " + std::to_string(cols) + "); narrow positions or dims",
                     {"positions", "dims"});
  }
  const std::size_t cell = std::clamp<std::size_t>(720 / std::max(rows, cols), 2, 24);
  double vmax = 0;
  for (float v : hm.values) {
    if (std::isfinite(v)) vmax = std::max(vmax, std::abs(double(v)));
  }
  if (vmax == 0) vmax = 1;

  const std::size_t row_digits = std::to_string(hm.row_first + rows).size();
  const std::size_t left = std::max(kCharW * row_digits, kCharW * hm.row_label.size()) + 10;  // tick labels
  const std::size_t top = 3 * kCharH + 14;  // title, row-axis label, column ticks
  const std::size_t plot_w = cols * cell, plot_h = rows * cell;
  const std::size_t bar_x = left + plot_w + 16, bar_w = 14;
  const std::size_t right = bar_w + 16 + kCharW * 9;
  const std::size_t bottom = kCharH + 12;  // column axis label
  Canvas canvas(left + plot_w + right + 16, top + std::max<std::size_t>(plot_h, 120) + bottom);

  canvas.text(left, 4, hm.title);
  std::uint8_t colour[3];
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) {
      diverging_colour(double(hm.values(r, c)) / vmax, colour);
      canvas.fill(left + c * cell, top + r * cell, cell, cell, colour);
    }
  }
  static constexpr std::uint8_t tick[3] = {60, 60, 60};
  const std::size_t col_step = tick_step(cols, std::max<std::size_t>(1, plot_w / (kCharW * 6)));
  for (std::size_t c = 0; c < cols; c += col_step) {
    canvas.fill(left + c * cell + cell / 2, top - 3, 1, 3, tick);
    canvas.text(left + c * cell, top - 4 - kCharH, std::to_string(hm.col_first + c));
  }
  const std::size_t row_step = tick_step(rows, std::max<std::size_t>(1, plot_h / (kCharH + 4)));
  for (std::size_t r = 0; r < rows; r += row_step) {
    const std::string label = std::to_string(hm.row_first + r);
    canvas.fill(left - 3, top + r * cell + cell / 2, 3, 1, tick);
    canvas.text(left - 6 - kCharW * label.size(), top + r * cell + cell / 2 - 3, label);
  }
  canvas.text(left + plot_w / 2 - kCharW * hm.col_label.size() / 2, top + plot_h + 4, hm.col_label);
  canvas.text(2, top - 6 - 2 * kCharH, hm.row_label);  // above the row ticks, left of the column ticks

  // Colour bar: +vmax at the top, -vmax at the bottom.
  const std::size_t bar_h = std::max<std::size_t>(plot_h, 120);
  for (std::size_t y = 0; y < bar_h; ++y) {
    diverging_colour(1.0 - 2.0 * double(y) / double(bar_h - 1), colour);
    canvas.fill(bar_x, top + y, bar_w, 1, colour);
  }
  canvas.text(bar_x + bar_w + 4, top, number(vmax));
  canvas.text(bar_x + bar_w + 4, top + bar_h / 2 - 3, "0");
  canvas.text(bar_x + bar_w + 4, top + bar_h - 7, number(-vmax));
  return {canvas.w, canvas.h, std::move(canvas.rgb)};
}

std::string encode_png(const Image& image) {
  std::string raw;  // filter byte 0 + RGB per row
  raw.reserve(image.height * (image.width * 3 + 1));
  for (std::size_t y = 0; y < image.height; ++y) {
    raw += '\0';
    raw.append(reinterpret_cast<const char*>(image.rgb.data() + y * image.width * 3), image.width * 3);
  }
  uLongf size = compressBound(static_cast<uLong>(raw.size()));
  std::string deflated(size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(deflated.data()), &size, reinterpret_cast<const Bytef*>(raw.data()),
                static_cast<uLong>(raw.size()), 9) != Z_OK) {
    throw Error("PNG compression failed");
  }
  deflated.resize(size);

  std::string png = "\x89PNG\r\n\x1a\n";
  std::string ihdr;
  put32(ihdr, static_cast<std::uint32_t>(image.width));
  put32(ihdr, static_cast<std::uint32_t>(image.height));
  ihdr += std::string("\x08\x02\x00\x00\x00", 5);  // 8-bit RGB, deflate, no filter method, no interlace
  chunk(png, "IHDR", ihdr);
  chunk(png, "IDAT", deflated);
  chunk(png, "IEND", "");
  return png;
}

void write_heatmap_png(OutputFile& out, const Heatmap& heatmap) { out.write(encode_png(render_heatmap(heatmap))); }

}  // namespace embedpe
