// Private: SentencePiece's BPE encoding of one segment, done here.
//
//   auto bpe = embedpe::SegmentBpe::from_model(serialized);   // at load
//   if (bpe) {
//     std::optional<Encoding> e = bpe->encode("Hello world");  // ' ' as the model escapes it
//   }
//
// The same algorithm as SentencePiece's bpe::Model::Encode (bpe_model.cc,
// v0.1.97): the text is split into characters; every adjacent pair whose
// concatenation is a vocabulary piece is a candidate; the candidate with the
// highest score (the leftmost among equal scores) is merged, and the pairs
// with its neighbours become candidates, until none is left. Each symbol is
// then looked up as SentencePiece's PieceToId does (reserved pieces first:
// control, unknown, byte; then the others; else <unk>), and
// PopulateSentencePieceText's rules apply: an unknown symbol becomes its bytes'
// <0xXX> pieces with byte fallback, and a run of unknown symbols one <unk>
// piece without it.
//
// SegmentEncoder calls it for the segments SegmentRules cuts (valid UTF-8, an
// identity normalizer, so only ' ' changes: to U+2581). It is built only for
// models it reproduces exactly and that SentencePiece's loader accepts, so
// that the tokenizer can leave loading SentencePiece until a text needs it: a
// model with user-defined or UNUSED pieces, a score that is not a number, a
// piece type outside the enum, a piece that is empty or defined twice, other
// than one <unk>, byte pieces that are not the 256 of byte fallback, a
// denormalizer table, or a malformed message gets nullopt, and SentencePiece
// loads it and encodes its segments. Identity with SentencePiece is checked by
// fuzz_segment_cache and the `identity:` test, as the cache is.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "embedpe/tokenizer.h"
#include "protobuf_fields.h"

namespace embedpe {

class SegmentBpe {
 public:
  static std::optional<SegmentBpe> from_model(std::string_view serialized);

  // The encoding of `segment` (not empty, valid UTF-8), as SentencePiece
  // gives it for that text without a dummy prefix; nullopt in the one case
  // left to SentencePiece: a symbol that is a control piece.
  std::optional<Encoding> encode(std::string_view segment) const;

  // What SentencePieceProcessor says of the same model: GetPieceSize,
  // IdToPiece, PieceToId, and unk_id .. pad_id (-1 where the model has none).
  std::size_t size() const { return pieces_.size(); }
  std::string_view piece(int id) const { return pieces_[static_cast<std::size_t>(id)].text; }
  int piece_to_id(std::string_view text) const;
  using SpecialIds = model_proto::SpecialIds;
  const SpecialIds& special_ids() const { return special_; }
  // The model's UNKNOWN piece (special_ids().unk is -1 if unk_piece names another).
  int unknown_id() const { return unk_id_; }

 private:
  struct Piece {
    std::string_view text;  // into the serialized model, which the tokenizer keeps
    float score = 0;
    std::uint8_t type = 1;
  };
  SegmentBpe() = default;
  // Open addressing: a slot holds the high half of the piece's hash and its id.
  struct Index {
    static constexpr std::uint64_t kEmpty = ~std::uint64_t(0);
    std::vector<std::uint64_t> slots;
    std::uint64_t mask = 0;
    // The reserved pieces (control, unknown, byte) or the others; false if
    // one is defined twice.
    bool build(const std::vector<Piece>& pieces, bool reserved);
    int find(const std::vector<Piece>& pieces, std::string_view text) const;
  };
  std::vector<Piece> pieces_;
  Index normal_, reserved_;
  int unk_id_ = 0;
  bool byte_fallback_ = false;
  std::int32_t byte_ids_[256] = {};
  SpecialIds special_;
};

}  // namespace embedpe
