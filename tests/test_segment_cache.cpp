// The segment cache (lib/src/segment_cache.h): which models may use it, where
// it cuts, <unk> runs across segments, its memory bound, and identity with
// SentencePiece on the committed BPE model. The whole-corpus proof is the
// CTest case "identity: segment cache vs SentencePiece"; the fuzz target
// fuzz_segment_cache compares on arbitrary bytes.
#include <doctest/doctest.h>
#include <sentencepiece_processor.h>

#include <atomic>
#include <limits>
#include <optional>
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

void protobuf_append_varint_field(std::string& out, std::uint32_t number, std::uint64_t value) {
  embedpe::protobuf::append(out, {.number = number, .wire_type = embedpe::protobuf::kVarint, .value = value});
}
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

  SUBCASE("unigram models: not SegmentRules' (BPE), SegmentUnigram's (segment_unigram.h)") {
    CHECK_FALSE(SegmentRules::from_model(embedpe::detail::default_model_bytes(), &why));
    CHECK(why == "it is not a BPE model");
    CHECK(Tokenizer::default_model().info().segment_cache);
  }
  SUBCASE("an UNUSED piece: BPE re-splits it with a table spanning the whole text") {
    CHECK_FALSE(SegmentRules::from_model(with_piece(mistral(), "zzq", 5), &why));
    CHECK(why == "it has UNUSED pieces");
  }
  SUBCASE("a NaN score: it breaks the order of SentencePiece's priority queue over the whole text") {
    CHECK_FALSE(SegmentRules::from_model(
        embedpe::variants::with_scores(mistral(), std::numeric_limits<float>::quiet_NaN()), &why));
    CHECK(why == "a score is not a number");
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
  const std::vector<std::string> texts = {"",
                                          " ",
                                          "  ",
                                          "a",
                                          " a",
                                          "a ",
                                          "Hello, world!",
                                          "  two  spaces  ",
                                          "tab\there",
                                          "caf\xC3\xA9 \xF0\x9F\x99\x82",
                                          "\xE2\x96\x81 already escaped \xE2\x96\x81\xE2\x96\x81",
                                          "\xE4\xBD\xA0\xE5\xA5\xBD\xE4\xB8\x96\xE7\x95\x8C",
                                          "b\xE2\x96\x81 <x><x> \xE2\x98\x83\xE2\x98\x83\xE2\x98\x83",
                                          "bad \xFF utf8",
                                          std::string("nul\0inside", 10),
                                          "[INST] control [/INST] 12345",
                                          "the quick brown fox",
                                          "internationalization"};
  std::string user_defined = embedpe::variants::without_byte_fallback(mistral());
  for (const char* p : {"<x>", "b\xE2\x96\x81", "\xE2\x98\x83\xE2\x98\x83"}) user_defined = with_piece(user_defined, p, 4);
  const std::string tied = embedpe::variants::with_scores(mistral(), 0.0f);  // every merge a tie: leftmost first
  for (const std::string& model :
       {mistral(), embedpe::variants::without_byte_fallback(mistral()), user_defined, tied}) {
    const Tokenizer tok = Tokenizer::from_bytes(model, "variant");
    REQUIRE(tok.info().segment_cache);
    for (int pass = 0; pass < 2; ++pass) {  // the second pass reads the cache
      for (const auto& text : texts) {
        CAPTURE(text);
        const Encoding got = tok.encode(text);
        const Encoding expected = sentencepiece_encode(model, text);
        CHECK(got.ids == expected.ids);
        CHECK(got.pieces == expected.pieces);
        const Encoding ids_only = tok.encode(text, embedpe::Pieces::drop);
        CHECK(ids_only.ids == expected.ids);
        CHECK(ids_only.pieces.empty());
      }
    }
  }
  // The tied variant really is another tokenization: the tie-break decides.
  CHECK(sentencepiece_encode(tied, "the quick brown fox").ids !=
        sentencepiece_encode(mistral(), "the quick brown fox").ids);
}

TEST_CASE("SegmentBpe encodes the segments of BPE models without user-defined or UNUSED pieces") {
  using embedpe::SegmentBpe;
  CHECK(SegmentBpe::from_model(mistral()).has_value());
  CHECK(SegmentBpe::from_model(embedpe::variants::without_byte_fallback(mistral())).has_value());
  CHECK_FALSE(SegmentBpe::from_model(with_piece(mistral(), "<x>", 4)).has_value());     // USER_DEFINED
  CHECK_FALSE(SegmentBpe::from_model(with_piece(mistral(), "zzq", 5)).has_value());     // UNUSED
  CHECK_FALSE(SegmentBpe::from_model(with_piece(mistral(), "hello", 1)).has_value());   // defined twice
  CHECK_FALSE(SegmentBpe::from_model(with_piece(mistral(), "<unk2>", 2)).has_value());  // a second <unk>
  // Its encoding of a segment is SentencePiece's of the same text with no dummy prefix.
  static constexpr char kNoDummyPrefix[] = {0x1A, 0x02, 0x18, 0x00};
  const std::string no_prefix = mistral() + std::string(kNoDummyPrefix, sizeof kNoDummyPrefix);
  const auto bpe = SegmentBpe::from_model(mistral());
  for (const std::string segment : {"Hello", " world", " unbelievable", "ä½ å¥½", "ð"}) {
    CAPTURE(segment);
    const std::optional<Encoding> got = bpe->encode(segment);
    REQUIRE(got.has_value());
    const Encoding expected = sentencepiece_encode(no_prefix, segment);
    CHECK(got->ids == expected.ids);
    CHECK(got->pieces == expected.pieces);
  }
}

TEST_CASE("a model the tokenizer takes without loading SentencePiece is one SentencePiece loads, with the same ids") {
  // The tokenizer leaves SentencePiece unloaded when SegmentBpe takes the
  // model, so SegmentBpe must refuse whatever SentencePiece's parser and
  // loader refuse. Damaged and unusual models, and random byte changes inside
  // pieces: where the tokenizer loads one, SentencePiece must too, with the
  // same vocabulary size, special ids and encodings.
  const std::string no_fallback = embedpe::variants::without_byte_fallback(mistral());
  const auto trainer = [](std::uint32_t number, std::string_view text) { return field(2, field(number, text)); };
  std::string byte_fallback_on;
  protobuf_append_varint_field(byte_fallback_on, 35, 1);
  std::vector<std::pair<std::string, std::string>> models = {
      {"as it is", mistral()},
      {"a byte piece twice", with_piece(mistral(), "<0x41>", 6)},
      {"a byte piece without byte fallback", with_piece(no_fallback, "<0x41>", 6)},
      {"a malformed byte piece", with_piece(mistral(), "<0xZZ>", 6)},
      {"a lower-case byte piece", with_piece(mistral(), "<0x4a>", 6)},
      {"byte fallback without its 256 pieces", no_fallback + field(2, byte_fallback_on)},
      {"a second <unk>", with_piece(mistral(), "<unk2>", 2)},
      {"a piece type outside the enum", with_piece(mistral(), "zzq", 9)},
      {"a piece type beyond 8 bits", with_piece(mistral(), "zzq", 259)},
      {"an empty piece", with_piece(mistral(), "", 1)},
      {"a one-character control piece", with_piece(mistral(), "Q", 3)},
      {"a denormalizer table", mistral() + field(5, field(2, "xx"))},
      {"a malformed trainer_spec", mistral() + field(2, "\xFF")},
      {"a malformed piece", mistral() + field(1,
                                              "\x0A\x05"
                                              "ab")},
      {"unk_piece naming <s>", mistral() + trainer(45, "<s>")},
      {"bos_piece naming a normal piece", mistral() + trainer(46, "hello")},
      {"eos_piece with a NUL", mistral() + trainer(47, std::string("</s>\0x", 6))},
      {"pad_piece naming <unk>", mistral() + trainer(48, "<unk>")},
      {"an empty bos_piece (the default <s>)", mistral() + trainer(46, "")},
      {"an empty eos_piece (the default </s>)", mistral() + trainer(47, "")},
      {"an empty unk_piece", mistral() + trainer(45, "")},
      {"NaN scores", embedpe::variants::with_scores(mistral(), std::numeric_limits<float>::quiet_NaN())},
  };
  // Random changes to single bytes inside the first pieces (their text, score and type).
  std::uint64_t seed = 12345;
  const auto next = [&seed] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return seed >> 33;
  };
  for (int i = 0; i < 120; ++i) {
    std::string damaged = mistral();
    const std::size_t at = 2 + next() % 4000;  // the <unk>, <s>, </s>, byte and first normal pieces
    damaged[at] = static_cast<char>(next() & 0xFF);
    models.emplace_back("byte " + std::to_string(at) + " changed", damaged);
  }
  const std::vector<std::string> texts = {"Hello, world!", "Q and A", "caf\xC3\xA9 \xF0\x9F\x99\x82 <0x41>",
                                          "zzq hello"};
  std::size_t taken = 0;
  for (const auto& model : models) {  // no structured binding: clang 14's CAPTURE cannot capture one
    const auto& name = model.first;
    const auto& bytes = model.second;
    CAPTURE(name);
    sentencepiece::SentencePieceProcessor sp;
    const bool sp_loads = sp.LoadFromSerializedProto(bytes).ok();
    std::optional<Tokenizer> tok;
    try {
      tok.emplace(Tokenizer::from_bytes(bytes, "variant"));
    } catch (const embedpe::Error&) {
    }
    if (!tok) continue;  // refusing more than SentencePiece is allowed; accepting more is not
    ++taken;
    REQUIRE(sp_loads);
    CHECK(tok->info().vocab_size == sp.GetPieceSize());
    CHECK(tok->info().unk_id == sp.unk_id());
    CHECK(tok->info().bos_id == sp.bos_id());
    CHECK(tok->info().eos_id == sp.eos_id());
    CHECK(tok->info().pad_id == sp.pad_id());
    for (int id : {0, 1, 2, 3, 100, sp.GetPieceSize() - 1}) CHECK(tok->id_to_piece(id) == sp.IdToPiece(id));
    for (const std::string& text : texts) {
      CAPTURE(text);
      sentencepiece::ImmutableSentencePieceText spt;
      const bool sp_encodes = sp.Encode(text, spt.mutable_proto()).ok();
      std::optional<Encoding> got;
      try {
        got = tok->encode(text);
      } catch (const embedpe::Error&) {
      }
      REQUIRE(got.has_value() == sp_encodes);
      if (!got) continue;
      std::vector<int> ids;
      for (const auto& p : spt.pieces()) ids.push_back(static_cast<int>(p.id()));
      CHECK(got->ids == ids);
    }
  }
  CHECK(taken > 60);  // most single-byte changes leave a usable model
}

TEST_CASE("the cache is bounded, kept per segment and shared by threads") {
  auto rules = SegmentRules::from_model(mistral());
  REQUIRE(rules);
  const SegmentEncoder encoder(std::move(*rules), 0, std::nullopt, 64 * 1024);
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
