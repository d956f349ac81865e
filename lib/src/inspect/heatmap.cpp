#include "embedpe/heatmap.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "crc32.h"
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
    {'_', {".....", ".....", ".....", ".....", ".....", ".....", "#####"}},
    {'[', {".###.", ".#...", ".#...", ".#...", ".#...", ".#...", ".###."}},
    {']', {".###.", "...#.", "...#.", "...#.", "...#.", "...#.", ".###."}},
    {'<', {"...#.", "..#..", ".#...", "#....", ".#...", "..#..", "...#."}},
    {'>', {".#...", "..#..", "...#.", "....#", "...#.", "..#..", ".#..."}},
    {'*', {".....", "#.#.#", ".###.", "#####", ".###.", "#.#.#", "....."}},
    {'\'', {"..#..", "..#..", ".#...", ".....", ".....", ".....", "....."}},
    {'%', {"##..#", "##.#.", "...#.", "..#..", ".#...", ".#.##", "#..##"}},
};

const Glyph* glyph(char c) {
  for (const auto& g : kFont) {
    if (g.c == c) return &g;
  }
  if (c >= 'A' && c <= 'Z') return glyph(static_cast<char>(c - 'A' + 'a'));  // small capitals
  return nullptr;  // drawn as a space
}

constexpr std::size_t kCharW = 6, kCharH = 8;  // 5×7 glyph plus spacing

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
  // Text in the 5×7 font, each font pixel drawn as a scale × scale square.
  void text(std::size_t x, std::size_t y, std::string_view s, std::size_t scale = 1) {
    static constexpr std::uint8_t ink[3] = {20, 20, 20};
    for (char c : s) {
      if (const Glyph* g = glyph(c)) {
        for (std::size_t r = 0; r < 7; ++r)
          for (std::size_t k = 0; k < 5; ++k)
            if (g->rows[r][k] == '#') fill(x + k * scale, y + r * scale, scale, scale, ink);
      }
      x += kCharW * scale;
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
  put32(png, Crc32().add(body).value());
}

// Lines of at most `width` characters, broken at spaces where possible.
std::vector<std::string> wrap(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find(' ', pos);
    if (end == std::string::npos) end = text.size();
    std::string word = text.substr(pos, end - pos);
    pos = end + 1;
    while (word.size() > width) {  // a word longer than a line is cut
      if (!line.empty()) lines.push_back(std::move(line));
      lines.push_back(word.substr(0, width));
      word.erase(0, width);
      line.clear();
    }
    if (!line.empty() && line.size() + 1 + word.size() > width) lines.push_back(std::move(line)), line.clear();
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

// Linear interpolation between evenly spaced anchors, t in [0, 1].
template <std::size_t N>
void interpolate(const std::array<std::array<double, 3>, N>& anchors, double t, std::uint8_t rgb[3]) {
  const double x = std::clamp(t, 0.0, 1.0) * double(N - 1);
  const std::size_t i = std::min<std::size_t>(static_cast<std::size_t>(x), N - 2);
  const double f = x - static_cast<double>(i);
  for (int c = 0; c < 3; ++c) {
    rgb[c] = static_cast<std::uint8_t>(std::lround(anchors[i][c] + f * (anchors[i + 1][c] - anchors[i][c])));
  }
}

}  // namespace

void diverging_colour(double t, std::uint8_t rgb[3]) {
  // Anchors of a blue–white–red map (ColorBrewer RdBu, reversed).
  static constexpr std::array<std::array<double, 3>, 5> kAnchors = {{
      {33, 102, 172}, {146, 197, 222}, {247, 247, 247}, {244, 165, 130}, {178, 24, 43}}};
  if (!std::isfinite(t)) t = 0;
  interpolate(kAnchors, (std::clamp(t, -1.0, 1.0) + 1.0) / 2.0, rgb);
}

void sequential_colour(double t, std::uint8_t rgb[3]) {
  // Anchors of viridis (van der Walt and Smith, matplotlib) at 0, 1/4, ..., 1:
  // lightness rises evenly, so order reads without a legend, also in grey.
  static constexpr std::array<std::array<double, 3>, 5> kAnchors = {{
      {68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}};
  if (!std::isfinite(t)) t = 0;
  interpolate(kAnchors, t, rgb);
}

void category_colour(std::size_t category, const HeatmapLook& look, std::uint8_t rgb[3]) {
  // Two hue ramps, light (near) to dark (far): ColorBrewer Blues and Oranges.
  static constexpr std::array<std::array<double, 3>, 4> kFirst = {{
      {198, 219, 239}, {107, 174, 214}, {33, 113, 181}, {8, 48, 107}}};
  static constexpr std::array<std::array<double, 3>, 4> kSecond = {{
      {253, 208, 162}, {253, 141, 60}, {217, 72, 1}, {127, 39, 4}}};
  const std::size_t n = std::max<std::size_t>(look.categories, 1);
  const std::size_t split = look.second_ramp > 0 && look.second_ramp < n ? look.second_ramp : n;
  const std::size_t c = std::min(category, n - 1);
  const auto step = [](std::size_t i, std::size_t count) { return count > 1 ? double(i) / double(count - 1) : 0.0; };
  if (c < split) return interpolate(kFirst, step(c, split), rgb);
  interpolate(kSecond, step(c - split, n - split), rgb);
}

Image render_heatmap(const Heatmap& hm) {
  const std::size_t rows = hm.values.shape()[0], cols = hm.values.shape()[1];
  if (rows == 0 || cols == 0) throw UsageError("nothing to draw: the table is empty");
  std::vector<HeatmapPanel> panels = hm.look.panels;
  if (panels.empty()) {
    panels.push_back({});
    for (std::size_t c = 0; c < cols; ++c) panels[0].columns.push_back(c);
  }
  constexpr std::size_t kMax = 1024;  // rows, and columns of a panel
  std::size_t widest = 0;
  for (const HeatmapPanel& p : panels) widest = std::max(widest, p.columns.size());
  if (rows > kMax || widest > kMax) {
    throw UsageError("a PNG shows at most " + std::to_string(kMax) + " rows and columns (this table is " +
                         std::to_string(rows) + " x " + std::to_string(widest) + "); narrow positions or dims",
                     {"positions", "dims"});
  }
  std::size_t shown_cols = 0;
  for (const HeatmapPanel& p : panels) {
    for (std::size_t c : p.columns) {
      if (c >= cols) throw InternalError("a heatmap panel names column " + std::to_string(c) + " of " +
                                 std::to_string(cols));
    }
    shown_cols += p.columns.size();
  }
  if (shown_cols == 0) throw UsageError("nothing to draw: the table is empty");
  const bool categorical = hm.look.scale == ColourScale::categorical;
  if (categorical && hm.look.categories == 0) throw InternalError("a categorical heatmap without categories");

  // A key after its query (column label above row label) is masked.
  const auto masked = [&](std::size_t r, std::size_t c) {
    return hm.look.causal_mask && hm.col_first + c > hm.row_first + r;
  };
  const auto category = [&](double v) {
    return static_cast<std::size_t>(std::clamp(std::llround(v), 0LL, static_cast<long long>(hm.look.categories) - 1));
  };
  // The range covers the cells drawn with a colour: finite and not masked.
  double lo = 0, hi = 0;
  bool any = false;
  std::vector<bool> occurs(categorical ? hm.look.categories : 0);  // the categories drawn
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) {
      const double v = hm.values(r, c);
      if (!std::isfinite(v) || masked(r, c)) continue;
      lo = any ? std::min(lo, v) : v;
      hi = any ? std::max(hi, v) : v;
      any = true;
      if (categorical) occurs[category(v)] = true;
    }
  }
  const bool diverging = hm.look.scale == ColourScale::diverging;
  if (diverging) {
    hi = std::max(std::abs(lo), std::abs(hi));
    if (hi == 0) hi = 1;
    lo = -hi;
  } else if (!categorical && !(hi > lo)) {
    hi = lo + 1;  // one value: drawn in the lowest colour, the bar still shows a range
  }
  const auto colour_of = [&](double v, std::uint8_t rgb[3]) {
    if (categorical) return category_colour(category(v), hm.look, rgb);
    if (diverging) return diverging_colour(v / hi, rgb);
    sequential_colour((v - lo) / (hi - lo), rgb);
  };

  // Cells as wide and as tall as fit about 720 pixels, 2 to 24 each, so that
  // 50 positions of 512 dims fill a picture rather than a thin strip.
  const std::size_t cell_w = std::clamp<std::size_t>(720 / shown_cols, 2, 24);
  const std::size_t cell_h = std::clamp<std::size_t>(720 / rows, 2, 24);
  const std::size_t gap = panels.size() > 1 ? 14 : 0;  // between panels
  std::size_t plot_w = 0;
  for (const HeatmapPanel& p : panels) plot_w += p.columns.size() * cell_w;
  plot_w += gap * (panels.size() - 1);
  const std::size_t plot_h = rows * cell_h;
  // Text at twice the font's size once the plot is large enough to carry it
  // (every picture pe draws by default); a tiny plot keeps the small font.
  const std::size_t scale = plot_w >= 192 || plot_h >= 192 ? 2 : 1;
  const std::size_t cw = kCharW * scale, ch = kCharH * scale;
  const auto text_w = [&](const std::string& t) { return cw * t.size(); };
  const std::size_t row_digits = std::to_string(hm.row_first + rows).size();
  const std::size_t left = std::max(cw * row_digits, text_w(hm.row_label)) + 10;  // tick labels

  // The legend right of the plot: a colour bar with the range's ends, or for
  // categories one swatch per category drawn, in steps, under its ramp's label.
  struct Entry {
    std::size_t category;
    bool heading;  // the ramp's label above its first swatch
  };
  std::vector<Entry> entries;
  std::size_t swatches = 0;
  if (categorical) {
    const std::size_t split = hm.look.second_ramp;
    bool first_ramp = false, second_ramp = false;
    for (std::size_t k = 0; k < occurs.size(); ++k) (split && k >= split ? second_ramp : first_ramp) |= occurs[k];
    for (std::size_t k = 0; k < occurs.size(); ++k) {
      if (!occurs[k]) continue;
      const bool in_second = split && k >= split;
      const std::string& label = in_second ? hm.look.second_ramp_label : hm.look.first_ramp_label;
      const bool both = first_ramp && second_ramp;
      const bool starts = entries.empty() || (in_second && !(split && entries.back().category >= split));
      if (starts && both && !label.empty()) entries.push_back({k, true});
      entries.push_back({k, false});
      ++swatches;
    }
  }
  const std::size_t bar_w = 7 * scale + 7;
  std::size_t legend_text = cw * 9;  // "-1.23e+04"
  if (categorical) {
    legend_text = text_w(std::to_string(hm.look.categories - 1));
    for (const Entry& e : entries) {
      if (e.heading) {
        const bool in_second = hm.look.second_ramp && e.category >= hm.look.second_ramp;
        // Headings start at the swatches' left edge.
        const std::size_t w = text_w(in_second ? hm.look.second_ramp_label : hm.look.first_ramp_label);
        legend_text = std::max(legend_text, w > bar_w + 4 ? w - bar_w - 4 : 0);
      }
    }
  }
  const bool legend_mask = hm.look.causal_mask && hm.col_first + cols > hm.row_first + 1;
  const std::size_t mask_legend_text = legend_mask ? text_w("masked") : 0;
  const std::size_t right = bar_w + 4 + std::max(legend_text, mask_legend_text) + 12;
  const std::size_t content_w = left + plot_w + 16 + right;
  const std::vector<std::string> title = wrap(hm.title, std::max<std::size_t>((content_w - left) / cw, 60));
  std::size_t title_w = 0;
  for (const std::string& l : title) title_w = std::max(title_w, l.size());
  // Title lines a little apart, and half a line between the title and what
  // is under it, so that a wrapped title does not run into the axis labels.
  const std::size_t title_pitch = ch + 2 * scale;
  const std::size_t title_h = title.size() * title_pitch + ch / 2 + 4;
  // Under the title: the panel titles (if any), then the axis labels (the
  // row axis label at the left, the column axis label centred over each panel),
  // then the column tick labels: each axis label by the ticks it names.
  const bool panel_titles =
      std::any_of(panels.begin(), panels.end(), [](const HeatmapPanel& p) { return !p.title.empty(); });
  const std::size_t panel_title_y = 4 + title_h, axis_y = panel_title_y + (panel_titles ? ch + 4 : 0);
  const std::size_t tick_y = axis_y + ch + 2;
  const std::size_t top = tick_y + ch + 6;
  const std::size_t bottom = 8;
  // Categories: swatches one above another, as tall as the plot allows
  // (3 to 2 lines of text each); labels every k-th when they would crowd.
  const std::size_t headings = entries.size() - swatches;
  const std::size_t swatch_h =
      categorical ? std::clamp<std::size_t>((std::max<std::size_t>(plot_h, 120) - headings * (ch + 4)) /
                                                std::max<std::size_t>(swatches, 1),
                                            3, 2 * ch)
                  : 0;
  const std::size_t bar_h = categorical ? headings * (ch + 4) + swatches * swatch_h : std::max<std::size_t>(plot_h, 120);
  const std::size_t legend_h = legend_mask ? 8 + bar_w + 4 : 0;
  Canvas canvas(std::max(content_w, left + cw * title_w + 16),
                top + std::max(plot_h, bar_h + legend_h) + bottom);

  for (std::size_t i = 0; i < title.size(); ++i) canvas.text(left, 4 + i * title_pitch, title[i], scale);
  canvas.text(2, axis_y, hm.row_label, scale);

  Image image;
  std::uint8_t colour[3];
  static constexpr std::uint8_t tick[3] = {60, 60, 60};
  std::size_t x0 = left;
  for (const HeatmapPanel& p : panels) {
    const std::size_t w = p.columns.size() * cell_w;
    image.panels.push_back({x0, top, w, plot_h});
    canvas.text(x0, panel_title_y, p.title, scale);
    // The column axis label over each panel's own ticks (between two panels
    // it would name neither).
    canvas.text(x0 + w / 2 - std::min(w / 2, text_w(hm.col_label) / 2), axis_y, hm.col_label, scale);
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t k = 0; k < p.columns.size(); ++k) {
        const std::size_t c = p.columns[k], x = x0 + k * cell_w, y = top + r * cell_h;
        if (masked(r, c)) {
          canvas.fill(x, y, cell_w, cell_h, kMaskGround);
          for (std::size_t yy = y; yy < y + cell_h; ++yy)
            for (std::size_t xx = x; xx < x + cell_w; ++xx)
              if ((xx + yy) % 4 == 0) canvas.set(xx, yy, kMaskHatch);
          continue;
        }
        colour_of(hm.values(r, c), colour);
        canvas.fill(x, y, cell_w, cell_h, colour);
      }
    }
    // Ticks at least a label and a space apart (the widest label's digits).
    const std::string widest_label = std::to_string(p.first_label.value_or(hm.col_first) + cols);
    const std::size_t step =
        tick_step(p.columns.size(), std::max<std::size_t>(1, w / std::max(cw * 6, text_w(widest_label) + cw)));
    // A label ends before the next panel's (or the legend's) first label.
    const std::size_t label_end = x0 + w + (&p == &panels.back() ? 16 : gap) - cw / 2;
    for (std::size_t k = 0; k < p.columns.size(); k += step) {
      canvas.fill(x0 + k * cell_w + cell_w / 2, top - 3, 1, 3, tick);
      const std::string label = std::to_string(p.first_label ? *p.first_label + k : hm.col_first + p.columns[k]);
      if (k == 0 || x0 + k * cell_w + text_w(label) <= label_end) canvas.text(x0 + k * cell_w, tick_y, label, scale);
    }
    x0 += w + gap;
  }
  const std::size_t row_step = tick_step(rows, std::max<std::size_t>(1, plot_h / (ch + 4)));
  for (std::size_t r = 0; r < rows; r += row_step) {
    const std::string label = std::to_string(hm.row_first + r);
    canvas.fill(left - 3, top + r * cell_h + cell_h / 2, 3, 1, tick);
    const std::size_t y = top + r * cell_h + cell_h / 2;
    canvas.text(left - 6 - text_w(label), y - std::min(y, 3 * scale), label, scale);
  }

  const std::size_t bar_x = left + plot_w + 16, label_x = bar_x + bar_w + 4;
  if (categorical) {
    // One flat swatch per category drawn; its index beside it, every k-th when crowded.
    const std::size_t every = (ch + 2 + swatch_h - 1) / swatch_h;
    std::size_t y = top, n = 0;
    for (const Entry& e : entries) {
      if (e.heading) {
        const bool in_second = hm.look.second_ramp && e.category >= hm.look.second_ramp;
        canvas.text(bar_x, y + 2, in_second ? hm.look.second_ramp_label : hm.look.first_ramp_label, scale);
        y += ch + 4;
        n = 0;  // each ramp labels its first swatch
        continue;
      }
      category_colour(e.category, hm.look, colour);
      canvas.fill(bar_x, y, bar_w, swatch_h, colour);
      if (n++ % every == 0) {
        const std::size_t mid = y + swatch_h / 2;
        canvas.text(label_x, mid - std::min(mid, ch / 2 - scale), std::to_string(e.category), scale);
      }
      y += swatch_h;
    }
  } else {
    // Colour bar: the range's top at the top, its bottom at the bottom.
    for (std::size_t y = 0; y < bar_h; ++y) {
      colour_of(hi - (hi - lo) * double(y) / double(bar_h - 1), colour);
      canvas.fill(bar_x, top + y, bar_w, 1, colour);
    }
    canvas.text(label_x, top, number(hi), scale);
    if (diverging) canvas.text(label_x, top + bar_h / 2 - 3 * scale, "0", scale);
    canvas.text(label_x, top + bar_h - 7 * scale, number(lo), scale);
  }
  if (legend_mask) {
    const std::size_t y = top + bar_h + 8;
    canvas.fill(bar_x, y, bar_w, bar_w, kMaskGround);
    for (std::size_t yy = y; yy < y + bar_w; ++yy)
      for (std::size_t xx = bar_x; xx < bar_x + bar_w; ++xx)
        if ((xx + yy) % 4 == 0) canvas.set(xx, yy, kMaskHatch);
    canvas.text(label_x, y + (bar_w - std::min(bar_w, 7 * scale)) / 2, "masked", scale);
  }
  image.width = canvas.w;
  image.height = canvas.h;
  image.rgb = std::move(canvas.rgb);
  image.title = hm.title;
  image.range_min = lo;
  image.range_max = hi;
  return image;
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
  if (!image.title.empty()) {
    // tEXt is Latin-1 without NUL: anything else is written as '?'.
    std::string text = std::string("Title") + '\0';
    for (char c : image.title) text += (c >= 32 && c < 127) ? c : '?';
    chunk(png, "tEXt", text);
  }
  chunk(png, "IDAT", deflated);
  chunk(png, "IEND", "");
  return png;
}

void write_heatmap_png(OutputFile& out, const Heatmap& heatmap) { out.write(encode_png(render_heatmap(heatmap))); }

}  // namespace embedpe
