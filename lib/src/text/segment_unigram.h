// Private: SentencePiece's unigram encoding done here, by cached segments.
//
//   auto uni = embedpe::SegmentUnigram::from_model(serialized);   // at load
//   if (uni) {
//     std::optional<Encoding> e = uni->encode(text);   // nullopt: ask SentencePiece
//   }
//
// What SentencePieceProcessor::Encode does for a unigram model (v0.1.97),
// done here: the normalizer (user-defined symbols kept as they are, the
// precompiled charsmap's longest match, invalid UTF-8 as U+FFFD, extra
// whitespace removed, the dummy prefix, ' ' escaped as U+2581), then
// unigram::Model::EncodeOptimized (a float best-path score per position; a
// candidate is the double sum score + best[start], taken when it is strictly
// greater, so ties go to the earliest start; a character no one-character
// piece covers is an <unk> node scored min_score - 10; user-defined pieces
// score length * max_score - 0.1), then PopulateSentencePieceText's rules
// (an <unk> becomes its bytes' <0xXX> pieces with byte fallback; a run of
// <unk> pieces one piece without it).
//
// Segments. No piece of the models it accepts has U+2581 past its first
// character, so every U+2581 of the normalized text starts a node of the best
// path, and the text splits there into segments whose best path depends only
// on the float score P reached at their start. Each distinct segment is
// encoded once from P = 0 and cached with its path, its smallest decision
// margin m0 (the winning candidate minus the best other one, over every
// position), its length n and the largest magnitude M of any score it met.
// Under another P every value differs from its P = 0 counterpart by rounding
// errors of at most n·2^-24·(|P| + M) on either run, so when
// m0 > (2n + 4)·2^-24·(|P| + 2M) every decision is the same: the cached path
// is taken and its float additions are replayed from P, giving exactly the P
// SentencePiece reaches at the segment's end. Otherwise (near or exact ties)
// the segment is encoded again from the real P, and that result is used.
// Either way the result is SentencePiece's, whatever the cache holds.
//
// The cache is each thread's own (no lock on the hot path): an open-addressed
// table over two arenas (the segments' bytes, the paths' nodes), emptied but
// kept when it would pass max_bytes, so that a long run reuses its memory.
//
// from_model accepts only what it reproduces: a unigram model that escapes
// whitespace as a prefix, without self-test data, with valid pieces (none
// empty or defined twice, none holding U+2581 past its first character or a
// NUL byte, one <unk>, byte pieces only as byte fallback's 256), and a
// charsmap whose double array it can read, no denormalizer: a model it
// accepts is one SentencePiece loads, so the tokenizer loads SentencePiece
// only when a text or decode needs it. A text whose charsmap lookup would
// leave the array is left to SentencePiece (nullopt). Identity with
// SentencePiece: fuzz_segment_unigram and the `identity:` test.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "charsmap.h"
#include "embedpe/tokenizer.h"
#include "mapped_block.h"
#include "protobuf_fields.h"

namespace embedpe {

class SegmentUnigram {
 public:
  // Each thread's cache budget, in the bytes it holds; a stream of fresh text keeps the peak RSS
  // a few MiB above one line's (cli: Stream).
  static constexpr std::size_t kMaxBytes = std::size_t(2) << 20;
  static constexpr std::size_t kMaxSegmentBytes = 128;

  // The serialized model must outlive the result (pieces are views into it).
  static std::optional<SegmentUnigram> from_model(std::string_view serialized, std::string* why_not = nullptr,
                                                  std::size_t max_bytes = kMaxBytes);
  SegmentUnigram(SegmentUnigram&&) noexcept;
  SegmentUnigram& operator=(SegmentUnigram&&) noexcept;
  ~SegmentUnigram();

  // SentencePiece's encoding of `text` (ids and, with Pieces::keep, pieces);
  // nullopt for a text left to SentencePiece.
  std::optional<Encoding> encode(std::string_view text, Pieces pieces = Pieces::keep) const;

  // SentencePiece's normalized text (tests compare it); false: left to SentencePiece.
  bool normalize(std::string_view text, std::string& out) const;

  // What SentencePieceProcessor says of the same model: GetPieceSize,
  // IdToPiece, PieceToId (reserved pieces first), and unk_id .. pad_id (-1
  // where the model has none), so that the tokenizer need not load it.
  std::size_t size() const { return texts_.size(); }
  std::string_view piece(int id) const { return texts_[static_cast<std::size_t>(id)]; }
  int piece_to_id(std::string_view text) const;
  using SpecialIds = model_proto::SpecialIds;
  const SpecialIds& special_ids() const { return special_; }

  // How segments were encoded so far (tests and the fuzzer count them).
  struct Counts {
    std::uint64_t segments = 0;  // all segments encoded
    std::uint64_t replayed = 0;  // a cached path taken under P != 0
    std::uint64_t reruns = 0;    // a cached path refused: encoded again from P
  };
  Counts counts() const;

 private:
  SegmentUnigram();
  struct Node {
    std::int32_t id;       // the piece, or the unknown piece for an <unk> node
    std::uint32_t length;  // bytes of the normalized text
  };
  struct Path {
    std::vector<Node> nodes;
    double margin = 0;     // m0
    double magnitude = 0;  // M
  };
  struct Shared;
  struct Cache;
  Cache& thread_cache() const;

  // EncodeOptimized on one segment from the float score p; returns the end score.
  float viterbi(std::string_view segment, float p, Path& path) const;
  // The score after the nodes' additions from p, as SentencePiece adds them.
  float replay(const Node* nodes, std::size_t count, float p) const;
  void emit(const Node* nodes, std::size_t count, std::string_view segment, Encoding& out, bool& prev_unknown,
            Pieces pieces) const;
  // from_model's steps, each a reason it does not reproduce the model, or nullptr.
  const char* read_proto(std::string_view serialized, std::string_view (&names)[4]);
  const char* check_pieces();
  const char* build_table(std::string_view serialized);
  // NormalizePrefix: the normalized form of input's first unit and the bytes
  // it takes; false if the charsmap would be read out of bounds.
  bool normalize_prefix(std::string_view input, std::string_view& out, std::size_t& consumed) const;
  void find_plain_ascii();
  int find(std::string_view bytes) const;  // -1: not a prefix of any piece; -2: a prefix only

  struct PieceInfo {
    float score = 0;
    std::uint8_t type = 1;
  };
  std::vector<PieceInfo> pieces_;
  std::vector<std::string_view> texts_;
  std::vector<std::pair<std::string_view, int>> reserved_;  // sorted by text
  SpecialIds special_;
  // Every piece and every prefix of one (normal, user-defined, unused): open
  // addressing of (hash, id or -2 for a prefix only, offset, length).
  struct Slot {
    std::uint32_t tag;     // the hash's high half, | 1; 0: empty
    std::uint32_t offset;  // of the bytes in the serialized model
    std::uint32_t size;
    std::int32_t id;       // the piece, or -2 for a prefix only
  };
  const char* base_ = nullptr;  // the serialized model
  // Every slot is touched by the inserts, so the block has huge pages at any
  // size: 2 MiB, T5's table, is one fault instead of 512.
  MappedBlock slot_block_;
  Slot* slots_ = nullptr;  // zero pages: all empty
  std::uint64_t slot_mask_ = 0;
  std::size_t max_piece_bytes_ = 0;
  // User-defined symbols, longest prefix match on the raw text.
  std::vector<std::string_view> user_defined_;
  std::size_t max_user_defined_bytes_ = 0;

  // Normalizer.
  std::optional<Charsmap> charsmap_;  // views into the serialized model
  // ASCII bytes that no longer charsmap key or user-defined symbol starts
  // with: normalize_prefix would give ascii_form_[c] for them, one byte taken.
  bool ascii_plain_[128] = {};
  std::string_view ascii_form_[128];
  bool add_dummy_prefix_ = true;
  bool remove_extra_whitespaces_ = true;

  float unk_score_ = 0;
  float max_score_ = 0;
  int unk_id_ = -1;
  bool byte_fallback_ = false;
  std::int32_t byte_ids_[256] = {};

  std::uint64_t cache_owner_ = 0;  // which thread caches are this model's
  std::unique_ptr<Shared> shared_;
};

}  // namespace embedpe
