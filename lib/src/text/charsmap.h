// Private: SentencePiece's precompiled charsmap, read where both tokenizers
// need it: the slow path's normalizer (segment_unigram.cpp, SentencePiece
// v0.1.97's normalizer.cc) and tokenizer.json's Precompiled normalizer
// (tj_normalizer.cpp, HF's spm_precompiled crate).
//
// The blob: <trie bytes, u32 little-endian><Darts-clone double array of u32
// units><normalized strings, each ending with NUL>. A key of the trie is a
// byte string; its value is the offset of its normalized form in the strings.
//
//   auto map = Charsmap::parse(blob, &why);            // nullopt: why says what is broken
//   map->prefixes(text, [](std::size_t length, std::uint32_t value) { ...; return true; });
//   std::optional<std::string_view> form = map->string_at(value);
//
// Every read is bounded: prefixes() answers false where a unit it needs lies
// outside the array (SentencePiece would read past it, HF would panic), so a
// caller that has not called check_reachable() can still leave such a text
// to another path. check_reachable() walks every node a text can reach once,
// so that a caller can refuse a broken map at load instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace embedpe {

class Charsmap {
 public:
  // The blob split into its array and strings; nullopt (and `why`) when the
  // trie size is 0, not a multiple of 4, or leaves no strings.
  static std::optional<Charsmap> parse(std::string_view blob, std::string* why);

  // Darts-clone's commonPrefixSearch: on_match(bytes, value) for each key
  // that starts `key`, shortest first, until on_match answers false. False
  // when a unit the search needs lies outside the array.
  template <class OnMatch>
  bool prefixes(std::string_view key, OnMatch on_match) const {
    std::uint32_t u = 0;
    if (!unit(0, u)) return false;
    std::size_t node = offset(u);
    for (std::size_t i = 0; i < key.size(); ++i) {
      const auto c = static_cast<unsigned char>(key[i]);
      node ^= c;
      if (!unit(node, u)) return false;
      if ((u & ((1U << 31) | 0xFF)) != c) return true;
      node ^= offset(u);
      if ((u >> 8) & 1) {
        std::uint32_t leaf = 0;
        if (!unit(node, leaf)) return false;
        if (!on_match(i + 1, leaf & ((1U << 31) - 1))) return true;
      }
    }
    return true;
  }

  // Whether `key` is a proper prefix of some key (its node has a child).
  bool has_longer_key(std::string_view key) const;

  // The NUL-terminated string at `value`; nullopt when it starts outside the
  // strings or has no NUL before their end.
  std::optional<std::string_view> string_at(std::uint32_t value) const;

  // Walks every node any text can reach: each one's 255 children must lie in
  // the array (HF reads them all), each leaf's string must exist, be valid
  // UTF-8 and start on a character. False and `why` otherwise.
  bool check_reachable(std::string* why) const;

  std::string_view strings() const { return strings_; }

 private:
  bool unit(std::size_t i, std::uint32_t& u) const {
    if (i >= size_) return false;
    std::memcpy(&u, units_ + 4 * i, 4);
    return true;
  }
  static std::size_t offset(std::uint32_t u) { return (u >> 10) << ((u & (1U << 9)) >> 6); }

  const char* units_ = nullptr;  // unaligned: read with memcpy
  std::size_t size_ = 0;         // units
  std::string_view strings_;
};

}  // namespace embedpe
