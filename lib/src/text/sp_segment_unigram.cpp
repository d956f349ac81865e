// A SentencePiece unigram model by segments (sp_encoders.h, segment_unigram.h); the model
// itself, loaded when first needed, for the texts SegmentUnigram leaves and for decode.
#include "sp_encoders.h"

namespace embedpe::detail {

Encoding SegmentUnigramEncoder::encode(std::string_view text, Pieces pieces) const {
  if (std::optional<Encoding> e = unigram_.encode(text, pieces)) return std::move(*e);
  Encoding e = encode_whole(lazy(/*without_dummy_prefix=*/false), text);
  if (pieces == Pieces::drop) e.pieces.clear();
  return e;
}

std::string SegmentUnigramEncoder::decode(const std::vector<int>& ids, bool) const {
  return decode_with(lazy(/*without_dummy_prefix=*/false), ids);
}

}  // namespace embedpe::detail
