#include <doctest/doctest.h>

#include <cmath>
#include <numbers>

#include "embedpe/error.h"
#include "embedpe/rope.h"

using namespace embedpe;

TEST_CASE("RoPE default: inv_freq = 1 / theta^(2i/dim), cos/sin in rotate_half layout") {
  const auto f = rope_frequencies({.dim = 8, .theta = 10000});
  REQUIRE(f.inv_freq.size() == 4);
  for (std::size_t i = 0; i < 4; ++i) CHECK(f.inv_freq[i] == doctest::Approx(1.0 / std::pow(10000.0, 2.0 * double(i) / 8)));
  auto [cos, sin] = rope_tables(f, 3, 2);
  REQUIRE(cos.shape()[0] == 2);
  REQUIRE(cos.shape()[1] == 8);
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(cos(0, i) == static_cast<float>(std::cos(3.0 * f.inv_freq[i])));
    CHECK(cos(0, i + 4) == cos(0, i));
    CHECK(sin(1, i) == static_cast<float>(std::sin(4.0 * f.inv_freq[i])));
  }
}

TEST_CASE("RoPE scalings") {
  const auto base = rope_frequencies({.dim = 64, .theta = 500000});
  SUBCASE("linear divides every frequency") {
    const auto f = rope_frequencies({.dim = 64, .theta = 500000, .scaling = RopeScaling::linear, .factor = 4});
    for (std::size_t i = 0; i < 32; ++i) CHECK(f.inv_freq[i] == doctest::Approx(base.inv_freq[i] / 4));
  }
  SUBCASE("llama3 keeps high frequencies and divides low ones") {
    const auto f = rope_frequencies({.dim = 64, .theta = 500000, .scaling = RopeScaling::llama3, .factor = 8,
                                     .original_max_positions = 8192});
    CHECK(f.inv_freq[0] == base.inv_freq[0]);
    CHECK(f.inv_freq[31] == doctest::Approx(base.inv_freq[31] / 8));
  }
  SUBCASE("yarn: attention factor 0.1 ln(s) + 1") {
    const auto f = rope_frequencies({.dim = 64, .theta = 500000, .scaling = RopeScaling::yarn, .factor = 8,
                                     .original_max_positions = 4096});
    CHECK(f.attention_factor == doctest::Approx(0.1 * std::log(8.0) + 1));
    CHECK(f.inv_freq[0] == doctest::Approx(base.inv_freq[0]));
    CHECK(f.inv_freq[31] == doctest::Approx(base.inv_freq[31] / 8));
  }
  SUBCASE("dynamic changes nothing within the original context") {
    const auto f = rope_frequencies({.dim = 64, .theta = 500000, .scaling = RopeScaling::dynamic, .factor = 2,
                                     .original_max_positions = 4096, .seq_len = 100});
    for (std::size_t i = 0; i < 32; ++i) CHECK(f.inv_freq[i] == doctest::Approx(base.inv_freq[i]));
  }
}

TEST_CASE("RoPE needs an even dimension and a sane theta") {
  CHECK_THROWS_AS(rope_frequencies({.dim = 7}), UsageError);
  CHECK_THROWS_AS(rope_frequencies({.dim = 0}), UsageError);
  CHECK_THROWS_AS(rope_frequencies({.dim = 8, .theta = 1}), UsageError);
  CHECK_THROWS_AS(rope_frequencies({.dim = 8, .scaling = RopeScaling::linear, .factor = 0}), UsageError);
}
