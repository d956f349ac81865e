// Variants of a SentencePiece model for the segment-cache checks
// (fuzz_segment_cache, tests/test_segment_cache.cpp): the model's own bytes
// with fields rewritten or appended. Protobuf merges an appended singular
// message field into the first, and appends to a repeated one.
#pragma once

#include <string>
#include <string_view>

#include "protobuf_fields.h"

namespace embedpe::variants {

// A length-delimited field.
inline std::string field(std::uint32_t number, std::string_view payload) {
  std::string out;
  protobuf::append(out, {.number = number, .wire_type = protobuf::kLengthDelimited, .bytes = payload});
  return out;
}

// One more piece of `type` (4: USER_DEFINED, 5: UNUSED).
inline std::string with_piece(const std::string& model, std::string_view piece, std::uint64_t type) {
  std::string p = field(1, piece);
  protobuf::append(p, {.number = 3, .wire_type = protobuf::kVarint, .value = type});
  return model + field(1, p);
}

// byte_fallback off; SentencePiece then refuses BYTE pieces, so they become
// NORMAL ones ("<0x41>" is only ever matched as text).
inline std::string without_byte_fallback(std::string_view model) {
  std::string out;
  for (const auto& f : protobuf::fields(model)) {
    if (f.number != 1 || f.wire_type != protobuf::kLengthDelimited) {
      protobuf::append(out, f);
      continue;
    }
    std::string piece;
    for (auto p : protobuf::fields(f.bytes)) {
      if (p.number == 3 && p.wire_type == protobuf::kVarint && p.value == 6) p.value = 1;
      protobuf::append(piece, p);
    }
    out += field(1, piece);
  }
  std::string trainer;
  protobuf::append(trainer, {.number = 35, .wire_type = protobuf::kVarint, .value = 0});
  return out + field(2, trainer);
}

}  // namespace embedpe::variants
