#include <doctest/doctest.h>

#include <fstream>

#include "embedpe/error.h"
#include "embedpe/id_rows.h"
#include "embedpe/output_file.h"
#include "embedpe/tensor_io.h"
#include "test_support.h"

using namespace embedpe;

namespace {

std::vector<std::pair<std::vector<int>, std::string>> rows_of(const std::string& path, const std::string& sha = "") {
  std::vector<std::pair<std::vector<int>, std::string>> rows;
  read_id_rows(path, sha, [&](const std::vector<int>& ids, const std::string& origin) { rows.emplace_back(ids, origin); });
  return rows;
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

}  // namespace

TEST_CASE("id text: spaces or commas, whole numbers in int range only") {
  CHECK(parse_id_text("1,262 2\t7", "x") == std::vector<int>{1, 262, 2, 7});
  CHECK(parse_id_text("1, 262 ,2", "x") == std::vector<int>{1, 262, 2});
  CHECK(parse_id_text("  ", "x").empty());
  CHECK(parse_id_text("", "x").empty());
  CHECK_THROWS_WITH_AS(parse_id_text("1 -3", "a.txt:2"), doctest::Contains("a.txt:2: expected ids"), Error);
  CHECK_THROWS_WITH_AS(parse_id_text("2147483648", "x"), doctest::Contains("not '2147483648'"), Error);
  CHECK_THROWS_AS(parse_id_text("1x", "x"), Error);
}

TEST_CASE("issue 13 – an empty field or a sign in a line of ids is refused, as a data error") {
  for (const char* line : {"1,,2", "1,2,", ",1", ",", "1, ,2", "+5", "1 +5", "-0", "0x10", "1e3", "１"}) {
    CAPTURE(line);
    try {
      parse_id_text(line, "ids.txt:4");
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).starts_with("ids.txt:4: "));
      CHECK(e.exit_code() == 1);  // a bad line in a data file is a data error, not a usage error
    }
  }
  CHECK_THROWS_WITH(parse_id_text("1,,2", "x"), doctest::Contains("an empty id between commas in '1,,2'"));
}

TEST_CASE("rows from lines of ids, JSON Lines and an .npz, padding dropped by the mask") {
  const std::string lines = test::temp_path("ids.txt");
  write_text(lines, "1 2 3\n\n4,5\n");
  auto rows = rows_of(lines);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].first == std::vector<int>{1, 2, 3});
  CHECK(rows[1].first.empty());
  CHECK(rows[2].second == lines + ":3");

  const std::string jsonl = test::temp_path("r.jsonl");
  write_text(jsonl, "{\"input_ids\":[1,7,2,0],\"attention_mask\":[1,1,1,0]}\n{\"input_ids\":[1,2]}\n");
  rows = rows_of(jsonl);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].first == std::vector<int>{1, 7, 2});
  CHECK(rows[1].first == std::vector<int>{1, 2});

  xt::xtensor<std::int64_t, 2> ids = {{1, 9, 2}, {1, 2, 0}};
  xt::xtensor<std::int64_t, 2> mask = {{1, 1, 1}, {1, 1, 0}};
  const std::string npz = test::temp_path("r.npz");
  {
    OutputFile out(npz);
    write_npz(out, {tensor_ref("input_ids", ids), tensor_ref("attention_mask", mask)});
    out.commit();
  }
  rows = rows_of(npz);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].first == std::vector<int>{1, 9, 2});
  CHECK(rows[1].first == std::vector<int>{1, 2});
  CHECK(rows[1].second == npz + " row 1");
}

TEST_CASE("an output made with another model is refused") {
  const std::string json = test::temp_path("o.json");
  const std::string a(64, 'a'), d(64, 'd');
  write_text(json, R"({"config":{"model":{"source":"m.model","sha256":")" + a + R"("}},"input_ids":[[1,2]]})");
  CHECK(rows_of(json, a).size() == 1);
  CHECK_THROWS_WITH_AS(rows_of(json, d), doctest::Contains("was made with another model (m.model"), UsageError);
  // A record whose digest is not one names no model: refused, never taken for a match.
  write_text(json, R"({"config":{"model":{"source":"m.model","sha256":"abc"}},"input_ids":[[1,2]]})");
  CHECK_THROWS_WITH_AS(rows_of(json, "abc"), doctest::Contains("is not a SHA-256"), Error);
  write_text(json, R"({"config":{},"output":[[0.5]]})");
  CHECK_THROWS_WITH_AS(rows_of(json), doctest::Contains("has no input_ids"), Error);
}

TEST_CASE("a .npy header cannot make the reader go past the file or loop on rows of nothing") {
  auto npy = [](const std::string& shape, const std::string& data) {
    std::string dict = "{'descr': '<i8', 'fortran_order': False, 'shape': " + shape + ", }";
    dict.append(128 - 10 - dict.size() - 1, ' ');
    dict += '\n';
    std::string out = "\x93NUMPY";
    out += '\x01';
    out += '\0';
    out += static_cast<char>(dict.size() & 0xFF);
    out += static_cast<char>(dict.size() >> 8);
    return out + dict + data;
  };
  const std::string path = test::temp_path("h.npy");
  // 2^32 × 2^32 elements wrap to 0 in a plain product.
  write_text(path, npy("(4294967296, 4294967296)", std::string(16, '\1')));
  CHECK_THROWS_WITH_AS(rows_of(path), doctest::Contains("is truncated"), Error);
  write_text(path, npy("(1099511627776, 0)", ""));
  CHECK_THROWS_WITH_AS(rows_of(path), doctest::Contains("rows of no ids"), Error);
  write_text(path, npy("(3, 0)", ""));
  CHECK(rows_of(path).size() == 3);
}
