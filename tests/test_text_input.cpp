#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "embedpe/error.h"
#include "embedpe/text_input.h"
#include "errors.h"
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
  CHECK_THROWS_WITH_AS(embedpe::read_lines(test::scratch_dir()), doctest::Contains("is a directory"), embedpe::Error);
}

namespace {
std::vector<std::string> read_all(const std::string& path, embedpe::InputOptions options = {}) {
  embedpe::LineReader reader({path}, options);
  std::vector<std::string> out;
  for (auto& t : reader.next(static_cast<std::size_t>(-1))) out.push_back(std::move(t.text));
  return out;
}
}  // namespace

TEST_CASE("a line over max_line_bytes names the file, the line and the flag") {
  auto path = write_temp("long_line.txt", "short\n" + std::string(100, 'x') + "\nafter\n");
  embedpe::InputOptions o;
  o.max_line_bytes = 99;
  CHECK_THROWS_WITH_AS(read_all(path, o),
                       doctest::Contains("long_line.txt:2: line longer than max_line_bytes 99 bytes"),
                       embedpe::Error);
  o.max_line_bytes = 100;  // exactly the limit is fine, also with CRLF and without a final newline
  CHECK(read_all(path, o).size() == 3);
  CHECK(read_all(write_temp("long_crlf.txt", std::string(100, 'y') + "\r\n"), o).size() == 1);
  CHECK(read_all(write_temp("long_last.txt", "a\n" + std::string(100, 'z')), o).size() == 2);
  CHECK_THROWS_AS(read_all(write_temp("long_last2.txt", "a\n" + std::string(101, 'z')), o), embedpe::Error);
}

TEST_CASE("regression: a line over the limit is refused without reading it whole") {
  // 200 MB of one line would take 200 MB of memory; the limit stops it at 1 KiB.
  std::string path = test::temp_path("sparse_line.txt");
  { std::ofstream(path, std::ios::binary) << "x"; }
  REQUIRE(::truncate(path.c_str(), 200 << 20) == 0);
  embedpe::InputOptions o;
  o.max_line_bytes = 1024;
  CHECK_THROWS_WITH_AS(read_all(path, o), doctest::Contains(":1: line longer than max_line_bytes 1024"),
                       embedpe::Error);
  std::remove(path.c_str());
}

TEST_CASE("regression: a file that shrinks while being read is an error, not an early end") {
  std::string path = test::temp_path("shrinks.txt");
  {
    std::ofstream f(path, std::ios::binary);
    for (int i = 0; i < 100000; ++i) f << "line number " << i << "\n";  // ~1.8 MB, many reads
  }
  embedpe::LineReader reader({path}, {});
  CHECK(reader.next(10).size() == 10);
  REQUIRE(::truncate(path.c_str(), 1 << 20) == 0);
  CHECK_THROWS_WITH_AS(reader.next(static_cast<std::size_t>(-1)),
                       doctest::Contains("shrinks.txt: it ended at byte 1048576 but was"), embedpe::Error);
}

TEST_CASE("regression: a shard cut short before its computed end is an error") {
  std::string path = test::temp_path("shard_shrinks.txt");
  {
    std::ofstream f(path, std::ios::binary);
    for (int i = 0; i < 100000; ++i) f << "line number " << i << "\n";  // ~1.8 MB: shard 1 ends near 0.9 MB
  }
  embedpe::InputOptions o;
  o.shard_index = 1;
  o.shard_count = 2;
  embedpe::LineReader reader({path}, o);
  CHECK(reader.next(10).size() == 10);
  REQUIRE(::truncate(path.c_str(), 500000) == 0);
  CHECK_THROWS_WITH_AS(reader.next(static_cast<std::size_t>(-1)), doctest::Contains("it ended at byte 500000"),
                       embedpe::Error);
  std::remove(path.c_str());
}

TEST_CASE("the raw sink sees every byte once, skipped lines and BOM included") {
  const std::string bytes = "\xEF\xBB\xBFone\r\n\n  \nfour\nfive";
  auto path = write_temp("raw_sink.txt", bytes);
  for (std::size_t n = 1; n <= 3; ++n) {
    std::string all;
    for (std::size_t k = 1; k <= n; ++k) {
      embedpe::InputOptions o;
      o.skip_empty = true;
      o.shard_index = k;
      o.shard_count = n;
      embedpe::LineReader reader({path}, o);
      reader.set_raw_sink([&](std::size_t source, std::string_view raw) {
        CHECK(source == 0);
        all.append(raw);
      });
      while (!reader.next(1).empty()) {
      }
    }
    CHECK(all == bytes);
  }
}

TEST_CASE("shard_seek reads each shard's lines and bytes as counting does, numbered from the shard's start") {
  // Line ends at and around every shard boundary: a BOM, CRLF, empty lines,
  // a line longer than the 64 KiB read, a last line without "\n".
  std::string bytes =
      "\xEF\xBB\xBF"
      "first\r\n\n\nsecond\n";
  for (int i = 0; i < 300; ++i)
    bytes += std::string(static_cast<std::size_t>(i % 17), 'a' + static_cast<char>(i % 26)) + "\n";
  bytes += std::string(70000, 'x') + "\r\n\n" + "last without newline";
  const auto path = write_temp("seek.txt", bytes);
  for (std::size_t n : {2u, 3u, 7u, 64u, 1000u}) {
    std::size_t lines_before = 0;
    std::string all;
    for (std::size_t k = 1; k <= n; ++k) {
      embedpe::InputOptions counted;
      counted.shard_index = k;
      counted.shard_count = n;
      embedpe::InputOptions seek = counted;
      seek.shard_seek = true;
      embedpe::LineReader a({path}, counted), b({path}, seek);
      std::string raw_a, raw_b;
      a.set_raw_sink([&](std::size_t, std::string_view r) { raw_a.append(r); });
      b.set_raw_sink([&](std::size_t, std::string_view r) { raw_b.append(r); });
      const auto la = a.next(static_cast<std::size_t>(-1));
      const auto lb = b.next(static_cast<std::size_t>(-1));
      CAPTURE(n);
      CAPTURE(k);
      REQUIRE(la.size() == lb.size());
      for (std::size_t i = 0; i < la.size(); ++i) {
        CHECK(la[i].text == lb[i].text);
        CHECK(la[i].line == lines_before + i + 1);  // the file's
        CHECK(lb[i].line == i + 1);                 // the shard's own
      }
      CHECK(raw_a == raw_b);
      CHECK(a.consumed_range() == b.consumed_range());
      CHECK(a.lines_consumed() == b.lines_consumed());
      CHECK(b.lines_consumed() == la.size());
      if (!lb.empty()) {
        CHECK(b.origin(0, 2) == path + " line 2 from byte " + std::to_string(b.consumed_range().first));
        CHECK(a.origin(0, 2) == path + ":2");
      }
      lines_before += a.lines_consumed();
      all += raw_b;
    }
    CHECK(all == bytes);
  }
}

TEST_CASE("shard_seek names a bad line by the shard's line and its first byte") {
  std::string bytes;
  for (int i = 0; i < 100; ++i) bytes += "line " + std::to_string(i) + "\n";
  bytes += "bad \xFF byte\n";
  const auto path = write_temp("seek_bad.txt", bytes);
  embedpe::InputOptions o;
  o.shard_index = 2;
  o.shard_count = 2;
  o.shard_seek = true;
  embedpe::LineReader reader({path}, o);
  // Shard 2 starts at the first line at or after byte size/2.
  const std::size_t begin = bytes.find('\n', bytes.size() / 2 - 1) + 1;
  const std::size_t line =
      static_cast<std::size_t>(std::count(bytes.begin() + static_cast<std::ptrdiff_t>(begin), bytes.end(), '\n'));
  CHECK_THROWS_WITH_AS(
      reader.next(1000),
      doctest::Contains(
          (path + " line " + std::to_string(line) + " from byte " + std::to_string(begin) + ": invalid UTF-8").c_str()),
      embedpe::Error);
}

TEST_CASE("JSONL nested deeper than the limit names the limit") {
  const std::string deep = "{\"text\":\"a\",\"x\":" + std::string(600, '[') + std::string(600, ']') + "}\n";
  auto path = write_temp("deep.jsonl", "{\"text\":\"fine\"}\n" + deep);
  embedpe::InputOptions o;
  o.format = embedpe::InputFormat::jsonl;
  CHECK_THROWS_WITH_AS(read_all(path, o), doctest::Contains("deep.jsonl:2: JSON nested deeper than 512 levels"),
                       embedpe::Error);
  const std::string ok = "{\"text\":\"b\",\"x\":" + std::string(500, '[') + std::string(500, ']') + "}\n";
  CHECK(read_all(write_temp("ok_depth.jsonl", ok), o) == std::vector<std::string>{"b"});
}

TEST_CASE("regression: max_line_bytes near SIZE_MAX does not overflow into refusing every line") {
  embedpe::InputOptions o;
  o.max_line_bytes = static_cast<std::size_t>(-1);
  CHECK(read_all(write_temp("max_limit.txt", "a\nbb\r\n"), o) == std::vector<std::string>{"a", "bb"});
  o.max_line_bytes = static_cast<std::size_t>(-2);
  CHECK(read_all(write_temp("max_limit.txt", "a\nbb\r\n"), o) == std::vector<std::string>{"a", "bb"});
}

TEST_CASE("TextSource: given texts and files name their lines in one way") {
  using namespace embedpe;
  TextSource given = TextSource::given({"a", "b", "c"}, "text");
  CHECK(given.reader() == nullptr);
  const std::vector<TextLine> two = given.next(2);
  REQUIRE(two.size() == 2);
  CHECK(two[1].text == "b");
  CHECK(given.origin(two[1]) == "text 2");
  CHECK(given.next(5).size() == 1);
  CHECK(given.next(5).empty());
  CHECK(given.source_names().empty());
  CHECK_THROWS_WITH_AS(TextSource::given({"ok", "\xff"}, "--text"), doctest::Contains("--text 2: invalid UTF-8"), Error);

  const std::string a = test::temp_path("src_a.txt"), b = test::temp_path("src_b.txt");
  std::ofstream(a) << "x\ny\n";
  std::ofstream(b) << "z\n";
  TextSource files(std::make_unique<LineReader>(std::vector<std::string>{a, b}, InputOptions{}));
  const std::vector<TextLine> lines = files.next(10);
  REQUIRE(lines.size() == 3);
  CHECK(files.origin(lines[2]) == b + ":1");
  CHECK(files.source_names() == std::vector<std::string>{a, b});
}

TEST_CASE("open_text_source: given texts with their label; options that would do nothing are refused") {
  using embedpe::TextSpec;
  auto refusal = [](const TextSpec& spec) -> std::pair<std::string, std::vector<std::string>> {
    try {
      embedpe::open_text_source(spec);
    } catch (const embedpe::UsageError& e) {
      return {e.what(), e.parameters()};
    }
    return {};
  };
  TextSpec given;
  given.texts = {"a", "b"};
  given.texts_label = "--text";
  embedpe::TextSource source = embedpe::open_text_source(given);
  CHECK(source.reader() == nullptr);
  std::vector<embedpe::TextLine> lines = source.next(10);
  REQUIRE(lines.size() == 2);
  CHECK(source.origin(lines[1]) == "--text 2");

  TextSpec pairs = given;
  pairs.pairs = {"x"};
  const auto [why, params] = refusal(pairs);
  CHECK(why == "text_pair is the second text of a pair: give one per text (2 text, 1 text_pair)");
  CHECK(params == std::vector<std::string>{"text_pair", "text"});

  TextSpec sharded = given;
  sharded.shard_given = true;
  CHECK(refusal(sharded).first == "shard splits an input file, and text values are not one: give a FILE");
  TextSpec field;
  field.inputs = {"-"};
  field.reading.field = "body";
  CHECK(refusal(field).second == std::vector<std::string>{"field", "input_format"});
  TextSpec seek;
  seek.inputs = {"-"};
  seek.reading.shard_seek = true;
  CHECK(refusal(seek).second == std::vector<std::string>{"shard_seek", "shard"});
  TextSpec jsonl_ids;
  jsonl_ids.ids = {"1,2"};
  jsonl_ids.reading.format = embedpe::InputFormat::jsonl;
  CHECK_THROWS_AS(jsonl_ids.ids_input(), embedpe::UsageError);
  TextSpec texts_as_ids = given;
  texts_as_ids.reading.format = embedpe::InputFormat::ids;
  try {
    embedpe::open_text_source(texts_as_ids);
    FAIL("--text read as ids");
  } catch (const embedpe::UsageError& e) {
    CHECK(embedpe::cli::user_message(e) ==
          "--input-format ids reads input files; --text values are used as given: give sequences of ids with --ids");
  }
  TextSpec ids;
  ids.ids = {"1,2"};
  CHECK(ids.ids_input());
  CHECK_FALSE(given.ids_input());
}

TEST_CASE("open_text_source: input files are read in order") {
  embedpe::TextSpec spec;
  spec.inputs = {write_temp("first.txt", "one\ntwo\n"), write_temp("second.txt", "three\n")};
  embedpe::TextSource source = embedpe::open_text_source(spec);
  REQUIRE(source.reader() != nullptr);
  std::vector<std::string> texts;
  for (auto& line : source.next(10)) texts.push_back(line.text);
  CHECK(texts == std::vector<std::string>{"one", "two", "three"});
}
