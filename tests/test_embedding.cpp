#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

#include "embedpe/embedding.h"
#include "embedpe/error.h"
#include "error_support.h"
#include "test_support.h"

using embedpe::RandomNormalTable;

namespace {
std::vector<float> row_of(const embedpe::EmbeddingTable& t, std::int64_t id) {
  std::vector<float> r(t.d_model());
  t.row(id, r.data());
  return r;
}
}  // namespace

TEST_CASE("splitmix64 reference values") {
  // First outputs of Vigna's splitmix64 seeded with 0: next() adds the gamma
  // to the state before mixing, as splitmix64(x) does here.
  CHECK(embedpe::splitmix64(0) == 0xE220A8397B1DCDAFULL);
  CHECK(embedpe::splitmix64(0x9E3779B97F4A7C15ULL) == 0x6E789E6AA1B965F4ULL);
}

TEST_CASE("random rows are the NumPy reference's, bit for bit (generator splitmix64+box-muller-f32/3)") {
  // tests/golden/default_table*: tests/reference.py's rows, written by tools/make_goldens.py. Odd and
  // even widths, more than one block of 64 pairs, ids far beyond any vocabulary.
  const auto doc = test::read_json(test::golden("default_table.json"));
  const auto ids = doc["ids"].get<std::vector<std::int64_t>>();
  for (const auto& c : doc["cases"]) {
    const auto want = test::load_matrix(test::golden(c["file"].get<std::string>()));  // (ids, d_model)
    const auto d = c["d_model"].get<std::size_t>();
    const RandomNormalTable t(std::numeric_limits<std::int64_t>::max(), d, c["seed"].get<std::uint64_t>());
    REQUIRE(want.shape()[0] == ids.size());
    REQUIRE(want.shape()[1] == d);
    for (std::size_t k = 0; k < ids.size(); ++k) {
      CAPTURE(c["file"]);
      CAPTURE(ids[k]);
      const auto got = row_of(t, ids[k]);
      CHECK(std::memcmp(got.data(), want.data() + k * d, d * sizeof(float)) == 0);
    }
  }
  CHECK(std::string(RandomNormalTable::kGenerator) == "splitmix64+box-muller-f32/3");
  CHECK(RandomNormalTable(8, 4, 3).describe() == "random-normal(seed=3, generator=splitmix64+box-muller-f32/3)");
}

TEST_CASE("random rows depend on (seed, row) only, not on the vocabulary size") {
  RandomNormalTable small(10, 32, 5), large(1'000'000'000, 32, 5);
  CHECK(row_of(small, 7) == row_of(large, 7));
  CHECK(row_of(small, 7) == row_of(small, 7));
  CHECK(row_of(small, 7) != row_of(small, 8));
  RandomNormalTable other_seed(10, 32, 6);
  CHECK(row_of(small, 7) != row_of(other_seed, 7));
}

TEST_CASE("an odd d_model is the prefix of the next even one") {
  RandomNormalTable odd(100, 7, 0), even(100, 8, 0);
  auto a = row_of(odd, 42), b = row_of(even, 42);
  CHECK(std::equal(a.begin(), a.end(), b.begin()));
}

TEST_CASE("random rows are N(0, 1)") {
  RandomNormalTable t(1 << 20, 64, 123);
  double sum = 0, sum_sq = 0;
  std::size_t n = 0, beyond_3 = 0;
  for (std::int64_t id = 0; id < 4000; ++id) {
    for (float v : row_of(t, id)) {
      sum += v;
      sum_sq += double(v) * v;
      beyond_3 += std::abs(v) > 3.0f;
      ++n;
    }
  }
  const double mean = sum / double(n), var = sum_sq / double(n) - mean * mean;
  // n = 256000: the standard error of the mean is ~0.002, of the variance ~0.003.
  CHECK(std::abs(mean) < 0.01);
  CHECK(std::abs(var - 1.0) < 0.015);
  CHECK(double(beyond_3) / double(n) == doctest::Approx(0.0027).epsilon(0.15));  // two-sided 3σ tail
}

TEST_CASE("a dense table returns its rows") {
  xt::xtensor<float, 2> w = {{1, 2, 3}, {4, 5, 6}};
  embedpe::DenseTable t(w);
  CHECK(t.vocab_size() == 2);
  CHECK(t.d_model() == 3);
  CHECK(row_of(t, 1) == std::vector<float>{4, 5, 6});
}

TEST_CASE("a table needs rows and columns") {
  CHECK_THROWS_AS(RandomNormalTable(0, 8, 0), embedpe::UsageError);
  CHECK_THROWS_AS(RandomNormalTable(8, 0, 0), embedpe::UsageError);
  const test::Caught e = test::caught([] { RandomNormalTable(8, 0, 0); });
  CHECK(e.message == "d_model must be at least 1");
  CHECK(e.parameters == std::vector<std::string>{"d_model"});
}

TEST_CASE("a padding_idx outside the table is an error naming the parameter") {
  const test::Caught e = test::caught(
      [] { embedpe::PaddingIdxTable(std::make_unique<RandomNormalTable>(8, 4, 0), 8); });
  CHECK(e.message == "padding_idx 8 is outside the table's 8 rows");
  CHECK(e.parameters == std::vector<std::string>{"padding_idx"});
}

TEST_CASE("a generated table keeps its rows: row_data equals row, from any thread") {
  const RandomNormalTable t(500, 24, 9);
  const RandomNormalTable fresh(500, 24, 9);
  // Two threads ask for the same ids in opposite orders, so that some rows
  // are asked for while the other thread is generating them.
  std::vector<const float*> seen_a(500), seen_b(500);
  std::thread other([&] {
    for (std::int64_t id = 499; id >= 0; --id) seen_b[static_cast<std::size_t>(id)] = t.row_data(id);
  });
  for (std::int64_t id = 0; id < 500; ++id) seen_a[static_cast<std::size_t>(id)] = t.row_data(id);
  other.join();
  for (std::int64_t id = 0; id < 500; ++id) {
    CAPTURE(id);
    const float* r = seen_a[static_cast<std::size_t>(id)];
    REQUIRE(r != nullptr);
    CHECK(r == seen_b[static_cast<std::size_t>(id)]);  // one copy per row
    CHECK(std::vector<float>(r, r + 24) == row_of(fresh, id));
  }
}

TEST_CASE("a generated table too large to cache generates rows each time") {
  const RandomNormalTable huge(1'000'000'000, 32, 5);  // 128 GB of floats
  CHECK(huge.row_data(7) == nullptr);
  const RandomNormalTable limit(static_cast<std::int64_t>(RandomNormalTable::kRowCacheLimit / 4 / 64), 64, 5);
  CHECK(limit.row_data(7) != nullptr);  // exactly at the limit: cached
}

TEST_CASE("a dense table's rows are read in place") {
  xt::xtensor<float, 2> w = {{1, 2, 3}, {4, 5, 6}};
  embedpe::DenseTable t(w);
  const float* r = t.row_data(1);
  REQUIRE(r != nullptr);
  CHECK(std::vector<float>(r, r + 3) == std::vector<float>{4, 5, 6});
}
