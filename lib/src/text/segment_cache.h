// Private: exact BPE tokenization by cached segments.
//
//   auto rules = embedpe::SegmentRules::from_model(serialized);   // at load
//   if (rules) {
//     embedpe::SegmentEncoder enc(*rules, unk_id);
//     Encoding e = enc.encode(text, [&](std::string_view seg) { return sentencepiece_encode(seg); });
//   }
//
// SentencePiece's BPE merges two adjacent symbols only when their
// concatenation is a vocabulary piece. Between two characters x and y that
// are adjacent in no vocabulary piece, no merge (and no user-defined symbol
// match) can ever cross, so the text's encoding is the concatenation of the
// encodings of the segments cut there — up to one thing SentencePiece does
// across pieces: consecutive <unk> pieces merge into one (without byte
// fallback). The encoder repeats that merge where two segments meet. Each
// segment's encoding depends only on its bytes, so it is cached: a corpus
// repeats its words.
//
// from_model decides, once per model, whether this is exact; when in doubt it
// says no and the tokenizer calls SentencePiece on the whole text. It says yes
// only for BPE models whose normalizer is the identity (no precompiled
// charsmap: every character normalizes to itself, ' ' to U+2581), that keep
// whitespace as it is (remove_extra_whitespaces off), escape it as a prefix
// (treat_whitespace_as_suffix off), have no UNUSED pieces (BPE re-splits those
// with a table that spans the whole text), no piece containing ' ', no score
// that is NaN (it breaks the order of SentencePiece's priority queue, whose
// result then depends on every candidate of the whole text), and no
// self-test data. Unigram models are never cached: their Viterbi sums float32
// scores along the whole text, so a near-tie inside a segment can be decided
// differently at a different offset (see docs/PERFORMANCE.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "embedpe/tokenizer.h"
#include "segment_bpe.h"

namespace embedpe {

class SegmentRules {
 public:
  // nullopt when segments would not be exact for this model (or the bytes are
  // not a model this can read); `why_not` then says which condition failed.
  static std::optional<SegmentRules> from_model(std::string_view serialized, std::string* why_not = nullptr);
  // The part of from_model's decision that reads no piece, only the model's
  // type and normalizer (cheap): false means from_model says no.
  static bool spec_allows(std::string_view serialized);

  // The model's normalizer_spec.add_dummy_prefix: the segments of a text are
  // cut from " " + text when it is set (the prefix the normalizer adds).
  bool dummy_prefix() const { return dummy_prefix_; }
  bool byte_fallback() const { return byte_fallback_; }

  // True if some vocabulary piece holds code point a immediately followed by
  // b (' ' counts as U+2581, as the normalizer escapes it).
  bool joined(char32_t a, char32_t b) const;

  // Cuts `text` between characters no piece joins. Empty if `text` is not
  // valid UTF-8 as SentencePiece decodes it (its normalizer would replace
  // bytes, so the caller encodes the whole text instead).
  std::vector<std::string_view> split(std::string_view text) const;

 private:
  SegmentRules() = default;
  // Reads the specs into `rules`; the reason they refuse segments, or null.
  static const char* read_spec(std::string_view serialized, SegmentRules& rules);
  void add_pair(char32_t a, char32_t b);

  bool dummy_prefix_ = true;
  bool byte_fallback_ = false;
  // Pairs of ASCII or U+2581 (index 128), as a bitmap: (129 × 129) bits.
  std::vector<std::uint64_t> small_pairs_;
  // Every other pair, (a << 21 | b) + 1, open addressing; 0 = empty.
  std::vector<std::uint64_t> pairs_;
  std::uint64_t pair_mask_ = 0;
};

// A segment → encoding cache shared by all threads: sharded, each shard
// behind its own mutex, each bounded in bytes (a full shard is emptied), and
// segments longer than kMaxSegmentBytes are encoded but not kept. Memory
// therefore stays under kMaxBytes (plus hash-table overhead) on any corpus.
class SegmentEncoder {
 public:
  static constexpr std::size_t kMaxBytes = std::size_t(32) << 20;
  static constexpr std::size_t kMaxSegmentBytes = 128;

  // unk_id: the model's <unk>, whose runs SentencePiece merges. bpe: encodes
  // the segments instead of `encode_segment` where it can (segment_bpe.h).
  // max_bytes: the cache's budget (tests make it small).
  SegmentEncoder(SegmentRules rules, int unk_id, std::optional<SegmentBpe> bpe = std::nullopt,
                 std::size_t max_bytes = kMaxBytes);
  ~SegmentEncoder();

  const SegmentRules& rules() const { return rules_; }
  const SegmentBpe* bpe() const { return bpe_ ? &*bpe_ : nullptr; }

  // `encode_segment` must encode one piece of text as SentencePiece does
  // *without* the dummy prefix; it is called for segments not in the cache
  // that the SegmentBpe, if any, leaves to it, and for the whole (prefixed)
  // text when it cannot be split.
  // With Pieces::drop the result's pieces may be empty.
  Encoding encode(std::string_view text, const std::function<Encoding(std::string_view)>& encode_segment,
                  Pieces pieces = Pieces::keep) const;

  // Entries held now (for tests).
  std::size_t cached_segments() const;

 private:
  void append(Encoding& out, const Encoding& segment, Pieces pieces) const;
  Encoding encode_fresh(std::string_view segment,
                        const std::function<Encoding(std::string_view)>& encode_segment) const;

  SegmentRules rules_;
  int unk_id_;
  std::optional<SegmentBpe> bpe_;
  std::size_t max_bytes_;
  struct Shard;
  std::unique_ptr<Shard[]> shards_;
};

}  // namespace embedpe
