#include <doctest/doctest.h>

#include <cmath>

#include "embedpe/alibi.h"
#include "embedpe/error.h"

using namespace embedpe;

TEST_CASE("ALiBi slopes: powers of two are 2^(-8h/n)") {
  const auto s = alibi_slopes(8);
  REQUIRE(s.size() == 8);
  for (std::size_t h = 0; h < 8; ++h) CHECK(s[h] == doctest::Approx(std::pow(2.0, -double(h + 1))));
}

TEST_CASE("ALiBi slopes: other head counts interleave the next power of two") {
  // 6 heads: the 4 slopes of 4 heads, then slopes 0 and 2 of 8 heads.
  const auto s = alibi_slopes(6);
  REQUIRE(s.size() == 6);
  CHECK(s[0] == doctest::Approx(0.25));
  CHECK(s[3] == doctest::Approx(1.0 / 256));
  CHECK(s[4] == doctest::Approx(0.5));
  CHECK(s[5] == doctest::Approx(0.125));
  CHECK(alibi_slopes(1) == std::vector<double>{std::pow(2.0, -8.0)});
  CHECK_THROWS_AS(alibi_slopes(0), UsageError);
}

TEST_CASE("ALiBi bias is slope · (j - i)") {
  const auto b = alibi_bias({0.5, 0.25}, 4);
  CHECK(b.shape()[0] == 2);
  CHECK(b(0, 3, 0) == -1.5f);
  CHECK(b(1, 2, 2) == 0.0f);
  CHECK(b(1, 0, 2) == 0.5f);
}
