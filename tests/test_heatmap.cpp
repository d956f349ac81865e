#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "embedpe/error.h"
#include "embedpe/heatmap.h"

using namespace embedpe;

TEST_CASE("the colour map is blue below zero, white at zero, red above") {
  std::uint8_t c[3];
  diverging_colour(-1, c);
  CHECK(c[2] > c[0]);
  diverging_colour(0, c);
  CHECK((c[0] == 247 && c[1] == 247 && c[2] == 247));
  diverging_colour(1, c);
  CHECK((c[0] == 178 && c[1] == 24 && c[2] == 43));
  diverging_colour(5, c);  // clamped
  CHECK(c[0] == 178);
}

TEST_CASE("a heatmap has a cell of several pixels per value and a legend") {
  // Built, not assigned: GCC 12 warns falsely (-Wrestrict) on assigning a
  // literal to the std::string member here.
  const Heatmap h{.values = {{1.0f, -1.0f}, {0.0f, 0.5f}}, .title = "t"};
  const Image img = render_heatmap(h);
  CHECK(img.width >= 2 * 24);
  CHECK(img.rgb.size() == img.width * img.height * 3);
  std::size_t red = 0;
  for (std::size_t p = 0; p < img.width * img.height; ++p) {
    red += img.rgb[3 * p] == 178 && img.rgb[3 * p + 1] == 24 && img.rgb[3 * p + 2] == 43;
  }
  CHECK(red >= 24 * 24);  // the +1 cell (the colour bar adds a few more)
  const std::string png = encode_png(img);
  const std::string_view view(png);
  CHECK(view.substr(0, 8) == std::string_view("\x89PNG\r\n\x1a\n", 8));
  CHECK(view.substr(12, 4) == "IHDR");
}

TEST_CASE("heatmaps refuse empty and enormous tables") {
  Heatmap h;
  h.values = xt::xtensor<float, 2>::from_shape({0, 3});
  CHECK_THROWS_AS(render_heatmap(h), UsageError);
  h.values = xt::xtensor<float, 2>::from_shape({2000, 3});
  CHECK_THROWS_WITH_AS(render_heatmap(h), doctest::Contains("narrow positions"), UsageError);  // parameters, not flags (issue 12)
}

namespace {

using Rgb = std::array<std::uint8_t, 3>;

Rgb pixel(const Image& img, std::size_t x, std::size_t y) {
  const std::size_t at = (y * img.width + x) * 3;
  return {img.rgb[at], img.rgb[at + 1], img.rgb[at + 2]};
}

// The colour of cell (r, k) of panel p: its centre pixel.
Rgb cell(const Image& img, std::size_t p, std::size_t r, std::size_t k, std::size_t rows, std::size_t cols) {
  const ImageRect& box = img.panels.at(p);
  return pixel(img, box.x + (2 * k + 1) * box.width / (2 * cols), box.y + (2 * r + 1) * box.height / (2 * rows));
}

Rgb diverging(double t) {
  Rgb c;
  diverging_colour(t, c.data());
  return c;
}

Rgb sequential(double t) {
  Rgb c;
  sequential_colour(t, c.data());
  return c;
}

}  // namespace

TEST_CASE("the sequential colour map runs from the data's minimum to its maximum, not over a ± range") {
  Heatmap h{.values = {{13.0f, 20.0f, 32.0f}, {20.0f, 32.0f, 20.0f}, {32.0f, 20.0f, 13.0f}}, .title = "similarity"};
  h.look.scale = ColourScale::sequential;
  const Image img = render_heatmap(h);
  CHECK(img.range_min == 13.0);
  CHECK(img.range_max == 32.0);
  CHECK(cell(img, 0, 0, 0, 3, 3) == sequential(0));  // the minimum: the map's dark end
  CHECK(cell(img, 0, 1, 1, 3, 3) == sequential(1));  // the maximum: its light end
  CHECK(cell(img, 0, 0, 1, 3, 3) == sequential((20.0 - 13.0) / (32.0 - 13.0)));
  CHECK(sequential(0) != sequential(1));
  // Lightness rises along the map, so that order reads without the legend.
  auto light = [](Rgb c) { return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]; };
  for (int i = 0; i < 10; ++i) CHECK(light(sequential(i / 10.0)) < light(sequential((i + 1) / 10.0)));
  SUBCASE("the diverging map, by contrast, spans ± the largest magnitude") {
    h.look.scale = ColourScale::diverging;
    const Image d = render_heatmap(h);
    CHECK(d.range_min == -32.0);
    CHECK(d.range_max == 32.0);
    CHECK(cell(d, 0, 1, 1, 3, 3) == diverging(1));
  }
}

TEST_CASE("a causal mask draws the keys after each query hatched, and leaves them out of the range") {
  // Rows and columns are labelled from 5: cell (r, c) is masked when c > r.
  Heatmap h{.values = {{0.0f, 9.0f, 9.0f}, {-1.0f, 0.0f, 9.0f}, {-2.0f, -1.0f, 0.0f}}, .title = "alibi",
            .row_label = "query", .col_label = "key", .row_first = 5, .col_first = 5};
  h.look = {.scale = ColourScale::sequential, .causal_mask = true};
  const Image img = render_heatmap(h);
  CHECK(img.range_min == -2.0);
  CHECK(img.range_max == 0.0);  // the 9s are masked
  const ImageRect box = img.panels.at(0);
  const Rgb ground{kMaskGround[0], kMaskGround[1], kMaskGround[2]}, hatch{kMaskHatch[0], kMaskHatch[1], kMaskHatch[2]};
  for (std::size_t r = 0; r < 3; ++r) {
    for (std::size_t c = 0; c < 3; ++c) {
      std::size_t masked = 0, hatched = 0;
      for (std::size_t y = box.y + r * box.height / 3; y < box.y + (r + 1) * box.height / 3; ++y) {
        for (std::size_t x = box.x + c * box.width / 3; x < box.x + (c + 1) * box.width / 3; ++x) {
          const Rgb p = pixel(img, x, y);
          masked += p == ground || p == hatch;
          hatched += p == hatch;
        }
      }
      const std::size_t area = (box.height / 3) * (box.width / 3);
      INFO("cell ", r, ",", c);
      if (c > r) {
        CHECK(masked == area);
        CHECK(hatched > area / 8);
      } else {
        CHECK(masked == 0);
      }
    }
  }
  CHECK(cell(img, 0, 0, 0, 3, 3) == sequential(1));  // bias 0 on the diagonal: the top of the range
  CHECK(cell(img, 0, 2, 0, 3, 3) == sequential(0));
}

TEST_CASE("panels draw groups of columns apart, in their own order, with no column of another between") {
  // Interleaved sin/cos: sin columns are 0 at position 0, cos columns 1.
  auto values = xt::xtensor<float, 2>::from_shape({2, 8});
  for (std::size_t c = 0; c < 8; ++c) {
    values(0, c) = c % 2 ? 1.0f : 0.0f;
    values(1, c) = c % 2 ? 0.5f : -0.5f;
  }
  Heatmap h{.values = values, .title = "t"};
  h.look.panels = {{"sin", {0, 2, 4, 6}}, {"cos", {1, 3, 5, 7}}};
  const Image img = render_heatmap(h);
  REQUIRE(img.panels.size() == 2);
  CHECK(img.panels[1].x > img.panels[0].x + img.panels[0].width);  // a gap between them
  CHECK(img.panels[0].width == img.panels[1].width);
  for (std::size_t k = 0; k < 4; ++k) {
    CHECK(cell(img, 0, 0, k, 2, 4) == diverging(0));
    CHECK(cell(img, 1, 0, k, 2, 4) == diverging(1));
    CHECK(cell(img, 0, 1, k, 2, 4) == diverging(-0.5));
    CHECK(cell(img, 1, 1, k, 2, 4) == diverging(0.5));
  }
  h.look.panels = {{"bad", {8}}};
  CHECK_THROWS_AS(render_heatmap(h), Error);
}

TEST_CASE("cells are as wide and as tall as fit: 50 positions of 512 dims fill a picture, not a strip") {
  const Heatmap h{.values = xt::xtensor<float, 2>::from_shape({50, 512}), .title = "wide"};
  const Image img = render_heatmap(h);
  CHECK(img.panels.at(0).width == 512 * 2);
  CHECK(img.panels.at(0).height == 50 * 14);
}

TEST_CASE("the title is drawn whole, wrapped when long, and kept in the PNG's tEXt Title") {
  auto ink_rows = [](const Image& img, std::size_t y_end) {
    std::size_t n = 0;
    for (std::size_t y = 0; y < y_end; ++y)
      for (std::size_t x = 0; x < img.width; ++x) n += pixel(img, x, y) == Rgb{20, 20, 20};
    return n;
  };
  const Heatmap plain{.values = {{1.0f}}, .title = "a b"};
  const Heatmap underscore{.values = {{1.0f}}, .title = "a_b"};
  CHECK(ink_rows(render_heatmap(underscore), 12) > ink_rows(render_heatmap(plain), 12));  // '_' has a glyph
  std::string long_title;
  for (int i = 0; i < 30; ++i) long_title += "param_" + std::to_string(i) + " 1e4, ";
  const Heatmap wide{.values = {{1.0f}}, .title = long_title};
  const Image img = render_heatmap(wide);
  CHECK(img.width < 800);  // wrapped, not one line of 400 characters
  CHECK(img.panels.at(0).y > render_heatmap(plain).panels.at(0).y + 3 * 8);  // below several title lines
  const std::string png = encode_png(img);
  const std::string want = "tEXtTitle" + std::string(1, '\0') + long_title;
  CHECK(png.find(want) != std::string::npos);
}

TEST_CASE("categories are flat colours, two hue ramps when asked, distinct from one another") {
  HeatmapLook look{.scale = ColourScale::categorical, .categories = 32, .second_ramp = 16};
  std::vector<Rgb> seen;
  for (std::size_t k = 0; k < 32; ++k) {
    Rgb c;
    category_colour(k, look, c.data());
    INFO("category ", k);
    CHECK(std::find(seen.begin(), seen.end(), c) == seen.end());
    CHECK((k < 16 ? c[2] > c[0] : c[0] > c[2]));  // blue ramp, then orange
    seen.push_back(c);
  }
  // A matrix of categories: every cell its category's colour, nothing in between.
  Heatmap h{.values = {{0.0f, 17.0f, 18.0f}, {1.0f, 0.0f, 17.0f}, {2.0f, 1.0f, 0.0f}}, .title = "buckets",
            .row_label = "query", .col_label = "key"};
  h.look = look;
  h.look.first_ramp_label = "key<=query";
  h.look.second_ramp_label = "key>query";
  const Image img = render_heatmap(h);
  for (std::size_t r = 0; r < 3; ++r) {
    for (std::size_t c = 0; c < 3; ++c) {
      Rgb want;
      category_colour(static_cast<std::size_t>(h.values(r, c)), look, want.data());
      CHECK(cell(img, 0, r, c, 3, 3) == want);
    }
  }
  // The legend: a swatch per category drawn (0, 1, 2, 17, 18), and no other colour of either ramp.
  const ImageRect box = img.panels.at(0);
  std::size_t legend_colours = 0;
  for (std::size_t k = 0; k < 32; ++k) {
    bool found = false;
    for (std::size_t y = 0; y < img.height && !found; ++y)
      for (std::size_t x = box.x + box.width; x < img.width && !found; ++x) found = pixel(img, x, y) == seen[k];
    const bool drawn = k <= 2 || k == 17 || k == 18;
    INFO("category ", k);
    CHECK(found == drawn);
    legend_colours += found;
  }
  CHECK(legend_colours == 5);
  look.categories = 0;
  h.look = look;
  CHECK_THROWS_AS(render_heatmap(h), InternalError);
}

TEST_CASE("the limit of 1024 columns is a panel's: RoPE's cos and sin panels of d=1024 fit") {
  Heatmap h{.values = xt::xtensor<float, 2>::from_shape({2, 2048}), .title = "wide"};
  CHECK_THROWS_WITH_AS(render_heatmap(h), doctest::Contains("narrow positions or dims"), UsageError);
  h.values.fill(0.5f);
  h.look.panels = {{"cos", {}, 0}, {"sin", {}, 0}};
  for (std::size_t c = 0; c < 1024; ++c) {
    h.look.panels[0].columns.push_back(c);
    h.look.panels[1].columns.push_back(1024 + c);
  }
  const Image img = render_heatmap(h);
  CHECK(img.panels.size() == 2);
}

TEST_CASE("text is drawn at twice the font's size once the plot is large, once when it is tiny") {
  // The tallest vertical run of ink: a glyph's stem, 7 font pixels.
  auto stem = [](const Image& img) {
    std::size_t best = 0;
    for (std::size_t x = 0; x < img.width; ++x) {
      std::size_t run = 0;
      for (std::size_t y = 0; y < img.height; ++y) {
        run = pixel(img, x, y) == Rgb{20, 20, 20} ? run + 1 : 0;
        best = std::max(best, run);
      }
    }
    return best;
  };
  CHECK(stem(render_heatmap({.values = {{1.0f}}, .title = "l1"})) == 7);
  Heatmap large{.values = xt::xtensor<float, 2>::from_shape({50, 64}), .title = "l1"};
  large.values.fill(0.25f);
  CHECK(stem(render_heatmap(large)) == 14);
}

TEST_CASE("each panel has the column axis label over its own ticks, and a wrapped title stays clear of the labels") {
  // The pixels a label draws: the image with it against the image without it.
  auto label_pixels = [](Heatmap with) {
    Heatmap without = with;
    without.col_label = "";
    const Image a = render_heatmap(with), b = render_heatmap(without);
    REQUIRE((a.width == b.width && a.height == b.height));
    std::vector<std::array<std::size_t, 2>> out;
    for (std::size_t y = 0; y < a.height; ++y)
      for (std::size_t x = 0; x < a.width; ++x)
        if (pixel(a, x, y) != pixel(b, x, y)) out.push_back({x, y});
    return std::make_pair(a, out);
  };
  Heatmap two{.values = xt::xtensor<float, 2>::from_shape({64, 64}), .title = "RoPE"};
  two.values.fill(0.5f);
  two.look.panels = {{"cos", {}}, {"sin", {}}};
  for (std::size_t c = 0; c < 64; ++c) two.look.panels[c % 2].columns.push_back(c);
  const auto [img, ink] = label_pixels(two);
  REQUIRE(img.panels.size() == 2);
  for (const ImageRect& p : img.panels) {
    // "dim" centred over the panel: the mean x of its pixels within the panel is its middle.
    std::size_t n = 0, sum = 0;
    for (const auto& [x, y] : ink) {
      if (x >= p.x && x < p.x + p.width) ++n, sum += x;
    }
    REQUIRE(n > 0);
    CHECK(sum / n > p.x + p.width / 2 - 12);
    CHECK(sum / n < p.x + p.width / 2 + 12);
  }
  // A title that wraps: its last line ends more than 12 px (three quarters of a line at this size)
  // above the label (9 before: it nearly touched the axis labels).
  std::string long_title = "T5 relative position buckets (bidirectional, 32 buckets, max_distance 128) and more words";
  Heatmap titled{.values = xt::xtensor<float, 2>::from_shape({64, 64}), .title = long_title, .col_label = "key"};
  titled.values.fill(0.5f);
  const auto [timg, label] = label_pixels(titled);
  REQUIRE(!label.empty());
  std::size_t label_top = timg.height;
  for (const auto& [x, y] : label) label_top = std::min(label_top, y);
  std::size_t title_bottom = 0;
  for (std::size_t y = 0; y < label_top; ++y)
    for (std::size_t x = 0; x < timg.width; ++x)
      if (pixel(timg, x, y) == Rgb{20, 20, 20}) title_bottom = y;
  CHECK(title_bottom > 20);  // two lines at least
  CHECK(label_top > title_bottom + 12);
}
