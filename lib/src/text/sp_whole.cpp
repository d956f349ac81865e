// SentencePiece itself, each text whole (sp_encoders.h): models the segment encoders cannot
// reproduce (another normalizer, word and char models, a model they cannot prove).
#include "sp_encoders.h"

namespace embedpe::detail {

Encoding WholeSentencePiece::encode(std::string_view text, Pieces pieces) const {
  Encoding e = encode_whole(*sp_, text);
  if (pieces == Pieces::drop) e.pieces.clear();
  return e;
}

std::string_view WholeSentencePiece::id_to_piece(int id) const { return sp_->IdToPiece(id); }

int WholeSentencePiece::piece_to_id(std::string_view piece) const { return sp_->PieceToId(piece); }

std::string WholeSentencePiece::decode(const std::vector<int>& ids, bool) const { return decode_with(*sp_, ids); }

}  // namespace embedpe::detail
