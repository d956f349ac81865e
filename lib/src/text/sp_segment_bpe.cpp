// A SentencePiece BPE model by segments (sp_encoders.h): SegmentEncoder's cache and
// SegmentBpe (segment_cache.h, segment_bpe.h), SentencePiece without the dummy prefix for
// what they leave to it.
#include "sp_encoders.h"

#include "embedpe/error.h"

namespace embedpe::detail {

SegmentBpeEncoder::SegmentBpeEncoder(OwnedModel owned, std::string_view serialized, std::string source,
                                     std::unique_ptr<SegmentEncoder> segments,
                                     std::unique_ptr<sentencepiece::SentencePieceProcessor> sp)
    : SentencePieceEncoder(std::move(owned), serialized, std::move(source)),
      segments_(std::move(segments)),
      sp_(std::move(sp)) {}

const sentencepiece::SentencePieceProcessor& SegmentBpeEncoder::processor() const {
  return sp_ ? *sp_ : lazy(/*without_dummy_prefix=*/true);
}

Encoding SegmentBpeEncoder::encode(std::string_view text, Pieces pieces) const {
  Encoding e = segments_->encode(
      text, [this](std::string_view segment) { return encode_whole(processor(), segment); }, pieces);
  if (pieces == Pieces::drop) e.pieces.clear();
  return e;
}

std::string_view SegmentBpeEncoder::id_to_piece(int id) const {
  if (const SegmentBpe* bpe = sp_ ? nullptr : segments_->bpe()) return bpe->piece(id);
  return sp_->IdToPiece(id);
}

int SegmentBpeEncoder::piece_to_id(std::string_view piece) const {
  if (const SegmentBpe* bpe = sp_ ? nullptr : segments_->bpe()) return bpe->piece_to_id(piece);
  return sp_->PieceToId(piece);
}

std::string SegmentBpeEncoder::decode(const std::vector<int>& ids, bool) const {
  std::call_once(decoder_once_, [&] {
    if (!decoder_.LoadFromSerializedProto(serialized_).ok()) throw Error("cannot load the model to decode");
  });
  return decode_with(decoder_, ids);
}

}  // namespace embedpe::detail
