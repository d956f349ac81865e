// Shard records and merging on their own (embedpe/shards.h): a corpus read
// in shards by LineReader, each shard's "output" its raw lines, so that the
// merged output must be the corpus itself.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/shards.h"
#include "embedpe/text_input.h"
#include "test_support.h"

using namespace embedpe;

namespace {

const nlohmann::ordered_json kConfig = {{"d_model", 8}, {"emit", {"input_ids"}}};

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Shard k of n of `corpus` into DIR/shard-k.jsonl (its lines, verbatim) with its record.
std::string write_shard(const std::string& dir, const std::string& corpus, std::size_t k, std::size_t n,
                        const nlohmann::ordered_json& config = kConfig) {
  LineReader reader({corpus}, {.shard_index = k, .shard_count = n});
  ShardRecorder record(reader);
  const std::string out = dir + "/shard-" + std::to_string(k) + ".jsonl";
  OutputFile f(out);
  f.commit_with(record.beside(out, "jsonl", config));
  for (auto lines = reader.next(3); !lines.empty(); lines = reader.next(3)) {
    for (const auto& l : lines) f.write(l.text + "\n");
  }
  f.commit();
  return out;
}

nlohmann::json record_of(const std::string& shard) {
  std::ifstream in(shard_record_path(shard));
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("shard records tile the input and merge back into it") {
  const std::string dir = test::temp_dir("shards-tile");
  const std::string corpus = dir + "/corpus.txt";
  std::string text;
  for (int i = 0; i < 23; ++i) text += "line " + std::to_string(i) + std::string(i % 5, 'x') + "\n";
  write_text(corpus, text);
  std::vector<std::string> shards;
  for (std::size_t k = 1; k <= 4; ++k) shards.push_back(write_shard(dir, corpus, k, 4));

  std::size_t at = 0, lines = 0;
  for (const auto& s : shards) {
    const auto rec = record_of(s);
    CHECK(rec["input"]["range"][0].get<std::size_t>() == at);
    at = rec["input"]["range"][1].get<std::size_t>();
    lines += rec["input"]["lines"].get<std::size_t>();
    CHECK(rec["input"]["fingerprint"] == input_fingerprint(corpus));
  }
  CHECK(at == text.size());
  CHECK(lines == 23);

  const std::string merged = dir + "/all.jsonl";
  const MergeStats stats = merge_shards({.output = merged, .shards = {shards[2], shards[0], shards[3], shards[1]}});
  CHECK(stats.shards == 4);
  CHECK(test::read_file(merged) == text);

  SUBCASE("a missing shard") {
    CHECK_THROWS_WITH_AS(merge_shards({.output = dir + "/x.jsonl", .shards = {shards[0], shards[1], shards[3]}}),
                         doctest::Contains("shard 3/4 is missing"), Error);
  }
  SUBCASE("a shard of another config") {
    const std::string other = dir + "/other";
    std::filesystem::create_directories(other);
    nlohmann::ordered_json config = kConfig;
    config["d_model"] = 16;
    const std::string foreign = write_shard(other, corpus, 2, 4, config);
    CHECK_THROWS_WITH_AS(merge_shards({.output = dir + "/x.jsonl", .shards = {shards[0], foreign, shards[2], shards[3]}}),
                         doctest::Contains(("differs from " + shards[0] + "'s at d_model").c_str()), Error);
  }
  CHECK_FALSE(std::filesystem::exists(dir + "/x.jsonl"));
}

TEST_CASE("a shard's record is written only for a regular file") {
  const std::string dir = test::temp_dir("shards-device");
  const std::string corpus = dir + "/corpus.txt";
  write_text(corpus, "a\nb\n");
  LineReader reader({corpus}, {.shard_index = 1, .shard_count = 2});
  ShardRecorder record(reader);
  OutputFile f("/dev/null");
  f.commit_with(record.beside("/dev/null", "jsonl", kConfig));
  while (!reader.next(10).empty()) {
  }
  f.write("a\n");
  f.commit();
  CHECK_FALSE(std::filesystem::exists("/dev/null.shard.json"));
}

TEST_CASE("a shard output and its record appear together, or neither does") {
  const std::string dir = test::temp_dir("shards-pair");
  const std::string corpus = dir + "/corpus.txt";
  write_text(corpus, "a\nb\nc\n");
  LineReader reader({corpus}, {.shard_index = 1, .shard_count = 2});
  ShardRecorder record(reader);
  const std::string out = dir + "/out.jsonl";
  while (!reader.next(10).empty()) {
  }
  SUBCASE("the record is in place when the output is, and has the output's checksum") {
    OutputFile f(out);
    f.commit_with(record.beside(out, "jsonl", kConfig));
    f.write("a\nb\n");
    f.commit();
    const auto rec = record_of(out);
    CHECK(rec["output"]["bytes"] == 4);
    CHECK(rec["output"]["crc32"] == "18572a97");  // Python: "%08x" % zlib.crc32(b"a\nb\n")
  }
  SUBCASE("an output whose rename fails takes its record back") {
    CHECK_THROWS_AS(
        [&] {
          OutputFile f(out);
          f.commit_with(record.beside(out, "jsonl", kConfig));
          f.write("a\n");
          std::filesystem::create_directories(out + "/x");  // a directory there now: the rename fails
          f.commit();
        }(),
        Error);
    CHECK_FALSE(std::filesystem::exists(shard_record_path(out)));
    CHECK(std::filesystem::is_directory(out + "/x"));
  }
}
