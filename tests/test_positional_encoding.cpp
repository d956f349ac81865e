#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "embedpe/error.h"
#include "embedpe/positional_encoding.h"
#include "test_support.h"

using embedpe::PeFrequencies;
using embedpe::PeLayout;
using embedpe::SinusoidalEncoding;

namespace {
// The float32 nearest to x is within half an ulp of x; allow one ulp, since
// libm's and NumPy's float64 sin/pow may differ in the last bit, which can
// move a value that sits on a float32 rounding boundary.
double one_ulp(double x) {
  const float f = static_cast<float>(x);
  return std::nextafter(std::abs(f), std::numeric_limits<float>::infinity()) - std::abs(f);
}
}  // namespace

TEST_CASE("PE equals the float64 formula rounded to float32, up to position 1e6") {
  const auto positions = test::read_json(test::golden("pe_positions.json"))["positions"].get<std::vector<std::size_t>>();
  for (std::size_t d : {512u, 7u}) {
    CAPTURE(d);
    const auto ref = test::load_f64(test::golden("pe_float64_d" + std::to_string(d) + ".npy"));
    REQUIRE(ref.shape == std::vector<std::size_t>{positions.size(), d});
    SinusoidalEncoding pe({.d_model = d, .max_len = 1'000'000});
    std::vector<float> row(d);
    std::size_t exact = 0, total = 0;
    double worst = 0;
    for (std::size_t p = 0; p < positions.size(); ++p) {
      pe.row(positions[p], row.data());
      for (std::size_t j = 0; j < d; ++j) {
        const double want = ref.values[p * d + j];
        const double err = std::abs(double(row[j]) - want);
        worst = std::max(worst, err);
        CHECK(err <= one_ulp(want));
        exact += row[j] == static_cast<float>(want);
        ++total;
      }
    }
    // Nearly every value is the correctly rounded float64 result.
    CHECK(double(exact) / double(total) > 0.99);
    CHECK(worst < 1e-7);  // computing the angle in float32 is off by up to ~4.5e-2 near 1e6
  }
}

TEST_CASE("PE at position 0 is sin 0, cos 0 interleaved; odd d ends with a sin") {
  SinusoidalEncoding pe({.d_model = 5, .max_len = 10});
  auto r = pe.rows(0, 2);
  CHECK(r(0, 0) == 0.0f);
  CHECK(r(0, 1) == 1.0f);
  CHECK(r(0, 4) == 0.0f);  // sin, not cos
  CHECK(r(1, 0) == static_cast<float>(std::sin(1.0)));
  CHECK(r(1, 1) == static_cast<float>(std::cos(1.0)));
  CHECK(r(1, 4) == static_cast<float>(std::sin(1.0 / std::pow(10000.0, 4.0 / 5.0))));
}

TEST_CASE("low dimensions are the fast ones (Vaswani et al. 2017 §3.5)") {
  SinusoidalEncoding pe({.d_model = 512, .max_len = 100});
  auto r = pe.rows(0, 50);
  // dim 0 has wavelength 2π positions; dim 510 about 2π·10^4·(510/512).
  CHECK(std::abs(r(49, 0) - static_cast<float>(std::sin(49.0))) < 1e-7);
  CHECK(r(49, 0) == doctest::Approx(-0.9537526).epsilon(1e-6));  // sin(49)
  CHECK(std::abs(r(49, 510)) < 0.01);
  CHECK(std::abs(r(49, 2) - static_cast<float>(std::sin(49.0 / std::pow(10000.0, 2.0 / 512.0)))) < 1e-7);
}

TEST_CASE("positions beyond max_len are errors naming max_len") {
  SinusoidalEncoding pe({.d_model = 8, .max_len = 10});
  std::vector<float> row(8);
  CHECK_NOTHROW(pe.row(9, row.data()));
  CHECK_THROWS_WITH_AS(pe.row(10, row.data()), doctest::Contains("max_len 10"), embedpe::UsageError);  // parameters, not flags (issue 12)
  CHECK_THROWS_AS(pe.rows(5, 6), embedpe::UsageError);
  CHECK(pe.rows(5, 5).shape()[0] == 5);
  CHECK(pe.rows(0, 0).size() == 0);
}

TEST_CASE("d_model and max_len must be positive") {
  CHECK_THROWS_AS(SinusoidalEncoding({.d_model = 0}), embedpe::UsageError);
  CHECK_THROWS_AS(SinusoidalEncoding({.d_model = 4, .max_len = 0}), embedpe::UsageError);
}

TEST_CASE("issue: columns() computes only the shown dims, equal to the full rows") {
  for (auto layout : {PeLayout::interleaved, PeLayout::concat}) {
    for (auto freq : {PeFrequencies::paper, PeFrequencies::fairseq}) {
      for (std::size_t d : {1u, 7u, 8u}) {
        SinusoidalEncoding pe({.d_model = d, .max_len = 100, .layout = layout, .frequencies = freq,
                               .zero_position = 3});
        const auto full = pe.rows(0, 100);
        const auto part = pe.columns(2, 50, d / 2, d - d / 2);
        for (std::size_t r = 0; r < 50; ++r)
          for (std::size_t c = 0; c < d - d / 2; ++c) CHECK(part(r, c) == full(r + 2, d / 2 + c));
      }
    }
  }
  // A few dims of a 2e9-wide table, without its 16 GB of frequencies.
  SinusoidalEncoding wide({.d_model = 2000000000, .max_len = 10});
  const auto cols = wide.columns(0, 10, 0, 8);
  CHECK(cols(9, 0) == static_cast<float>(std::sin(9.0)));
  CHECK(cols(9, 1) == static_cast<float>(std::cos(9.0)));
  CHECK_THROWS_AS(wide.columns(0, 10, 1999999999, 2), embedpe::UsageError);
}
