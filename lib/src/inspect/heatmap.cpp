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

namespace {

// What render_heatmap draws and where, computed in steps that each read what
// the ones before them set: the checked panels, the colour range, the legend's
// entries, then the layout; drawing reads it all.
class HeatmapPlot {
 public:
  explicit HeatmapPlot(const Heatmap& hm);
  Image draw() const;

 private:
  // The legend right of the plot: a colour bar with the range's ends, or for
  // categories one swatch per category drawn, in steps, under its ramp's label.
  struct Entry {
    std::size_t category;
    bool heading;  // the ramp's label above its first swatch
  };

  void check_panels();
  void find_range();
  void collect_entries();
  void lay_out();
  void draw_panel(Canvas& canvas, const HeatmapPanel& p, std::size_t x0) const;
  void draw_row_ticks(Canvas& canvas) const;
  void draw_legend(Canvas& canvas) const;

  // A key after its query (column label above row label) is masked.
  bool masked(std::size_t r, std::size_t c) const { return hm_.look.causal_mask && hm_.col_first + c > hm_.row_first + r; }
  std::size_t category(double v) const {
    return static_cast<std::size_t>(std::clamp(std::llround(v), 0LL, static_cast<long long>(hm_.look.categories) - 1));
  }
  void colour_of(double v, std::uint8_t rgb[3]) const {
    if (categorical_) return category_colour(category(v), hm_.look, rgb);
    if (diverging_) return diverging_colour(v / hi_, rgb);
    sequential_colour((v - lo_) / (hi_ - lo_), rgb);
  }
  std::size_t text_w(const std::string& t) const { return cw_ * t.size(); }
  const std::string& ramp_label(std::size_t category) const {
    const bool second = hm_.look.second_ramp && category >= hm_.look.second_ramp;
    return second ? hm_.look.second_ramp_label : hm_.look.first_ramp_label;
  }
  static void hatch(Canvas& canvas, std::size_t x, std::size_t y, std::size_t w, std::size_t h) {
    canvas.fill(x, y, w, h, kMaskGround);
    for (std::size_t yy = y; yy < y + h; ++yy)
      for (std::size_t xx = x; xx < x + w; ++xx)
        if ((xx + yy) % 4 == 0) canvas.set(xx, yy, kMaskHatch);
  }

  const Heatmap& hm_;
  std::size_t rows_, cols_;
  std::vector<HeatmapPanel> panels_;
  std::size_t shown_cols_ = 0;
  bool categorical_, diverging_;
  // The range covers the cells drawn with a colour: finite and not masked.
  double lo_ = 0, hi_ = 0;
  std::vector<bool> occurs_;  // the categories drawn
  std::vector<Entry> entries_;
  std::size_t swatches_ = 0;
  // The layout (lay_out).
  std::size_t cell_w_ = 0, cell_h_ = 0, gap_ = 0, plot_w_ = 0, plot_h_ = 0, scale_ = 1, cw_ = 0, ch_ = 0, left_ = 0;
  std::size_t bar_w_ = 0, swatch_h_ = 0, bar_h_ = 0, width_ = 0, height_ = 0;
  std::size_t title_pitch_ = 0, panel_title_y_ = 0, axis_y_ = 0, tick_y_ = 0, top_ = 0;
  bool legend_mask_ = false;
  std::vector<std::string> title_;
};

HeatmapPlot::HeatmapPlot(const Heatmap& hm)
    : hm_(hm),
      rows_(hm.values.shape()[0]),
      cols_(hm.values.shape()[1]),
      panels_(hm.look.panels),
      categorical_(hm.look.scale == ColourScale::categorical),
      diverging_(hm.look.scale == ColourScale::diverging) {
  check_panels();
  find_range();
  collect_entries();
  lay_out();
}

void HeatmapPlot::check_panels() {
  if (rows_ == 0 || cols_ == 0) throw UsageError("nothing to draw: the table is empty");
  if (panels_.empty()) {
    panels_.push_back({});
    for (std::size_t c = 0; c < cols_; ++c) panels_[0].columns.push_back(c);
  }
  constexpr std::size_t kMax = 1024;  // rows, and columns of a panel
  std::size_t widest = 0;
  for (const HeatmapPanel& p : panels_) widest = std::max(widest, p.columns.size());
  if (rows_ > kMax || widest > kMax) {
    throw UsageError("a PNG shows at most " + std::to_string(kMax) + " rows and columns (this table is " +
                         std::to_string(rows_) + " x " + std::to_string(widest) + "); narrow positions or dims",
                     {"positions", "dims"});
  }
  for (const HeatmapPanel& p : panels_) {
    for (std::size_t c : p.columns) {
      if (c >= cols_) throw InternalError("a heatmap panel names column " + std::to_string(c) + " of " +
                                 std::to_string(cols_));
    }
    shown_cols_ += p.columns.size();
  }
  if (shown_cols_ == 0) throw UsageError("nothing to draw: the table is empty");
  if (categorical_ && hm_.look.categories == 0) throw InternalError("a categorical heatmap without categories");
}

void HeatmapPlot::find_range() {
  bool any = false;
  occurs_.assign(categorical_ ? hm_.look.categories : 0, false);
  for (std::size_t r = 0; r < rows_; ++r) {
    for (std::size_t c = 0; c < cols_; ++c) {
      const double v = hm_.values(r, c);
      if (!std::isfinite(v) || masked(r, c)) continue;
      lo_ = any ? std::min(lo_, v) : v;
      hi_ = any ? std::max(hi_, v) : v;
      any = true;
      if (categorical_) occurs_[category(v)] = true;
    }
  }
  if (diverging_) {
    hi_ = std::max(std::abs(lo_), std::abs(hi_));
    if (hi_ == 0) hi_ = 1;
    lo_ = -hi_;
  } else if (!categorical_ && !(hi_ > lo_)) {
    hi_ = lo_ + 1;  // one value: drawn in the lowest colour, the bar still shows a range
  }
}

void HeatmapPlot::collect_entries() {
  if (!categorical_) return;
  const std::size_t split = hm_.look.second_ramp;
  bool first_ramp = false, second_ramp = false;
  for (std::size_t k = 0; k < occurs_.size(); ++k) (split && k >= split ? second_ramp : first_ramp) |= occurs_[k];
  for (std::size_t k = 0; k < occurs_.size(); ++k) {
    if (!occurs_[k]) continue;
    const bool in_second = split && k >= split;
    const bool both = first_ramp && second_ramp;
    const bool starts = entries_.empty() || (in_second && !(split && entries_.back().category >= split));
    if (starts && both && !ramp_label(k).empty()) entries_.push_back({k, true});
    entries_.push_back({k, false});
    ++swatches_;
  }
}

void HeatmapPlot::lay_out() {
  // Cells as wide and as tall as fit about 720 pixels, 2 to 24 each, so that
  // 50 positions of 512 dims fill a picture rather than a thin strip.
  cell_w_ = std::clamp<std::size_t>(720 / shown_cols_, 2, 24);
  cell_h_ = std::clamp<std::size_t>(720 / rows_, 2, 24);
  gap_ = panels_.size() > 1 ? 14 : 0;  // between panels
  for (const HeatmapPanel& p : panels_) plot_w_ += p.columns.size() * cell_w_;
  plot_w_ += gap_ * (panels_.size() - 1);
  plot_h_ = rows_ * cell_h_;
  // Text at twice the font's size once the plot is large enough to carry it
  // (every picture pe draws by default); a tiny plot keeps the small font.
  scale_ = plot_w_ >= 192 || plot_h_ >= 192 ? 2 : 1;
  cw_ = kCharW * scale_;
  ch_ = kCharH * scale_;
  const std::size_t row_digits = std::to_string(hm_.row_first + rows_).size();
  left_ = std::max(cw_ * row_digits, text_w(hm_.row_label)) + 10;  // tick labels

  bar_w_ = 7 * scale_ + 7;
  std::size_t legend_text = cw_ * 9;  // "-1.23e+04"
  if (categorical_) {
    legend_text = text_w(std::to_string(hm_.look.categories - 1));
    for (const Entry& e : entries_) {
      if (!e.heading) continue;
      // Headings start at the swatches' left edge.
      const std::size_t w = text_w(ramp_label(e.category));
      legend_text = std::max(legend_text, w > bar_w_ + 4 ? w - bar_w_ - 4 : 0);
    }
  }
  legend_mask_ = hm_.look.causal_mask && hm_.col_first + cols_ > hm_.row_first + 1;
  const std::size_t mask_legend_text = legend_mask_ ? text_w("masked") : 0;
  const std::size_t right = bar_w_ + 4 + std::max(legend_text, mask_legend_text) + 12;
  const std::size_t content_w = left_ + plot_w_ + 16 + right;
  title_ = wrap(hm_.title, std::max<std::size_t>((content_w - left_) / cw_, 60));
  std::size_t title_w = 0;
  for (const std::string& l : title_) title_w = std::max(title_w, l.size());
  // Title lines a little apart, and half a line between the title and what
  // is under it, so that a wrapped title does not run into the axis labels.
  title_pitch_ = ch_ + 2 * scale_;
  const std::size_t title_h = title_.size() * title_pitch_ + ch_ / 2 + 4;
  // Under the title: the panel titles (if any), then the axis labels (the
  // row axis label at the left, the column axis label centred over each panel),
  // then the column tick labels: each axis label by the ticks it names.
  const bool panel_titles =
      std::any_of(panels_.begin(), panels_.end(), [](const HeatmapPanel& p) { return !p.title.empty(); });
  panel_title_y_ = 4 + title_h;
  axis_y_ = panel_title_y_ + (panel_titles ? ch_ + 4 : 0);
  tick_y_ = axis_y_ + ch_ + 2;
  top_ = tick_y_ + ch_ + 6;
  const std::size_t bottom = 8;
  // Categories: swatches one above another, as tall as the plot allows
  // (3 to 2 lines of text each); labels every k-th when they would crowd.
  const std::size_t headings = entries_.size() - swatches_;
  swatch_h_ = categorical_ ? std::clamp<std::size_t>((std::max<std::size_t>(plot_h_, 120) - headings * (ch_ + 4)) /
                                                         std::max<std::size_t>(swatches_, 1),
                                                     3, 2 * ch_)
                           : 0;
  bar_h_ = categorical_ ? headings * (ch_ + 4) + swatches_ * swatch_h_ : std::max<std::size_t>(plot_h_, 120);
  const std::size_t legend_h = legend_mask_ ? 8 + bar_w_ + 4 : 0;
  width_ = std::max(content_w, left_ + cw_ * title_w + 16);
  height_ = top_ + std::max(plot_h_, bar_h_ + legend_h) + bottom;
}

void HeatmapPlot::draw_panel(Canvas& canvas, const HeatmapPanel& p, std::size_t x0) const {
  static constexpr std::uint8_t tick[3] = {60, 60, 60};
  std::uint8_t colour[3];
  const std::size_t w = p.columns.size() * cell_w_;
  canvas.text(x0, panel_title_y_, p.title, scale_);
  // The column axis label over each panel's own ticks (between two panels
  // it would name neither).
  canvas.text(x0 + w / 2 - std::min(w / 2, text_w(hm_.col_label) / 2), axis_y_, hm_.col_label, scale_);
  for (std::size_t r = 0; r < rows_; ++r) {
    for (std::size_t k = 0; k < p.columns.size(); ++k) {
      const std::size_t c = p.columns[k], x = x0 + k * cell_w_, y = top_ + r * cell_h_;
      if (masked(r, c)) {
        hatch(canvas, x, y, cell_w_, cell_h_);
        continue;
      }
      colour_of(hm_.values(r, c), colour);
      canvas.fill(x, y, cell_w_, cell_h_, colour);
    }
  }
  // Ticks at least a label and a space apart (the widest label's digits).
  const std::string widest_label = std::to_string(p.first_label.value_or(hm_.col_first) + cols_);
  const std::size_t step =
      tick_step(p.columns.size(), std::max<std::size_t>(1, w / std::max(cw_ * 6, text_w(widest_label) + cw_)));
  // A label ends before the next panel's (or the legend's) first label.
  const std::size_t label_end = x0 + w + (&p == &panels_.back() ? 16 : gap_) - cw_ / 2;
  for (std::size_t k = 0; k < p.columns.size(); k += step) {
    canvas.fill(x0 + k * cell_w_ + cell_w_ / 2, top_ - 3, 1, 3, tick);
    const std::string label = std::to_string(p.first_label ? *p.first_label + k : hm_.col_first + p.columns[k]);
    if (k == 0 || x0 + k * cell_w_ + text_w(label) <= label_end) canvas.text(x0 + k * cell_w_, tick_y_, label, scale_);
  }
}

void HeatmapPlot::draw_row_ticks(Canvas& canvas) const {
  static constexpr std::uint8_t tick[3] = {60, 60, 60};
  const std::size_t row_step = tick_step(rows_, std::max<std::size_t>(1, plot_h_ / (ch_ + 4)));
  for (std::size_t r = 0; r < rows_; r += row_step) {
    const std::string label = std::to_string(hm_.row_first + r);
    canvas.fill(left_ - 3, top_ + r * cell_h_ + cell_h_ / 2, 3, 1, tick);
    const std::size_t y = top_ + r * cell_h_ + cell_h_ / 2;
    canvas.text(left_ - 6 - text_w(label), y - std::min(y, 3 * scale_), label, scale_);
  }
}

void HeatmapPlot::draw_legend(Canvas& canvas) const {
  std::uint8_t colour[3];
  const std::size_t bar_x = left_ + plot_w_ + 16, label_x = bar_x + bar_w_ + 4;
  if (categorical_) {
    // One flat swatch per category drawn; its index beside it, every k-th when crowded.
    const std::size_t every = (ch_ + 2 + swatch_h_ - 1) / swatch_h_;
    std::size_t y = top_, n = 0;
    for (const Entry& e : entries_) {
      if (e.heading) {
        canvas.text(bar_x, y + 2, ramp_label(e.category), scale_);
        y += ch_ + 4;
        n = 0;  // each ramp labels its first swatch
        continue;
      }
      category_colour(e.category, hm_.look, colour);
      canvas.fill(bar_x, y, bar_w_, swatch_h_, colour);
      if (n++ % every == 0) {
        const std::size_t mid = y + swatch_h_ / 2;
        canvas.text(label_x, mid - std::min(mid, ch_ / 2 - scale_), std::to_string(e.category), scale_);
      }
      y += swatch_h_;
    }
  } else {
    // Colour bar: the range's top at the top, its bottom at the bottom.
    for (std::size_t y = 0; y < bar_h_; ++y) {
      colour_of(hi_ - (hi_ - lo_) * double(y) / double(bar_h_ - 1), colour);
      canvas.fill(bar_x, top_ + y, bar_w_, 1, colour);
    }
    canvas.text(label_x, top_, number(hi_), scale_);
    if (diverging_) canvas.text(label_x, top_ + bar_h_ / 2 - 3 * scale_, "0", scale_);
    canvas.text(label_x, top_ + bar_h_ - 7 * scale_, number(lo_), scale_);
  }
  if (legend_mask_) {
    const std::size_t y = top_ + bar_h_ + 8;
    hatch(canvas, bar_x, y, bar_w_, bar_w_);
    canvas.text(label_x, y + (bar_w_ - std::min(bar_w_, 7 * scale_)) / 2, "masked", scale_);
  }
}

Image HeatmapPlot::draw() const {
  Canvas canvas(width_, height_);
  for (std::size_t i = 0; i < title_.size(); ++i) canvas.text(left_, 4 + i * title_pitch_, title_[i], scale_);
  canvas.text(2, axis_y_, hm_.row_label, scale_);
  Image image;
  std::size_t x0 = left_;
  for (const HeatmapPanel& p : panels_) {
    const std::size_t w = p.columns.size() * cell_w_;
    image.panels.push_back({x0, top_, w, plot_h_});
    draw_panel(canvas, p, x0);
    x0 += w + gap_;
  }
  draw_row_ticks(canvas);
  draw_legend(canvas);
  image.width = canvas.w;
  image.height = canvas.h;
  image.rgb = std::move(canvas.rgb);
  image.title = hm_.title;
  image.range_min = lo_;
  image.range_max = hi_;
  return image;
}

}  // namespace

Image render_heatmap(const Heatmap& hm) { return HeatmapPlot(hm).draw(); }

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
