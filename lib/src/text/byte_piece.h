// Private: the pieces <0x00> .. <0xFF> that stand for single bytes, the one
// spelling of them: SentencePiece's byte fallback (ByteToPiece and PieceToByte
// in sentencepiece/src/util.cc), GGUF BYTE tokens, and HF tokenizers'
// byte_fallback and ByteFallback decoder.
#pragma once

#include <string_view>

namespace embedpe::byte_piece {

// The piece for `byte`, "<0xAB>" (upper-case hex, as ByteToPiece writes it).
class Piece {
 public:
  explicit Piece(unsigned char byte)
      : text_{'<', '0', 'x', kHex[byte >> 4], kHex[byte & 15], '>'} {}
  std::string_view view() const { return {text_, sizeof text_}; }
  operator std::string_view() const { return view(); }

 private:
  static constexpr char kHex[] = "0123456789ABCDEF";
  char text_[6];
};

// PieceToByte: the byte `piece` stands for if it is exactly "<0xAB>" as
// ByteToPiece writes it (upper-case hex), else -1.
inline int sentencepiece_byte(std::string_view piece) {
  const auto digit = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1; };
  if (piece.size() != 6 || !piece.starts_with("<0x") || piece[5] != '>') return -1;
  const int hi = digit(piece[3]), lo = digit(piece[4]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

// HF tokenizers' ByteFallback decoder (decoders/byte_fallback.rs): a token of
// six bytes "<0x..>" whose two middle bytes parse as u8::from_str_radix(_, 16),
// which takes either case and a leading '+' ("<0x+A>" is byte 10); else -1.
inline int byte_fallback_byte(std::string_view token) {
  const auto digit = [](char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
  };
  if (token.size() != 6 || !token.starts_with("<0x") || token[5] != '>') return -1;
  if (token[3] == '+') return digit(token[4]);
  const int hi = digit(token[3]), lo = digit(token[4]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

}  // namespace embedpe::byte_piece
