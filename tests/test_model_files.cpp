// io/model_files.h: how a model directory's files are read (issue 45, items 2 and 3):
// one JSON reader for every model JSON file (a key twice refused, a depth cap, a
// top-level filter), and ModelFiles's regular-file, size-cap, input-noting and
// digest rules.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "model_files.h"
#include "sha256.h"
#include "test_support.h"

namespace {

using embedpe::ModelFiles;
using embedpe::parse_model_json;
using embedpe::UsageError;

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

void write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

}  // namespace

TEST_CASE("issue 45 – a key twice in one object of a model's JSON is refused, naming file and key") {
  CHECK(message_of([] { parse_model_json(R"({"model_type": "a", "model_type": "b"})", "d/config.json"); }) ==
        "d/config.json gives the key \"model_type\" twice in one object; each key must appear once");
  // in a nested object too, and in a member a filter drops
  CHECK(message_of([] { parse_model_json(R"({"w": {"x": 1, "x": 2}})", "f"); }).find("\"x\" twice") !=
        std::string::npos);
  CHECK(message_of([] {
          parse_model_json(R"({"model": {"v": 1, "v": 2}, "added_tokens": []})", "f",
                           [](const std::string& k) { return k == "added_tokens"; });
        }).find("\"v\" twice") != std::string::npos);
  // the same key in two objects is fine
  const auto j = parse_model_json(R"({"a": {"x": 1}, "b": {"x": 2}})", "f");
  CHECK(j["b"]["x"] == 2);
}

TEST_CASE("issue 45 – a model's JSON nested deeper than the cap is refused; a filter keeps only what is asked") {
  const std::string deep = std::string(65, '[') + std::string(65, ']');
  CHECK(message_of([&] { parse_model_json(deep, "f"); }) ==
        "f nests more than 64 levels deep; a model's JSON file is a few levels deep");
  const std::string ok = std::string(64, '[') + std::string(64, ']');
  CHECK_NOTHROW(parse_model_json(ok, "f"));
  const auto kept = parse_model_json(R"({"model": {"vocab": {"a": 1}}, "added_tokens": [{"id": 5}]})", "f",
                                     [](const std::string& k) { return k == "added_tokens"; });
  CHECK(kept == nlohmann::json::parse(R"({"added_tokens": [{"id": 5}]})"));
  CHECK(message_of([] { parse_model_json("{not json", "f"); }).starts_with("f is not valid JSON: "));
}

TEST_CASE("issue 45 – ModelFiles reads regular files under a cap, notes them as inputs and hashes them") {
  const std::string dir = test::temp_dir("model-files");
  write(dir + "/config.json", R"({"a": 1})");
  write(dir + "/b.model", "bytes");
  ModelFiles files(dir);
  CHECK_FALSE(files.json("missing.json"));
  CHECK((*files.json("config.json"))["a"] == 1);
  CHECK(*files.read("b.model", 5, "a model") == "bytes");
  CHECK(message_of([&] { files.read("b.model", 4, "a model"); }) ==
        dir + "/b.model is 5 bytes, more than a model can be (4 bytes)");
  REQUIRE(::mkfifo((dir + "/fifo.json").c_str(), 0600) == 0);
  CHECK(message_of([&] { files.json("fifo.json"); }).starts_with(dir + "/fifo.json is not a regular file"));
  std::filesystem::create_directory(dir + "/sub.json");
  CHECK(message_of([&] { files.json("sub.json"); }).starts_with(dir + "/sub.json is not a regular file"));
  // the digest: sha256sum's lines of the files read, sorted by name
  const std::string want = embedpe::sha256_hex(embedpe::sha256_hex("bytes") + "  b.model\n" +
                                               embedpe::sha256_hex(R"({"a": 1})") + "  config.json\n");
  CHECK(files.digest() == want);
  files.leave_out_of_digest("config.json");
  CHECK(files.digest() == embedpe::sha256_hex(embedpe::sha256_hex("bytes") + "  b.model\n"));
  // noted as an input: no output may replace it
  CHECK_THROWS_AS(embedpe::OutputFile(dir + "/config.json"), UsageError);
  embedpe::forget_inputs();
}

TEST_CASE("issue 45 – byte_size_text names caps as messages do") {
  CHECK(embedpe::byte_size_text(std::size_t(16) << 20) == "16 MiB");
  CHECK(embedpe::byte_size_text(std::size_t(1) << 30) == "1 GiB");
  CHECK(embedpe::byte_size_text(1000) == "1000 bytes");
}
