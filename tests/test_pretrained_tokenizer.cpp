// load_pretrained_tokenizer through the library API: the Tokenizer's entry points
// (encode_batch, encode_pair_batch, decode, id_to_piece, info) against the goldens of
// tools/make_hf_tokenizer_goldens.py (transformers v4.44.2's slow classes, run). The
// CLI runs every case (tests/pretrained_test.py); these check the library's own use.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "embedpe/error.h"
#include "embedpe/pretrained_tokenizer.h"
#include "test_support.h"

namespace {

using embedpe::Batch;
using embedpe::EncodeOptions;
using embedpe::Side;
using embedpe::Tokenizer;
using nlohmann::json;

json golden(const std::string& name) {
  std::ifstream in(test::source_path("tests/golden/hf_tokenizers/" + name + ".json"));
  return json::parse(in);
}

const json& find_case(const json& g, const std::string& name) {
  for (const json& c : g["cases"]) {
    if (c["name"] == name) return c;
  }
  throw std::runtime_error("no case " + name);
}

void check_rows(const Batch& batch, const json& c, bool types) {
  const json& rows = c["rows"];
  REQUIRE(batch.size() == rows.size());
  for (std::size_t b = 0; b < rows.size(); ++b) {
    const json& row = rows[b];
    REQUIRE(batch.seq_len() == row["input_ids"].size());
    for (std::size_t l = 0; l < batch.seq_len(); ++l) {
      CHECK(batch.input_ids(b, l) == row["input_ids"][l].get<std::int64_t>());
      CHECK(batch.attention_mask(b, l) == row["attention_mask"][l].get<std::int64_t>());
      if (types) CHECK(batch.token_type_ids(b, l) == row["token_type_ids"][l].get<std::int64_t>());
    }
  }
  if (!types) CHECK(batch.token_type_ids.size() == 0);
}

}  // namespace

TEST_CASE("pretrained tokenizers give HF's batches and pairs through the library API") {
  for (const char* name : {"albert-base-v2", "xlnet-base-cased", "xlm-roberta-base-subst-hfsample",
                           "mbart-large-cc25-de-pruned", "t5-base-tarjimon", "marian-opus-mt-en-mg"}) {
    CAPTURE(name);
    const json g = golden(name);
    const Tokenizer tok = embedpe::load_pretrained_tokenizer(test::source_path("tests/models/hf/" + std::string(name)), embedpe::PretrainedTokenizerKind::slow);
    REQUIRE(tok.info().pretrained.has_value());
    CHECK(tok.info().pretrained->tokenizer_class == g["class"].get<std::string>());
    EncodeOptions options = embedpe::pretrained_encode_options(tok);
    CHECK(side_name(options.padding_side) == g["padding_side"].get<std::string>());
    const bool types = g["has_token_type_ids"].get<bool>();

    const json& longest = find_case(g, "batch longest");
    check_rows(tok.encode_batch(longest["texts"].get<std::vector<std::string>>(), options), longest, types);

    const json& cut = find_case(g, "batch max_length 6 both left");
    EncodeOptions fixed = options;
    fixed.seq_len = 6;
    fixed.padding_side = Side::left;
    fixed.truncation_side = Side::left;
    check_rows(tok.encode_batch(cut["texts"].get<std::vector<std::string>>(), fixed), cut, types);

    const json& pairs = find_case(g, "pairs max_length 8");
    EncodeOptions pair_options = options;
    pair_options.seq_len = 8;
    check_rows(tok.encode_pair_batch(pairs["texts"].get<std::vector<std::string>>(),
                                     pairs["pairs"].get<std::vector<std::string>>(), pair_options),
               pairs, types);

    for (const json& d : g["decodes"]) {
      const std::vector<int> ids = d["ids"].get<std::vector<int>>();
      CHECK(tok.decode(ids) == d["text"].get<std::string>());
      CHECK(tok.decode(ids, true) == d["skip_special"].get<std::string>());
    }
  }
}

namespace {

// A variant golden's directory: its base model with the changed tokenizer_config.json keys and files.
std::filesystem::path variant_directory(const json& g, const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("embedpe-hf-variant-" + name);
  fs::remove_all(dir);
  fs::copy(test::source_path("tests/models/hf/" + g["model"].get<std::string>()), dir, fs::copy_options::recursive);
  json config = json::object();
  if (fs::exists(dir / "tokenizer_config.json")) {
    std::ifstream in(dir / "tokenizer_config.json");
    config = json::parse(in);
  }
  config.update(g["tokenizer_config"]);
  std::ofstream(dir / "tokenizer_config.json") << config.dump();
  if (g.contains("files")) {
    for (const auto& item : g["files"].items()) std::ofstream(dir / item.key()) << item.value().dump();
  }
  return dir;
}

}  // namespace

TEST_CASE("pretrained decode equals HF's _decode: added tokens inside, OOV pieces, pairs, skip_special_tokens") {
  namespace fs = std::filesystem;
  std::vector<fs::path> paths;
  for (const char* where : {"tests/golden/hf_tokenizers", "tests/golden/hf_tokenizers/variants"}) {
    for (const auto& e : fs::directory_iterator(test::source_path(where))) {
      if (e.path().extension() == ".json") paths.push_back(e.path());
    }
  }
  REQUIRE(paths.size() >= 30);
  for (const fs::path& path : paths) {
    const std::string name = path.stem().string();
    CAPTURE(name);
    std::ifstream in(path);
    const json g = json::parse(in);
    const bool variant = g.contains("tokenizer_config");
    const fs::path dir = variant ? variant_directory(g, name) : fs::path(test::source_path("tests/models/hf/" + name));
    const Tokenizer tok = embedpe::load_pretrained_tokenizer(dir.string(), embedpe::PretrainedTokenizerKind::slow);
    if (variant) fs::remove_all(dir);
    REQUIRE(g["more_decodes"].size() > 20);
    for (const json& d : g["more_decodes"]) {
      const std::vector<int> ids = d["ids"].get<std::vector<int>>();
      const std::string text = d["text"].get<std::string>(), skip = d["skip_special"].get<std::string>();
      CAPTURE(text);
      CHECK(tok.decode(ids) == text);
      CHECK(tok.decode(ids, true) == skip);
    }
  }
}

TEST_CASE("a pretrained tokenizer's pieces are the class's tokens and its vocabulary is len(tokenizer)") {
  const Tokenizer tok = embedpe::load_pretrained_tokenizer(test::source_path("tests/models/hf/xlm-roberta-base-subst-hfsample"), embedpe::PretrainedTokenizerKind::slow);
  CHECK(tok.info().vocab_size == 1002);  // 1000 pieces + fairseq offset + <mask>
  CHECK(tok.id_to_piece(0) == "<s>");
  CHECK(tok.id_to_piece(1) == "<pad>");
  CHECK(tok.id_to_piece(1001) == "<mask>");
  CHECK(tok.info().pad_id == 1);
}

TEST_CASE("a directory that is not a usable tokenizer is one UsageError") {
  const auto dir = std::filesystem::temp_directory_path() / "embedpe-pretrained-unit";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "config.json") << R"({"model_type": "bert"})";
  std::ofstream(dir / "vocab.txt") << "[PAD]\n";
  CHECK_THROWS_AS(embedpe::load_pretrained_tokenizer(dir.string()), embedpe::UsageError);
  std::filesystem::remove_all(dir);
}
