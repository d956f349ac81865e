// Variants of a SentencePiece model for the segment-cache checks
// (fuzz_segment_cache, tests/test_segment_cache.cpp): the model's own bytes
// with fields rewritten or appended. Protobuf merges an appended singular
// message field into the first, and appends to a repeated one.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

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

// The model with each piece (a SentencePiece message) rewritten by
// edit(fields of the piece, out), which appends the new piece's fields to out.
template <class Edit>
std::string with_each_piece(std::string_view model, Edit&& edit) {
  std::string out;
  for (const auto& f : protobuf::fields(model)) {
    if (f.number != 1 || f.wire_type != protobuf::kLengthDelimited) {
      protobuf::append(out, f);
      continue;
    }
    std::string piece;
    edit(protobuf::fields(f.bytes), piece);
    out += field(1, piece);
  }
  return out;
}

// byte_fallback off; SentencePiece then refuses BYTE pieces, so they become
// NORMAL ones ("<0x41>" is only ever matched as text).
inline std::string without_byte_fallback(std::string_view model) {
  std::string out = with_each_piece(model, [](std::vector<protobuf::Field> fields, std::string& piece) {
    for (auto& p : fields) {
      if (p.number == 3 && p.wire_type == protobuf::kVarint && p.value == 6) p.value = 1;
      protobuf::append(piece, p);
    }
  });
  std::string trainer;
  protobuf::append(trainer, {.number = 35, .wire_type = protobuf::kVarint, .value = 0});
  return out + field(2, trainer);
}

// Every piece's score set to `score`: every merge ties, so BPE's order is the
// tie-break alone (the leftmost pair first).
inline std::string with_scores(std::string_view model, float score) {
  std::uint32_t bits;
  static_assert(sizeof bits == sizeof score);
  std::memcpy(&bits, &score, sizeof bits);
  return with_each_piece(model, [bits](const std::vector<protobuf::Field>& fields, std::string& piece) {
    for (const auto& p : fields) {
      if (p.number != 2) protobuf::append(piece, p);
    }
    protobuf::append(piece, {.number = 2, .wire_type = protobuf::kFixed32, .value = bits});
  });
}

}  // namespace embedpe::variants
