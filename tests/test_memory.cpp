#include <doctest/doctest.h>

#include <limits>

#include "embedpe/error.h"
#include "error_support.h"
#include "memory.h"

TEST_CASE("checked_product multiplies and refuses overflow") {
  CHECK(embedpe::checked_product({2, 3, 4}, "x") == 24);
  CHECK(embedpe::checked_product({}, "x") == 1);
  CHECK(embedpe::checked_product({0, std::numeric_limits<std::size_t>::max()}, "x") == 0);
  const std::size_t big = std::size_t(1) << 33;
  CHECK_THROWS_WITH_AS(embedpe::checked_product({big, big}, "output"),
                       doctest::Contains("output is too large"), embedpe::UsageError);
}

TEST_CASE("check_allocation refuses more than the machine has, before allocating") {
  const std::size_t ram = embedpe::physical_memory_bytes();
  REQUIRE(ram > 0);
  CHECK_NOTHROW(embedpe::check_allocation(ram / 4, "small"));
  CHECK_THROWS_WITH_AS(embedpe::check_allocation(ram + 1, "huge thing"), doctest::Contains("huge thing would need"),
                       embedpe::UsageError);
}

TEST_CASE("check_allocation says what to lower, and checked_sum refuses overflow") {
  const std::size_t ram = embedpe::physical_memory_bytes();
  CHECK_THROWS_WITH_AS(embedpe::check_allocation(ram + 1, "PE table", "lower --d-model"),
                       doctest::Contains("; lower --d-model"), embedpe::UsageError);
  CHECK(embedpe::memory_budget_bytes() <= ram);
  CHECK(embedpe::checked_sum({1, 2, 3}, "x") == 6);
  CHECK_THROWS_AS(embedpe::checked_sum({std::numeric_limits<std::size_t>::max(), 1}, "x"), embedpe::UsageError);
}

TEST_CASE("check_allocation's hint names parameters, not flags") {
  const std::size_t ram = embedpe::physical_memory_bytes();
  const test::Caught layer = test::caught([&] { embedpe::check_allocation(ram + 1, "output"); });
  CHECK(layer.message.find("; lower seq_len or d_model, or encode fewer lines at a time") != std::string::npos);
  CHECK(layer.parameters == std::vector<std::string>{"seq_len", "d_model"});
  const test::Caught table = test::caught([&] { embedpe::check_allocation(ram + 1, "PE table", "lower d_model", {"d_model"}); });
  CHECK(table.parameters == std::vector<std::string>{"d_model"});
}
