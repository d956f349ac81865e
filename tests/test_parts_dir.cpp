// The parts directory on its own (embedpe/parts_dir.h): a driver as small
// as the tool's, whose "tensors" are each row's line number.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "embedpe/error.h"
#include "embedpe/parts_dir.h"
#include "errors.h"
#include "sha256.h"
#include "test_support.h"

using namespace embedpe;
namespace fs = std::filesystem;

namespace {

const nlohmann::ordered_json kConfig = {{"d_model", 8}, {"emit", {"input_ids"}}};

std::string seven_lines() {
  std::string text;
  for (int i = 1; i <= 7; ++i) text += "line " + std::to_string(i) + "\n";
  return text;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

struct Run {
  std::vector<std::size_t> computed;  // indices of the parts the driver was asked for
  std::vector<std::size_t> kept;
  PartsDirStats stats;
};

struct Interrupted {};  // thrown by the driver to stop a run midway

// A run over `corpus` into `dir`, `shard_rows` 3; stops (as a kill would)
// once `stop_after` parts are computed.
Run run(const std::string& dir, const std::string& corpus, bool resume,
        const nlohmann::ordered_json& config = kConfig, std::optional<std::size_t> stop_after = std::nullopt) {
  LineReader reader({corpus}, {});
  PartsDirSink sink({.output_dir = dir, .shard_rows = 3, .resume = resume}, reader);
  sink.begin({.config = config});
  Run r;
  while (std::optional<Part> part = sink.next()) {
    if (part->kept) {
      r.kept.push_back(part->index);
      continue;
    }
    if (stop_after && r.computed.size() == *stop_after) throw Interrupted{};
    r.computed.push_back(part->index);
    Batch b;
    b.input_ids = xt::xtensor<std::int64_t, 2>::from_shape({part->lines.size(), 1});  // (rows, 1)
    for (std::size_t i = 0; i < part->lines.size(); ++i) b.input_ids(i, 0) = static_cast<std::int64_t>(part->lines[i].line);
    sink.add({b, part->lines, {tensor_ref("input_ids", b.input_ids)}});
  }
  sink.finish();
  r.stats = sink.stats();
  return r;
}

// Every file in `dir`, name → bytes.
std::map<std::string, std::string> contents(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out[e.path().filename().string()] = test::read_file(e.path().string());
  return out;
}

struct Corpus {
  std::string dir, path, out;
  explicit Corpus(const std::string& name, const std::string& text = seven_lines())
      : dir(test::temp_dir("parts-dir-" + name)), path(dir + "/corpus.txt"), out(dir + "/out") {
    write_file(path, text);
  }
};

// The error `f` throws (its exit code kept apart: the copy is an Error), or
// fails the test.
struct Thrown {
  Error error;
  int exit_code;
  std::string what() const { return error.what(); }
};

template <class F>
std::optional<Thrown> error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return Thrown{e, e.exit_code()};
  }
  FAIL_CHECK("no embedpe::Error thrown");
  return std::nullopt;
}

}  // namespace

TEST_CASE("a run: parts of shard_rows rows, and a complete manifest describing them") {
  const Corpus c("run");
  const Run r = run(c.out, c.path, false);
  CHECK(r.computed == std::vector<std::size_t>{0, 1, 2});
  CHECK(r.stats.parts == 3);
  CHECK(r.stats.rows == 7);

  const nlohmann::json m = test::read_json(c.out + "/manifest.json");
  CHECK(m["complete"] == true);
  CHECK(m["format"] == "npz");
  CHECK(m["config"] == nlohmann::json(kConfig));
  CHECK(m["shard_rows"] == 3);
  CHECK(m["rows"] == 7);
  CHECK(m["reading"]["inputs"] == nlohmann::json::array({c.path}));
  CHECK(m["reading"]["shard"] == "1/1");
  const std::string corpus = seven_lines();
  CHECK(m["inputs"][0]["bytes"] == corpus.size());
  CHECK(m["inputs"][0]["sha256"] == sha256_hex(corpus));
  REQUIRE(m["parts"].size() == 3);
  const std::size_t rows[] = {3, 3, 1}, first[] = {1, 4, 7};
  std::size_t offset = 0;
  for (std::size_t k = 0; k < 3; ++k) {
    const auto& p = m["parts"][k];
    CHECK(p["file"] == part_name(k));
    CHECK(p["rows"] == rows[k]);
    CHECK(p["lines"] == nlohmann::json::array(
                            {{{"source", c.path}, {"first_line", first[k]}, {"last_line", first[k] + rows[k] - 1}}}));
    // The raw input bytes the part was made from: its lines, with their "\n".
    std::size_t end = offset;
    for (std::size_t i = 0; i < rows[k]; ++i) end = corpus.find('\n', end) + 1;
    CHECK(p["input_sha256"] == sha256_hex(corpus.substr(offset, end - offset)));
    offset = end;
    const std::string part = test::read_file(c.out + "/" + part_name(k));
    CHECK(p["sha256"] == sha256_hex(part));
    CHECK(p["bytes"] == part.size());
  }
  CHECK(!fs::exists(c.out + "/parts.journal"));
  CHECK(fs::exists(c.out + "/.lock"));
}

TEST_CASE("the journal holds the parts finished since the manifest was written; resuming folds it in") {
  const Corpus c("journal");
  CHECK_THROWS_AS(run(c.out, c.path, false, kConfig, 2), Interrupted);
  const nlohmann::json m = test::read_json(c.out + "/manifest.json");
  CHECK(m["complete"] == false);
  CHECK(m["parts"].empty());
  const std::string journal = test::read_file(c.out + "/parts.journal");
  REQUIRE(std::count(journal.begin(), journal.end(), '\n') == 2);
  const nlohmann::json line = nlohmann::json::parse(journal.substr(0, journal.find('\n')));
  CHECK(line["file"] == part_name(0));
  CHECK(line["sha256"] == sha256_hex(test::read_file(c.out + "/" + part_name(0))));

  // A crash while a line was being appended leaves it cut short: ignored.
  std::ofstream(c.out + "/parts.journal", std::ios::app) << "{\"file\": \"part-00002.np";
  const Run r = run(c.out, c.path, true);
  CHECK(r.kept == std::vector<std::size_t>{0, 1});
  CHECK(r.computed == std::vector<std::size_t>{2});
  CHECK(!fs::exists(c.out + "/parts.journal"));

  // Byte for byte what an uninterrupted run writes.
  const std::string fresh = c.dir + "/fresh";
  run(fresh, c.path, false);
  CHECK(contents(c.out) == contents(fresh));
}

TEST_CASE("resuming keeps intact parts and redoes a missing or damaged one") {
  const Corpus c("resume");
  run(c.out, c.path, false);
  const std::string fresh = c.dir + "/fresh";
  run(fresh, c.path, false);

  SUBCASE("a complete run: nothing to do") {
    const Run r = run(c.out, c.path, true);
    CHECK(r.computed.empty());
    CHECK(r.kept == std::vector<std::size_t>{0, 1, 2});
  }
  SUBCASE("the last part deleted") {
    fs::remove(c.out + "/" + part_name(2));
    CHECK(run(c.out, c.path, true).computed == std::vector<std::size_t>{2});
  }
  SUBCASE("the last part damaged") {
    write_file(c.out + "/" + part_name(2), "junk");
    CHECK(run(c.out, c.path, true).computed == std::vector<std::size_t>{2});
  }
  SUBCASE("issue 13: the first part deleted and the second damaged: only they are redone") {
    fs::remove(c.out + "/" + part_name(0));
    write_file(c.out + "/" + part_name(1), "junk");
    const Run r = run(c.out, c.path, true);
    CHECK(r.computed == std::vector<std::size_t>{0, 1});
    CHECK(r.kept == std::vector<std::size_t>{2});
  }
  SUBCASE("a part beyond the end is removed") {
    write_file(c.out + "/" + part_name(7), "stale");
    CHECK(run(c.out, c.path, true).computed.empty());
    CHECK(!fs::exists(c.out + "/" + part_name(7)));
  }
  CHECK(contents(c.out) == contents(fresh));
}

TEST_CASE("resuming is refused with another config, a changed input, or without resume") {
  const Corpus c("refuse");
  run(c.out, c.path, false);
  const auto before = contents(c.out);

  SUBCASE("another config: the first key that differs, with both values") {
    nlohmann::ordered_json other = kConfig;
    other["d_model"] = 16;
    const auto e = error_of([&] { run(c.out, c.path, true, other); });
    REQUIRE(e);
    CHECK(e->exit_code == 2);
    CHECK(std::string(e->what()) == "resume: " + c.out + "/manifest.json was written with config d_model 8, this run "
                                    "has config d_model 16; run the same command to resume, or choose another output_dir");
  }
  SUBCASE("an input line changed, same size") {
    std::string text = seven_lines();
    text.replace(text.find("line 5"), 6, "LINE 5");
    write_file(c.path, text);
    const auto e = error_of([&] { run(c.out, c.path, true); });
    REQUIRE(e);
    CHECK(e->exit_code == 2);
    CHECK(std::string(e->what()).find("the input of " + c.out + "/part-00001.npz (" + c.path + " lines 4-6) changed") !=
          std::string::npos);
  }
  SUBCASE("an input grown") {
    write_file(c.path, seven_lines() + "more\n");
    const auto e = error_of([&] { run(c.out, c.path, true); });
    REQUIRE(e);
    CHECK(std::string(e->what()).find("resume: input " + c.path + " is ") == 0);
  }
  SUBCASE("a second run without resume") {
    const auto e = error_of([&] { run(c.out, c.path, false); });
    REQUIRE(e);
    CHECK(std::string(e->what()) == c.out + " already holds a manifest.json; continue that run with resume, or choose "
                                            "an empty output_dir");
  }
  CHECK(contents(c.out) == before);
}

TEST_CASE("a part path that is not a regular file is never opened: an error naming it") {
  const Corpus c("not-regular");
  run(c.out, c.path, false);
  const std::string part = c.out + "/" + part_name(1);
  fs::remove(part);
  SUBCASE("a symlink, its target untouched") {
    write_file(c.dir + "/theirs.txt", "theirs\n");
    fs::create_symlink(c.dir + "/theirs.txt", part);
  }
  SUBCASE("a FIFO (an open would block)") { REQUIRE(::mkfifo(part.c_str(), 0644) == 0); }
  const auto e = error_of([&] { run(c.out, c.path, true); });
  REQUIRE(e);
  CHECK(e->exit_code == 1);
  CHECK(std::string(e->what()) == part + " is not a regular file; remove it (it is not a part embedpe wrote)");
  if (fs::is_symlink(part)) CHECK(test::read_file(c.dir + "/theirs.txt") == "theirs\n");
}

TEST_CASE("the lock refuses a second run into the directory while the first holds it") {
  const Corpus c("lock");
  LineReader reader({c.path}, {});
  PartsDirSink first({.output_dir = c.out, .shard_rows = 3}, reader);
  first.begin({.config = kConfig});
  for (bool resume : {false, true}) {
    const auto e = error_of([&] { run(c.out, c.path, resume); });
    REQUIRE(e);
    CHECK(std::string(e->what()) == "another embedpe run is writing to output_dir " + c.out + " (it holds " + c.out +
                                        "/.lock); wait for it to finish, or choose another output_dir");
  }
}

TEST_CASE("a run that wrote nothing leaves no directory it created") {
  const Corpus c("nothing", "");
  {
    LineReader reader({c.path}, {});
    PartsDirSink sink({.output_dir = c.out}, reader);
    sink.begin({.config = kConfig});
    CHECK(!sink.next());
    CHECK(fs::exists(c.out + "/.lock"));
  }
  CHECK(!fs::exists(c.out));

  // finish() instead: a run of zero parts (one empty shard of many).
  run(c.out, c.path, false);
  const nlohmann::json m = test::read_json(c.out + "/manifest.json");
  CHECK(m["complete"] == true);
  CHECK(m["parts"].empty());
}

TEST_CASE("files the directory writes, and inputs that are one of them") {
  const Corpus c("files");
  run(c.out, c.path, false);
  CHECK(part_name(42) == "part-00042.npz");
  CHECK(parts_dir_files("d", 2) ==
        std::vector<std::string>{"d/manifest.json", "d/parts.journal", "d/.lock", "d/part-00000.npz", "d/part-00001.npz"});
  CHECK(is_parts_dir_file(c.out, c.out + "/part-00099.npz"));  // a part this run may write
  CHECK(is_parts_dir_file(c.out, c.out + "/manifest.json"));
  CHECK(!is_parts_dir_file(c.out, c.path));
  fs::create_hard_link(c.out + "/part-00000.npz", c.dir + "/linked.npz");
  CHECK(is_parts_dir_file(c.out, c.dir + "/linked.npz"));
}

TEST_CASE("messages name parameters; the directory's path reads as given even when it spells one") {
  // A directory called output_dir, in one called "a resume": the command
  // line respells the library's words only.
  const std::string base = test::temp_dir("parts-dir-words") + "/a resume";
  fs::create_directories(base);
  write_file(base + "/corpus.txt", seven_lines());
  const std::string out = base + "/output_dir";
  run(out, base + "/corpus.txt", false);
  const auto e = error_of([&] { run(out, base + "/corpus.txt", true, {{"d_model", 9}}); });
  REQUIRE(e);
  CHECK(e->error.parameters() == std::vector<std::string>{"resume", "output_dir"});
  CHECK(std::string(e->what()).find("--") == std::string::npos);
  CHECK(cli::user_message(e->error) == "--resume: " + out + "/manifest.json was written with config d_model 8, this run has "
                                 "config d_model 9; run the same command to resume, or choose another --output-dir");

  const auto again = error_of([&] { run(out, base + "/corpus.txt", false); });
  REQUIRE(again);
  CHECK(cli::user_message(again->error) ==
        out + " already holds a manifest.json; continue that run with --resume, or choose an empty --output-dir");
}
