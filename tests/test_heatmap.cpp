#include <doctest/doctest.h>

#include <string_view>

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
