#include <doctest/doctest.h>

#include <fstream>

#include "embedpe/error.h"
#include "embedpe/text_input.h"
#include "test_support.h"

using embedpe::find_invalid_utf8;

namespace {
std::string write_temp(const std::string& name, const std::string& bytes) {
  std::string path = test::temp_path(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}
}  // namespace

TEST_CASE("valid UTF-8 passes") {
  CHECK_FALSE(find_invalid_utf8(""));
  CHECK_FALSE(find_invalid_utf8("plain ascii"));
  CHECK_FALSE(find_invalid_utf8("café 我爱 🙂 \xF4\x8F\xBF\xBF"));  // U+10FFFF is the last valid
}

TEST_CASE("invalid UTF-8 is found at the right byte") {
  CHECK(find_invalid_utf8("ab\xFF") == 2u);
  CHECK(find_invalid_utf8("\xC0\xAF") == 0u);          // overlong '/'
  CHECK(find_invalid_utf8("\xE0\x80\xAF") == 0u);      // overlong
  CHECK(find_invalid_utf8("x\xED\xA0\x80") == 1u);     // surrogate U+D800
  CHECK(find_invalid_utf8("\xF4\x90\x80\x80") == 0u);  // above U+10FFFF
  CHECK(find_invalid_utf8("ok\xE6\x88") == 2u);        // truncated sequence
  CHECK(find_invalid_utf8("\x80") == 0u);              // lone continuation
}

TEST_CASE("read_lines drops the BOM and CR, keeps empty lines") {
  auto path = write_temp("bom_crlf.txt", "\xEF\xBB\xBFhello\r\n\r\nworld\r\n");
  auto lines = embedpe::read_lines(path);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == "hello");
  CHECK(lines[1] == "");
  CHECK(lines[2] == "world");
}

TEST_CASE("read_lines without a final newline") {
  auto lines = embedpe::read_lines(write_temp("no_newline.txt", "a\nb"));
  CHECK(lines == std::vector<std::string>{"a", "b"});
}

TEST_CASE("read_lines names the file and line of bad text") {
  auto bad = write_temp("bad_utf8.txt", "fine\nbad \xFF here\n");
  CHECK_THROWS_WITH_AS(embedpe::read_lines(bad), doctest::Contains("bad_utf8.txt:2: invalid UTF-8 at byte 5"),
                       embedpe::Error);
  auto nul = write_temp("nul.txt", std::string("a\0b\n", 4));
  CHECK_THROWS_WITH_AS(embedpe::read_lines(nul), doctest::Contains("nul.txt:1: NUL byte"), embedpe::Error);
}

TEST_CASE("read_lines of a missing file says so") {
  CHECK_THROWS_WITH_AS(embedpe::read_lines(test::temp_path("does-not-exist.txt")),
                       doctest::Contains("cannot open input"), embedpe::Error);
}

TEST_CASE("read_lines of a directory says so") {
  CHECK_THROWS_WITH_AS(embedpe::read_lines(EMBEDPE_TEST_TMPDIR), doctest::Contains("is a directory"), embedpe::Error);
}
