#include "charsmap.h"

#include <vector>

#include "utf8.h"

namespace embedpe {

std::optional<Charsmap> Charsmap::parse(std::string_view blob, std::string* why) {
  const auto no = [&](const char* reason) -> std::optional<Charsmap> {
    if (why) *why = reason;
    return std::nullopt;
  };
  if (blob.size() < 4) return no("it is shorter than its 4-byte trie size");
  std::uint32_t trie_bytes = 0;
  std::memcpy(&trie_bytes, blob.data(), 4);  // little-endian, as SentencePiece writes it on x86
  if (trie_bytes == 0 || trie_bytes % 4 != 0) return no("its trie size is 0 or not a multiple of 4");
  if (trie_bytes >= blob.size() - 4) return no("its trie size leaves no room for the normalized strings");
  Charsmap map;
  map.units_ = blob.data() + 4;
  map.size_ = trie_bytes / 4;
  map.strings_ = blob.substr(4 + trie_bytes);
  return map;
}

bool Charsmap::has_longer_key(std::string_view key) const {
  std::uint32_t u = 0;
  if (!unit(0, u)) return false;
  std::size_t node = offset(u);
  for (char k : key) {
    const auto c = static_cast<unsigned char>(k);
    node ^= c;
    if (!unit(node, u) || (u & ((1U << 31) | 0xFF)) != c) return false;
    node ^= offset(u);
  }
  for (std::uint32_t next = 1; next < 256; ++next) {
    if (unit(node ^ next, u) && (u & ((1U << 31) | 0xFF)) == next) return true;
  }
  return false;
}

std::optional<std::string_view> Charsmap::string_at(std::uint32_t value) const {
  if (value >= strings_.size()) return std::nullopt;
  const std::size_t end = strings_.find('\0', value);
  if (end == std::string_view::npos) return std::nullopt;
  return strings_.substr(value, end - value);
}

bool Charsmap::check_reachable(std::string* why) const {
  const auto no = [&](const std::string& reason) {
    if (why) *why = reason;
    return false;
  };
  if (utf8::find_invalid(strings_)) return no("its normalized strings are not valid UTF-8");
  std::uint32_t u = 0;
  if (!unit(0, u)) return no("its trie is empty");
  // Darts-clone shares suffixes, so nodes are reached many times: each is walked once.
  std::vector<bool> seen(size_, false);
  std::vector<std::size_t> todo{offset(u)};
  while (!todo.empty()) {
    const std::size_t node = todo.back();
    todo.pop_back();
    if ((node | 0xFF) >= size_) return no("its trie points outside its array");
    if (seen[node]) continue;
    seen[node] = true;
    for (std::uint32_t c = 1; c < 256; ++c) {
      unit(node ^ c, u);
      if ((u & ((1U << 31) | 0xFF)) != c) continue;
      const std::size_t child = node ^ c ^ offset(u);
      if ((child | 0xFF) >= size_) return no("its trie points outside its array");
      if ((u >> 8) & 1) {
        std::uint32_t leaf = 0;
        unit(child, leaf);
        const std::uint32_t value = leaf & ((1U << 31) - 1);
        if (!string_at(value)) return no("its trie points outside its normalized strings (or one has no NUL)");
        if ((static_cast<unsigned char>(strings_[value]) & 0xC0) == 0x80) {
          return no("its trie points inside a character of its normalized strings");
        }
      }
      todo.push_back(child);
    }
  }
  return true;
}

}  // namespace embedpe
