#include "tj_regex_fast.h"

#include <cstdint>
#include <map>
#include <string>

#include "tj_unicode.h"

namespace embedpe::tj {

namespace {

using Match = RegexMatch;

constexpr std::uint8_t kL = kClassL, kN = kClassN, kSpace = kClassSpace, kP = kClassP, kS = kClassS, kM = kClassM;

// Each code point's classes: a block index per 256 code points, identical
// blocks shared. HF tokenizers' Oniguruma (6.9.10) has Unicode 16.0's tables;
// so have these (tj_ucd.h: category_groups and is_whitespace).
class Classes {
 public:
  Classes() {
    std::vector<std::uint8_t> full(0x110000, 0);
    for (char32_t c = 0; c < 0x110000; ++c) {
      const unsigned g = category_groups(c);
      full[c] = static_cast<std::uint8_t>(((g & kLetter) ? kL : 0) | ((g & kNumber) ? kN : 0) |
                                          (is_whitespace(c) ? kSpace : 0) | ((g & kPunctuation) ? kP : 0) |
                                          ((g & kSymbol) ? kS : 0) | ((g & kMark) ? kM : 0));
    }
    std::map<std::string, std::uint16_t> seen;
    index_.resize(0x1100);
    for (std::size_t b = 0; b < index_.size(); ++b) {
      std::string block(reinterpret_cast<const char*>(full.data() + b * 256), 256);
      const auto [it, fresh] = seen.emplace(block, static_cast<std::uint16_t>(seen.size()));
      if (fresh) blocks_.insert(blocks_.end(), block.begin(), block.end());
      index_[b] = it->second;
    }
  }
  std::uint8_t of(char32_t c) const {
    return c < 0x110000 ? static_cast<std::uint8_t>(blocks_[std::size_t(index_[c >> 8]) * 256 + (c & 255)]) : 0;
  }

 private:
  std::vector<std::uint16_t> index_;
  std::string blocks_;
};

const Classes& classes() {
  static const Classes c;
  return c;
}

}  // namespace

std::uint8_t splitter_classes(char32_t c) { return classes().of(c); }

namespace {

// A text of valid UTF-8 (a truncated last character reads as U+FFFD).
class Text {
 public:
  explicit Text(std::string_view t)
      : s_(reinterpret_cast<const unsigned char*>(t.data())), n_(t.size()), classes_(classes()) {}
  std::size_t size() const { return n_; }
  unsigned char byte(std::size_t i) const { return s_[i]; }
  // The character at i; `next` is where the one after it starts.
  char32_t at(std::size_t i, std::size_t& next) const {
    const unsigned c = s_[i];
    if (c < 0x80) {
      next = i + 1;
      return c;
    }
    const std::size_t len = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (n_ - i < len) {
      next = n_;
      return 0xFFFD;
    }
    next = i + len;
    if (len == 2) return (c & 0x1Fu) << 6 | (s_[i + 1] & 0x3Fu);
    if (len == 3) return (c & 0x0Fu) << 12 | (s_[i + 1] & 0x3Fu) << 6 | (s_[i + 2] & 0x3Fu);
    return (c & 0x07u) << 18 | (s_[i + 1] & 0x3Fu) << 12 | (s_[i + 2] & 0x3Fu) << 6 | (s_[i + 3] & 0x3Fu);
  }
  std::uint8_t cls(char32_t c) const { return classes_.of(c); }
  // The classes of the character at i (i < size()).
  std::uint8_t cls_at(std::size_t i) const {
    std::size_t next;
    return cls(at(i, next));
  }
  // Where the run of characters accepted by `pred` (of their classes and code point) that starts at i ends.
  template <class Pred>
  std::size_t run(std::size_t i, Pred pred) const {
    while (i < n_) {
      std::size_t next;
      const char32_t c = at(i, next);
      if (!pred(cls(c), c)) break;
      i = next;
    }
    return i;
  }
  std::size_t run_of(std::size_t i, std::uint8_t mask) const {
    return run(i, [mask](std::uint8_t k, char32_t) { return (k & mask) != 0; });
  }
  std::size_t newlines(std::size_t i) const {
    while (i < n_ && (s_[i] == '\r' || s_[i] == '\n')) ++i;
    return i;
  }

 private:
  const unsigned char* s_;
  std::size_t n_;
  const Classes& classes_;
};

// [^\s\p{L}\p{N}]
bool is_other(std::uint8_t k) { return (k & (kSpace | kL | kN)) == 0; }

// At i (a quote): 's|'t|'re|'ve|'m|'ll|'d, with (?i:...) when `fold`
// (Unicode case folding: S, and U+017F LONG S, match s). Its end, or 0.
std::size_t contraction(const Text& t, std::size_t i, bool fold) {
  const auto low = [fold](char32_t c) -> char32_t {
    if (!fold) return c;
    if (c >= 'A' && c <= 'Z') return c + 32;
    return c == 0x17F ? U's' : c;
  };
  if (i + 1 >= t.size()) return 0;
  std::size_t k;
  const char32_t c = low(t.at(i + 1, k));
  if (c == 's' || c == 't' || c == 'm' || c == 'd') return k;
  const char32_t want = c == 'r' || c == 'v' ? U'e' : c == 'l' ? U'l' : 0;
  if (want == 0 || k >= t.size()) return 0;
  std::size_t m;
  return low(t.at(k, m)) == want ? m : 0;
}

// At i (a \s): \s*[\r\n]+ (when `newline_first`), then \s+(?!\S), then \s+. Its end.
std::size_t whitespace(const Text& t, std::size_t i, bool newline_first) {
  std::size_t e = i, last_newline_end = 0, last_start = i;
  while (e < t.size()) {
    std::size_t next;
    const char32_t c = t.at(e, next);
    if (!(t.cls(c) & kSpace)) break;
    if (c == '\r' || c == '\n') last_newline_end = next;
    last_start = e;
    e = next;
  }
  if (newline_first && last_newline_end != 0) return last_newline_end;  // up to the run's last newline
  if (e == t.size()) return e;                                          // (?!\S) holds at the end
  if (last_start > i) return last_start;                                // all but the last space
  return e;
}

// How a splitter's loop goes: at each position the pattern's alternatives in
// order (`at` gives the end of the first that matches, or 0); where none
// matches, Oniguruma's search moves on by one character.
template <class At>
void scan(std::string_view text, std::vector<Match>& out, At at) {
  out.clear();
  const Text t(text);
  std::size_t i = 0;
  while (i < t.size()) {
    std::size_t n0;
    const char32_t c0 = t.at(i, n0);
    const std::size_t e = at(t, i, c0, t.cls(c0), n0);
    if (e == 0) {
      i = n0;
      continue;
    }
    out.push_back({i, e});
    i = e;
  }
}

// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
void gpt2(std::string_view text, std::vector<Match>& out) {
  scan(text, out, [](const Text& t, std::size_t i, char32_t c0, std::uint8_t k0, std::size_t n0) -> std::size_t {
    if (c0 == '\'') {
      if (const std::size_t e = contraction(t, i, false)) return e;
    }
    const std::size_t q = c0 == ' ' && n0 < t.size() ? n0 : i;
    const std::uint8_t kq = q == i ? k0 : t.cls_at(q);
    if (kq & kL) return t.run_of(q, kL);
    if (kq & kN) return t.run_of(q, kN);
    if (is_other(kq)) return t.run(q, [](std::uint8_t k, char32_t) { return is_other(k); });
    if (k0 & kSpace) return whitespace(t, i, false);
    return 0;
  });
}

// (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,D}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
template <int kDigits>
void llama3(std::string_view text, std::vector<Match>& out) {
  scan(text, out, [](const Text& t, std::size_t i, char32_t c0, std::uint8_t k0, std::size_t n0) -> std::size_t {
    if (c0 == '\'') {
      if (const std::size_t e = contraction(t, i, true)) return e;
    }
    if (k0 & kL) return t.run_of(n0, kL);
    if (c0 != '\r' && c0 != '\n' && !(k0 & kN) && n0 < t.size() && (t.cls_at(n0) & kL)) return t.run_of(n0, kL);
    if (k0 & kN) {
      std::size_t e = n0;
      for (int d = 1; d < kDigits && e < t.size(); ++d) {
        std::size_t next;
        if (!(t.cls(t.at(e, next)) & kN)) break;
        e = next;
      }
      return e;
    }
    const std::size_t q = c0 == ' ' && n0 < t.size() ? n0 : i;
    if (is_other(q == i ? k0 : t.cls_at(q)))
      return t.newlines(t.run(q, [](std::uint8_t k, char32_t) { return is_other(k); }));
    if (k0 & kSpace) return whitespace(t, i, true);
    return 0;
  });
}

// \p{N}{1,3}
void deepseek_digits(std::string_view text, std::vector<Match>& out) {
  scan(text, out, [](const Text& t, std::size_t, char32_t, std::uint8_t k0, std::size_t n0) -> std::size_t {
    if (!(k0 & kN)) return 0;
    std::size_t e = n0;
    for (int d = 1; d < 3 && e < t.size(); ++d) {
      std::size_t next;
      if (!(t.cls(t.at(e, next)) & kN)) break;
      e = next;
    }
    return e;
  });
}

bool is_deepseek_cjk(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FA5) || (c >= 0x3040 && c <= 0x309F) || (c >= 0x30A0 && c <= 0x30FF);
}

// [\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+
void deepseek_cjk(std::string_view text, std::vector<Match>& out) {
  scan(text, out, [](const Text& t, std::size_t, char32_t c0, std::uint8_t, std::size_t n0) -> std::size_t {
    if (!is_deepseek_cjk(c0)) return 0;
    return t.run(n0, [](std::uint8_t, char32_t c) { return is_deepseek_cjk(c); });
  });
}

bool is_ascii_punct(char32_t c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
}
bool is_ascii_letter(char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+|
//  ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
void deepseek(std::string_view text, std::vector<Match>& out) {
  scan(text, out, [](const Text& t, std::size_t i, char32_t c0, std::uint8_t k0, std::size_t n0) -> std::size_t {
    if (is_ascii_punct(c0) && n0 < t.size() && is_ascii_letter(t.byte(n0)))
      return t.run(n0, [](std::uint8_t, char32_t c) { return is_ascii_letter(c); });
    if (c0 != '\r' && c0 != '\n' && !(k0 & (kL | kP | kS))) {
      if (n0 < t.size() && (t.cls_at(n0) & (kL | kM))) return t.run_of(n0, kL | kM);
      if (k0 & kM) return n0;
    } else if (k0 & kL) {
      return t.run_of(n0, kL | kM);
    }
    const std::size_t q = c0 == ' ' && n0 < t.size() ? n0 : i;
    if ((q == i ? k0 : t.cls_at(q)) & (kP | kS)) return t.newlines(t.run_of(q, kP | kS));
    if (k0 & kSpace) return whitespace(t, i, true);
    return 0;
  });
}

const std::vector<FastSplitter>& splitters() {
  static const std::vector<FastSplitter> all = {
      {"gpt2", R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)", gpt2},
      {"llama3",
       R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
       llama3<3>},
      {"qwen2",
       R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
       llama3<1>},
      {"deepseek_digits", R"(\p{N}{1,3})", deepseek_digits},
      // The file's \u escapes are characters by the time the pattern is compiled.
      {"deepseek_cjk", "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+", deepseek_cjk},
      {"deepseek",
       "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| "
       "?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
       deepseek},
  };
  return all;
}

}  // namespace

const FastSplitter* fast_splitter(std::string_view pattern) {
  for (const FastSplitter& f : splitters())
    if (f.pattern == pattern) return &f;
  return nullptr;
}

const std::vector<FastSplitter>& fast_splitters() { return splitters(); }

}  // namespace embedpe::tj
