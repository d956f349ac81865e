// The segment cache (lib/src/segment_cache.h): which models may use it, where
// it cuts, <unk> runs across segments, its memory bound, and identity with
// SentencePiece on the committed BPE model. The whole-corpus proof is the
// CTest case "identity: segment cache vs SentencePiece"; the fuzz target
// fuzz_segment_cache compares on arbitrary bytes.
#include <doctest/doctest.h>
#include <sentencepiece_processor.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "../fuzz/model_variants.h"
#include "default_model.h"
#include "embedpe/tokenizer.h"
#include "segment_cache.h"
#include "test_support.h"

using embedpe::Encoding;
using embedpe::SegmentEncoder;
using embedpe::SegmentRules;
using embedpe::Tokenizer;

namespace {

const std::string& mistral() {
  static const std::string bytes = test::read_file(test::source_path("tests/models/mistral-v3-tokenizer.model"));
  return bytes;
}

using embedpe::variants::field;
using embedpe::variants::with_piece;

Encoding sentencepiece_encode(const std::string& model, const std::string& text) {
  sentencepiece::SentencePieceProcessor sp;
  REQUIRE(sp.LoadFromSerializedProto(model).ok());
  sentencepiece::ImmutableSentencePieceText spt;
  REQUIRE(sp.Encode(text, spt.mutable_proto()).ok());
  Encoding e;
  for (const auto& p : spt.pieces()) {
    e.ids.push_back(static_cast<int>(p.id()));
    e.pieces.push_back(p.piece());
  }
  return e;
}

}  // namespace

TEST_CASE("which models may use the segment cache") {
  std::string why;
  CHECK(SegmentRules::from_model(mistral(), &why).has_value());
  CHECK(Tokenizer::from_bytes(mistral(), "mistral").info().segment_cache);

  SUBCASE("unigram models never: float32 Viterbi sums depend on the offset") {
    CHECK_FALSE(SegmentRules::from_model(embedpe::detail::default_model_bytes(), &why));
    CHECK(why == "it is not a BPE model");
    CHECK_FALSE(Tokenizer::default_model().info().segment_cache);
  }
  SUBCASE("an UNUSED piece: BPE re-splits it with a table spanning the whole text") {
    CHECK_FALSE(SegmentRules::from_model(with_piece(mistral(), "zzq", 5), &why));
    CHECK(why == "it has UNUSED pieces");
  }
  SUBCASE("a piece with ' '") {
    CHECK_FALSE(SegmentRules::from_model(with_piece(mistral(), "a b", 4), &why));
    CHECK(why == "a piece contains ' '");
  }
  SUBCASE("remove_extra_whitespaces, a charsmap, suffix whitespace") {
    CHECK_FALSE(SegmentRules::from_model(mistral() + field(3, std::string("\x20\x01", 2)), &why));  // field 4 = true
    CHECK(why == "it removes extra whitespace");
    CHECK_FALSE(SegmentRules::from_model(mistral() + field(3, field(2, "xx")), &why));
    CHECK(why == "its normalizer is not the identity");
    CHECK_FALSE(SegmentRules::from_model(mistral() + field(2, std::string("\xC0\x01\x01", 3)), &why));
    CHECK(why == "it treats whitespace as a suffix");
  }
}

TEST_CASE("segments are cut only between characters no piece joins") {
  const auto rules = SegmentRules::from_model(mistral());
  REQUIRE(rules);
  const std::string text = " Hello, world!  Two  spaces \xE2\x96\x81 x \xE4\xBD\xA0\xE5\xA5\xBD";
  const auto segments = rules->split(text);
  CHECK(segments.size() > 4);
  std::string joined;
  for (auto s : segments) {
    CHECK_FALSE(s.empty());
    CHECK((static_cast<unsigned char>(s[0]) & 0xC0) != 0x80);  // never inside a character
    joined += s;
  }
  CHECK(joined == text);
  // "▁▁" is a piece: a run of spaces stays in one segment.
  CHECK(rules->joined(U' ', U' '));
  CHECK(rules->split("a  b").size() == 2);
  // Bytes SentencePiece's normalizer would replace: no segments at all.
  CHECK(rules->split("ok \xFF ok").empty());
  CHECK(rules->split("\xED\xA0\x80").empty());  // a surrogate
  CHECK(rules->split("\xC0\xAF").empty());      // overlong '/'
}

TEST_CASE("issue 14 – a run of unknown characters straddling two segments is one <unk>, as SentencePiece gives it") {
  const std::string model = embedpe::variants::without_byte_fallback(mistral());
  const Tokenizer tok = Tokenizer::from_bytes(model, "mistral without byte fallback");
  REQUIRE(tok.info().segment_cache);
  const auto rules = SegmentRules::from_model(model);
  // Two private-use characters: in no piece, so the text is cut between them.
  const std::string text = "x \xEE\x80\x80\xEE\x80\x81 y";
  REQUIRE_FALSE(rules->joined(0xE000, 0xE001));
  const Encoding got = tok.encode(text);
  const Encoding expected = sentencepiece_encode(model, text);
  CHECK(got.ids == expected.ids);
  CHECK(got.pieces == expected.pieces);
  int unks = 0;
  for (int id : got.ids) unks += id == tok.info().unk_id;
  CHECK(unks == 1);
}

TEST_CASE("the cached path gives SentencePiece's ids and pieces, on every variant of the model") {
  const std::vector<std::string> texts = {
      "", " ", "  ", "a", " a", "a ", "Hello, world!", "  two  spaces  ", "tab\there", "caf\xC3\xA9 \xF0\x9F\x99\x82",
      "\xE2\x96\x81 already escaped \xE2\x96\x81\xE2\x96\x81", "\xE4\xBD\xA0\xE5\xA5\xBD\xE4\xB8\x96\xE7\x95\x8C",
      "b\xE2\x96\x81 <x><x> \xE2\x98\x83\xE2\x98\x83\xE2\x98\x83", "bad \xFF utf8", std::string("nul\0inside", 10),
      "[INST] control [/INST] 12345"};
  std::string user_defined = embedpe::variants::without_byte_fallback(mistral());
  for (const char* p : {"<x>", "b\xE2\x96\x81", "\xE2\x98\x83\xE2\x98\x83"}) user_defined = with_piece(user_defined, p, 4);
  for (const std::string& model : {mistral(), embedpe::variants::without_byte_fallback(mistral()), user_defined}) {
    const Tokenizer tok = Tokenizer::from_bytes(model, "variant");
    REQUIRE(tok.info().segment_cache);
    for (int pass = 0; pass < 2; ++pass) {  // the second pass reads the cache
      for (const auto& text : texts) {
        CAPTURE(text);
        const Encoding got = tok.encode(text);
        const Encoding expected = sentencepiece_encode(model, text);
        CHECK(got.ids == expected.ids);
        CHECK(got.pieces == expected.pieces);
      }
    }
  }
}

TEST_CASE("the cache is bounded, kept per segment and shared by threads") {
  auto rules = SegmentRules::from_model(mistral());
  REQUIRE(rules);
  const SegmentEncoder encoder(std::move(*rules), 0, 64 * 1024);
  std::atomic<int> calls{0};
  const auto fake = [&](std::string_view segment) {
    ++calls;
    Encoding e;
    e.ids.push_back(static_cast<int>(segment.size()));
    e.pieces.emplace_back(segment);
    return e;
  };
  const Encoding once = encoder.encode("the cat the cat", fake);
  CHECK(once.pieces == std::vector<std::string>{" the", " cat", " the", " cat"});
  CHECK(calls == 2);  // each segment encoded once

  // 200 000 distinct segments on two threads: the cache stays within its
  // budget (an entry costs at least 96 bytes), and results stay right.
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100000; ++i) {
        std::string word = "w";  // (appended: GCC 12 warns falsely on "w" + std::string&&)
        word += std::to_string(t) + "x" + std::to_string(i);
        const Encoding e = encoder.encode(word, fake);
        std::string text;
        for (const auto& p : e.pieces) text += p;
        if (text != " " + word) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(wrong == 0);
  CHECK(encoder.cached_segments() <= 64 * 1024 / 96);
}
