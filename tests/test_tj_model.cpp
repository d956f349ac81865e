// tokenizer.json's models (lib/src/text/tj_model.h): every case of
// tests/golden/tj_models/, whose ids HF tokenizers 0.22.2's Rust core gave for
// each word (tools/make_tj_model_goldens.js), and the model sections we refuse.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "embedpe/error.h"
#include "test_support.h"
#include "tj_json.h"
#include "tj_model.h"

namespace {

using embedpe::tj::Model;
using nlohmann::json;

std::vector<json> read_jsonl(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in, "cannot read " << path);
  std::vector<json> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(json::parse(line));
  return out;
}

std::unique_ptr<Model> load_case(const std::string& name) {
  const std::string text = test::read_file(test::golden("tj_models/" + name + ".tokenizer.json"));
  return embedpe::tj::read_tokenizer_json(text, name + ".tokenizer.json").model;
}

// Every word of a case: our ids are the core's, and where it failed (an unknown
// token it needs but lacks), we fail too, naming the field.
void check_case(const std::string& name) {
  CAPTURE(name);
  const std::unique_ptr<Model> model = load_case(name);
  const std::vector<json> records = read_jsonl(test::golden("tj_models/" + name + ".words.jsonl"));
  REQUIRE(!records.empty());
  std::size_t errors = 0;
  for (int pass = 0; pass < 2; ++pass) {  // the second pass reads the word cache
    for (const json& r : records) {
      const std::string word = r.at("word");
      CAPTURE(word);
      std::vector<std::int32_t> ids{-7};  // tokenize appends
      if (r.contains("error")) {
        CHECK_THROWS_AS(model->tokenize(word, ids), embedpe::UsageError);
        ++errors;
        continue;
      }
      model->tokenize(word, ids);
      std::vector<std::int32_t> expected{-7};
      for (const json& id : r.at("ids")) expected.push_back(id.get<std::int32_t>());
      CHECK(ids == expected);
    }
  }
  (void)errors;
}

}  // namespace

TEST_CASE("tj_model: BPE trained by the core, byte-level (merges as pairs, as strings, ignore_merges)") {
  check_case("bpe_bytelevel_trained");
  check_case("bpe_bytelevel_legacy_merges");
  check_case("bpe_bytelevel_ignore_merges");
}

TEST_CASE("tj_model: BPE corners: ties, repeated merges, several merges giving one token") {
  check_case("bpe_ties");
  check_case("bpe_repeated_merge");
  check_case("bpe_ignore_merges");
  check_case("bpe_dropout_zero");
}

TEST_CASE("tj_model: BPE unknowns: fuse_unk, byte_fallback with missing bytes, no unk_token") {
  check_case("bpe_unk_fused");
  check_case("bpe_unk_not_fused");
  check_case("bpe_no_unk");
  check_case("bpe_unk_not_in_vocab");
  check_case("bpe_byte_fallback");
  check_case("bpe_byte_fallback_no_unk");
}

TEST_CASE("tj_model: BPE continuing_subword_prefix and end_of_word_suffix") { check_case("bpe_prefix_suffix"); }

TEST_CASE("tj_model: WordPiece trained by the core (max_input_chars_per_word, unknown words)") {
  check_case("wordpiece_trained");
}

TEST_CASE("tj_model: a model without \"type\" is the first of BPE, WordPiece, Unigram that reads, as in HF") {
  // bert-base-uncased's tokenizer.json has no type; it used to be refused.
  check_case("wordpiece_untyped");
  check_case("bpe_untyped");
  CHECK(std::string(load_case("wordpiece_untyped")->type()) == "WordPiece");
  CHECK(std::string(load_case("bpe_untyped")->type()) == "BPE");
}

TEST_CASE("tj_model: Unigram trained by the core, with and without byte_fallback") {
  check_case("unigram_trained");
  check_case("unigram_byte_fallback");
}

TEST_CASE("tj_model: Unigram corners: ties, tokens given twice, no unk_id, serde_json's float reading") {
  check_case("unigram_ties");
  check_case("unigram_duplicates");
  check_case("unigram_no_unk");
  check_case("unigram_serde_floats");
}

TEST_CASE("tj_model: the model's vocabulary and accessors") {
  const auto bpe = load_case("bpe_byte_fallback");
  CHECK(std::string(bpe->type()) == "BPE");
  CHECK(bpe->vocab_size() == 263);
  CHECK(bpe->token_to_id("<unk>") == 0);
  CHECK(bpe->token_to_id("<0xE3>") == std::nullopt);
  CHECK(bpe->id_to_token(1) == std::optional<std::string_view>("<0x00>"));
  CHECK(bpe->id_to_token(263) == std::nullopt);
  CHECK(bpe->id_to_token(-1) == std::nullopt);
  CHECK(bpe->unk_id() == 0);
  CHECK(load_case("bpe_no_unk")->unk_id() == std::nullopt);
  CHECK(load_case("bpe_unk_not_in_vocab")->unk_id() == std::nullopt);
  const auto uni = load_case("unigram_duplicates");
  CHECK(std::string(uni->type()) == "Unigram");
  CHECK(uni->token_to_id("a") == 6);  // the last of its ids, as HF's token_to_ids
  CHECK(uni->id_to_token(1) == std::optional<std::string_view>("a"));
  CHECK(uni->unk_id() == 0);
  const auto wp = load_case("wordpiece_trained");
  CHECK(std::string(wp->type()) == "WordPiece");
  CHECK(wp->unk_id() == wp->token_to_id("[UNK]"));
  std::vector<std::int32_t> ids;
  wp->tokenize("", ids);
  CHECK(ids.empty());
}

TEST_CASE("tj_model: tokenize_bytes gives tokenize's ids of the ByteLevel-mapped word") {
  const auto bpe = load_case("bpe_bytelevel_trained");
  const std::vector<std::string> raws{"hello", " world", "\xe3\x81\x82\xe3\x81\x84", std::string("a\0b\xff\xfe", 5), "  \t"};
  for (const std::string& raw : raws) {
    std::string mapped;
    for (const char c : raw) mapped += embedpe::tj::byte_level_char(static_cast<unsigned char>(c));
    std::vector<std::int32_t> a, b;
    bpe->tokenize(mapped, a);
    bpe->tokenize_bytes(raw, b);
    CHECK(a == b);
  }
  CHECK(embedpe::tj::byte_level_char(' ') == "\xc4\xa0");  // Ġ
  CHECK(embedpe::tj::byte_level_char('A') == "A");
  CHECK(embedpe::tj::byte_level_char(0xAD) == "\xc5\x83");  // Ń
}

TEST_CASE("tj_model: bad model sections are one-line usage errors naming the field") {
  for (const json& r : read_jsonl(test::golden("tj_models/bad_models.jsonl"))) {
    const std::string name = r.at("name"), field = r.at("field"), hf = r.at("hf");
    CAPTURE(name);
    CAPTURE(hf);
    const std::string file = R"({"version": "1.0", "model": )" + r.at("model").get<std::string>() + "}";
    std::string message;
    try {
      (void)embedpe::tj::read_tokenizer_json(file, "t.json");
    } catch (const embedpe::UsageError& e) {
      message = e.what();
    }
    CAPTURE(message);
    CHECK(message.rfind("t.json: " + field, 0) == 0);
    CHECK(message.find('\n') == std::string::npos);
  }
}

TEST_CASE("tj_model: read_tokenizer_json keeps every member's text and refuses malformed files") {
  const std::string text = R"( {"version": "1.0", "normalizer": {"type": "NFC"}, "added_tokens": [],
    "model": {"type": "WordPiece", "unk_token": "a", "continuing_subword_prefix": "##",
              "max_input_chars_per_word": 100, "vocab": {"a": 0, "\u00e9": 1}}, "decoder": null} )";
  const auto file = embedpe::tj::read_tokenizer_json(text, "t.json");
  CHECK(file.members.size() == 5);
  CHECK(file.members.at("normalizer") == R"({"type": "NFC"})");
  CHECK(file.members.at("decoder") == "null");
  CHECK(file.model->token_to_id("\xc3\xa9") == 1);
  CHECK(embedpe::tj::object_members(text, "t.json").size() == 5);
  for (const std::string bad : {
           R"({"model": {"type": "Unigram", "vocab": []}, "model": null})",      // a key given twice
           R"({"version": "1.0"})",                                                // no model
           R"({"model": {"type": "Unigram", "vocab": []}} x)",                    // text after the end
           R"({"model": {"type": "Unigram", "vocab": []}, "x": [1, 2,]})",        // a trailing comma elsewhere
           R"({"model": {"type": "Unigram", "vocab": []}, "x": "\ud800"})",       // a lone surrogate
           "{\"model\": {\"type\": \"Unigram\", \"vocab\": []}, \"x\": \"\xff\"}",  // invalid UTF-8
           R"({"model": {"type": "Unigram", "vocab": []}, "x": 01})",             // a leading zero
           R"([1, 2])",
           R"()",
       }) {
    CAPTURE(bad);
    CHECK_THROWS_AS((void)embedpe::tj::read_tokenizer_json(bad, "t.json"), embedpe::UsageError);
  }
}

TEST_CASE("tj_model: a vocabulary's errors name the token") {
  const auto message = [](const std::string& model) {
    try {
      (void)embedpe::tj::load_model(std::string_view(model), "t.json");
    } catch (const embedpe::UsageError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK(message(R"({"type": "BPE", "vocab": {"a": 0, "b": 0}, "merges": []})") ==
        "t.json: model.vocab['b']: id 0 is also 'a''s (HF tokenizers would decode it as either, varying from run to run)");
  CHECK(message(R"({"type": "BPE", "vocab": {"a": 0, "b": 2147483648}, "merges": []})") ==
        "t.json: model.vocab['b']: id 2147483648 is beyond int32");
  CHECK(message(R"({"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": [["a", "c"]]})") ==
        "t.json: model.merges[0]: 'c' is not in the vocabulary");
  CHECK(message(R"({"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": [["a", "b"]]})") ==
        "t.json: model.merges[0]: their merge 'ab' is not in the vocabulary");
  CHECK(message(R"({"type": "BPE", "dropout": 0.1, "vocab": {}, "merges": []})") ==
        "t.json: model.dropout: 0.100000 is not supported (only null or 0: no dropout)");
  CHECK(message(R"({"type": "WordLevel", "vocab": {}})") ==
        "t.json: model.type: 'WordLevel' is not a supported model (BPE, WordPiece, Unigram)");
}

TEST_CASE("tj_model: serde_number reads numbers as serde_json 1.0.149 does (not always the nearest double)") {
  const auto read = [](const std::string& text) {
    embedpe::tj::JsonReader r(text, "t.json", "x");
    return r.serde_number();
  };
  CHECK(read("-16.427407879097371") == -16.427407879097373);  // the core's save() writes this back
  CHECK(read("-16.427407879097371") != -16.427407879097371);
  CHECK(read("0.5") == 0.5);
  CHECK(read("-3") == -3.0);
  CHECK(read("1e-400") == 0.0);
  // Past u64, digits only raise the exponent: 12345678901234567890 as a double, times 1e10.
  CHECK(read("123456789012345678901234567890") == static_cast<double>(12345678901234567890ull) * 1e10);
  CHECK_THROWS_AS(read("1e400"), embedpe::UsageError);
}

TEST_CASE("tj_model: one 200 KB word of one letter is not quadratic") {
  // HF's queue is O(n log n); a quadratic merge loop would take minutes here.
  const auto bpe = load_case("bpe_ties");  // merges a a, aa aa
  const std::string word(200000, 'a');
  std::vector<std::int32_t> ids;
  const auto start = std::chrono::steady_clock::now();
  bpe->tokenize(word, ids);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(ids.size() == 200000 / 4);
  CHECK(seconds < 5.0);
  const auto uni = load_case("unigram_ties");
  ids.clear();
  uni->tokenize(word, ids);
  CHECK(ids.size() == 200000);
}

namespace {
std::string model_error(const std::string& model) {
  try {
    (void)embedpe::tj::load_model(std::string_view(model), "t.json");
  } catch (const embedpe::UsageError& e) {
    return e.what();
  }
  return "(no error)";
}
// A BPE model of the letters a-z and `merges` of their pairs ("a b" -> "ab", in
// turn), plus `extra` merges written after them as they are (JSON text).
std::string letter_pairs_model(std::size_t merges, const std::vector<std::string>& extra) {
  std::string vocab, list;
  int id = 0;
  for (char c = 'a'; c <= 'z'; ++c) {
    vocab += std::string(id ? ", " : "") + "\"" + c + "\": " + std::to_string(id);
    ++id;
  }
  for (std::size_t i = 0; i < merges; ++i) {
    const std::string a(1, static_cast<char>('a' + i / 26)), b(1, static_cast<char>('a' + i % 26));
    vocab += ", \"" + a + b + "\": " + std::to_string(id);
    ++id;
    list += std::string(i ? ", " : "") + "\"" + a + " " + b + "\"";
  }
  for (const std::string& e : extra) list += ", " + e;
  // continuing_subword_prefix before the merges, as HF writes it: merges are resolved as they are read.
  return R"({"type": "BPE", "continuing_subword_prefix": null, "vocab": {)" + vocab + R"(}, "merges": [)" + list + "]}";
}
}  // namespace

TEST_CASE("tj_model: merges are checked in order, the first bad one refused, whatever comes after it") {
  // Merges are resolved in batches (their look-ups prefetched together): a bad
  // merge is still the one refused before any later fault of the array.
  CHECK(model_error(letter_pairs_model(150, {})) == "(no error)");
  CHECK(model_error(letter_pairs_model(100, {"\"a zz\"", "\"b yy\""})) ==
        "t.json: model.merges[100]: 'zz' is not in the vocabulary");
  CHECK(model_error(letter_pairs_model(130, {"\"a zz\"", "\"a b c\""})) ==
        "t.json: model.merges[130]: 'zz' is not in the vocabulary");
  CHECK(model_error(letter_pairs_model(70, {"\"c zz\"", "\"a\" x"})) ==
        "t.json: model.merges[70]: 'zz' is not in the vocabulary");
  CHECK(model_error(letter_pairs_model(10, {"\"c zz\"", "[\"a\", \"b\"]"})) ==
        "t.json: model.merges[10]: 'zz' is not in the vocabulary");
  CHECK(model_error(letter_pairs_model(100, {"\"a b c\"", "\"a zz\""})) ==
        "t.json: model.merges[100]: 'a b c' is not two tokens separated by one space");
  // The ranks stay those of the array: "a a" (rank 0) before "a b" (rank 1).
  const auto bpe = embedpe::tj::load_model(std::string_view(letter_pairs_model(150, {})), "t.json");
  std::vector<std::int32_t> ids;
  bpe->tokenize("fab", ids);  // "fa" is merge 130, "ab" merge 1
  CHECK(ids == std::vector<std::int32_t>{*bpe->token_to_id("f"), *bpe->token_to_id("ab")});
}

TEST_CASE("tj_model: a vocabulary out of id order reads as in order, and its faults are named the same") {
  const auto in_order = embedpe::tj::load_model(
      std::string_view(R"({"type": "BPE", "vocab": {"a": 0, "b": 1, "c": 2, "d": 3}, "merges": []})"), "t.json");
  const auto shuffled = embedpe::tj::load_model(
      std::string_view(R"({"type": "BPE", "vocab": {"a": 0, "b": 1, "d": 3, "c": 2}, "merges": []})"), "t.json");
  for (const char* t : {"a", "b", "c", "d"}) CHECK(in_order->token_to_id(t) == shuffled->token_to_id(t));
  CHECK(shuffled->id_to_token(2) == std::optional<std::string_view>("c"));
  const std::string twice = " (HF tokenizers would decode it as either, varying from run to run)";
  CHECK(model_error(R"({"type": "BPE", "vocab": {"a": 0, "b": 1, "c": 1}, "merges": []})") ==
        "t.json: model.vocab['c']: id 1 is also 'b''s" + twice);
  CHECK(model_error(R"({"type": "BPE", "vocab": {"a": 0, "b": 2, "c": 1, "d": 0}, "merges": []})") ==
        "t.json: model.vocab['d']: id 0 is also 'a''s" + twice);
  CHECK(model_error(R"({"type": "BPE", "vocab": {"a": 0, "b": 1, "c": 9, "d": 9}, "merges": []})") ==
        "t.json: model.vocab['d']: id 9 is also 'c''s" + twice);
  // A token given twice keeps its last id (serde's map), and then no other token's.
  CHECK(model_error(R"({"type": "BPE", "vocab": {"a": 0, "b": 1, "a": 1}, "merges": []})") ==
        "t.json: model.vocab['a']: id 1 is also 'b''s" + twice);
  CHECK(model_error(R"({"type": "BPE", "vocab": {"a": 0, "b": 0, "b": 1}, "merges": []})") == "(no error)");
}

// The core's id -> token map and vocab size of a case (CASE.ids.jsonl), and its words' ids.
static void check_ids(const std::string& name) {
  CAPTURE(name);
  check_case(name);
  const std::unique_ptr<Model> model = load_case(name);
  const std::vector<json> lines = read_jsonl(test::golden("tj_models/" + name + ".ids.jsonl"));
  REQUIRE(lines.size() > 2);
  CHECK(model->vocab_size() == lines[0].at("vocab_size").get<std::size_t>());
  std::int32_t largest = -1;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto id = lines[i].at("id").get<std::int32_t>();
    CAPTURE(id);
    const json& token = lines[i].at("token");
    if (token.is_null()) {
      CHECK(model->id_to_token(id) == std::nullopt);
    } else {
      largest = id;
      CHECK(model->id_to_token(id) == std::optional<std::string_view>(token.get<std::string>()));
      CHECK(model->token_to_id(token.get<std::string>()) == id);
    }
  }
  CHECK(model->id_bound() == static_cast<std::size_t>(largest) + 1);
}

TEST_CASE("tj_model: vocabularies whose ids leave holes read as HF reads them (GPT-4o's do)") {
  check_ids("bpe_vocab_holes");
  check_ids("bpe_vocab_holes_unordered");
  check_ids("wordpiece_vocab_holes");
  check_ids("bpe_duplicate_token");
  check_ids("bpe_duplicate_token_unordered");
}

TEST_CASE("tj_model: holes far apart cost memory by tokens, not by ids") {
  const auto model = embedpe::tj::load_model(
      std::string_view(R"({"type": "BPE", "vocab": {"a": 0, "b": 2147483647, "ab": 1000000000}, "merges": [["a", "b"]]})"),
      "t.json");
  CHECK(model->vocab_size() == 3);
  CHECK(model->id_bound() == 2147483648u);
  CHECK(model->id_to_token(2147483647) == std::optional<std::string_view>("b"));
  CHECK(model->id_to_token(2147483646) == std::nullopt);
  std::vector<std::int32_t> ids;
  model->tokenize("abba", ids);
  CHECK(ids == std::vector<std::int32_t>{1000000000, 2147483647, 0});
}

TEST_CASE("tj_model: a vocabulary out of id order reads as in order (continued)") {
  CHECK(model_error(R"({"type": "BPE", "vocab": {"a": 0, "a": 1}, "merges": []})") == "(no error)");
  CHECK(model_error(R"({"type": "BPE", "vocab": {"b": 1, "a": 0, "b": 2}, "merges": []})") == "(no error)");
}
