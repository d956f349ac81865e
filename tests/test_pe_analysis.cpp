#include <doctest/doctest.h>

#include <cmath>
#include <numbers>

#include "embedpe/pe_analysis.h"

using namespace embedpe;

TEST_CASE("frequency stats: wavelengths 2π·base^(2i/d), flags") {
  SinusoidalEncoding pe({.d_model = 8, .max_len = 100});
  const auto s = frequency_stats(pe, 100);
  REQUIRE(s.size() == 4);
  CHECK(s[0].wavelength == doctest::Approx(2 * std::numbers::pi));
  CHECK(s[1].wavelength == doctest::Approx(2 * std::numbers::pi * 10));
  CHECK(s[1].sin_dim == 2);
  CHECK(s[1].cos_dim == 3);
  CHECK_FALSE(s[1].incomplete);
  CHECK(s[2].incomplete);  // 628 positions > 100
  CHECK_FALSE(s[0].aliases);
  SinusoidalEncoding fast({.d_model = 8, .max_len = 100, .position_scale = 0.25});
  CHECK(frequency_stats(fast, 100)[0].aliases);
  SinusoidalEncoding concat({.d_model = 7, .max_len = 10, .layout = PeLayout::concat});
  const auto c = frequency_stats(concat, 10);
  REQUIRE(c.size() == 4);
  CHECK(c[1].cos_dim == 5);
  CHECK(c[3].cos_dim == c[3].sin_dim);  // the odd extra sin has no cos
}

TEST_CASE("precision audit: float32 computed the naive way (the PyTorch recipe) grows with position, embedpe's storage formats do not") {
  const auto bands = audit_precision({.d_model = 64}, 0, 1000000);
  REQUIRE(bands.size() == 6);
  CHECK(bands.front().max_error[0] < 1e-6);
  CHECK(bands.back().max_error[0] > 1e-2);
  CHECK(bands.back().max_error[1] < 2.5e-4);
  CHECK(bands.back().sampled == 2000);
  CHECK(audit_precision({.d_model = 8}, 100, 50).size() == 8);  // one decade: eight equal bands
}

TEST_CASE("similarity is the symmetric Gram matrix") {
  xt::xtensor<float, 2> rows = {{1, 0}, {0, 2}, {1, 1}};
  const auto s = similarity(rows);
  CHECK(s(0, 0) == 1);
  CHECK(s(1, 1) == 4);
  CHECK(s(1, 2) == 2);
  CHECK(s(2, 1) == 2);
}
