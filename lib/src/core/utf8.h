// UTF-8, decoded and encoded in one place, with ICU's U8_NEXT and U8_APPEND.
//
//   std::size_t len = 0;
//   char32_t c = utf8::decode(text, pos, len);   // utf8::kInvalid: not well-formed there
//   utf8::append(out, c);
//
// Well-formed means Unicode's definition (no overlong forms, no surrogates,
// nothing above U+10FFFF, no sequence cut short): what text_input accepts,
// and what SentencePiece's DecodeUTF8 accepts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <unicode/utf8.h>

namespace embedpe::utf8 {

inline constexpr char32_t kInvalid = 0xFFFFFFFF;

// The code point that starts at s[pos] (pos < s.size()), its length in
// `len`. Bytes that do not start a well-formed sequence give kInvalid with
// len 1: a caller that goes on steps over one byte, as SentencePiece does.
inline char32_t decode(std::string_view s, std::size_t pos, std::size_t& len) {
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(s.data());
  std::size_t next = pos;
  UChar32 c = 0;
  U8_NEXT(bytes, next, s.size(), c);
  if (c < 0) {
    len = 1;
    return kInvalid;
  }
  len = next - pos;
  return static_cast<char32_t>(c);
}

// The code point at s[pos] of text known to be well-formed, stepping pos past it.
inline char32_t next(std::string_view s, std::size_t& pos) {
  std::size_t len = 0;
  const char32_t c = decode(s, pos, len);
  pos += len;
  return c;
}

// The length of the well-formed character at the start of `s` (non-empty), or 0.
inline std::size_t valid_length(std::string_view s) {
  std::size_t len = 0;
  return decode(s, 0, len) == kInvalid ? 0 : len;
}

// The byte offset of the first byte that does not start a well-formed sequence.
inline std::optional<std::size_t> find_invalid(std::string_view s) {
  for (std::size_t pos = 0; pos < s.size();) {
    if (static_cast<unsigned char>(s[pos]) < 0x80) {
      ++pos;
      continue;
    }
    std::size_t len = 0;
    if (decode(s, pos, len) == kInvalid) return pos;
    pos += len;
  }
  return std::nullopt;
}

// Appends code point `c` (at most U+10FFFF, not a surrogate) as UTF-8.
inline void append(std::string& out, char32_t c) {
  std::uint8_t buf[U8_MAX_LENGTH];
  std::int32_t n = 0;
  U8_APPEND_UNSAFE(buf, n, static_cast<UChar32>(c));
  out.append(reinterpret_cast<const char*>(buf), static_cast<std::size_t>(n));
}

}  // namespace embedpe::utf8
