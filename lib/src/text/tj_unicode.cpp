#include "tj_unicode.h"

#include <algorithm>
#include <initializer_list>

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/uniset.h>
#include <unicode/unistr.h>

#include "embedpe/error.h"
#include "tj_ucd.h"
#include "utf8.h"

namespace embedpe::tj {

namespace ucd {

namespace {

// A table of one value per code point, read in two steps: a block index per 256 code points,
// identical blocks stored once.
template <class T>
class TwoStage {
 public:
  explicit TwoStage(const std::vector<T>& full) {
    index_.resize(0x1100);
    std::vector<std::vector<T>> seen;
    for (std::size_t b = 0; b < index_.size(); ++b) {
      const std::vector<T> block(full.begin() + static_cast<std::ptrdiff_t>(b * 256),
                                 full.begin() + static_cast<std::ptrdiff_t>(b * 256 + 256));
      std::size_t k = 0;
      while (k < seen.size() && seen[k] != block) ++k;
      if (k == seen.size()) {
        seen.push_back(block);
        blocks_.insert(blocks_.end(), block.begin(), block.end());
      }
      index_[b] = static_cast<std::uint16_t>(k);
    }
  }
  T of(char32_t c) const { return blocks_[std::size_t(index_[c >> 8]) * 256 + (c & 255)]; }

 private:
  std::vector<std::uint16_t> index_;
  std::vector<T> blocks_;
};

const TwoStage<std::uint8_t>& property_table() {
  static const TwoStage<std::uint8_t> table = [] {
    std::vector<std::uint8_t> full(0x110000, Cn);
    for (std::size_t r = 0; r < kGcRunCount; ++r) {
      const char32_t end = r + 1 < kGcRunCount ? kGcRuns[r + 1].first : 0x110000;
      for (char32_t c = kGcRuns[r].first; c < end; ++c) full[c] = kGcRuns[r].gc;
    }
    const auto flag = [&](const Range* ranges_of, std::size_t count, std::uint8_t bit) {
      for (std::size_t r = 0; r < count; ++r)
        for (char32_t c = ranges_of[r].first; c <= ranges_of[r].last; ++c) full[c] |= bit;
    };
    flag(kWhiteSpace, kWhiteSpaceCount, kWhiteSpaceBit);
    flag(kAlphabetic, kAlphabeticCount, kAlphabeticBit);
    flag(kNumeric17, kNumeric17Count, kNumeric17Bit);
    return TwoStage<std::uint8_t>(full);
  }();
  return table;
}

const TwoStage<std::int32_t>& lowercase_table() {
  static const TwoStage<std::int32_t> table = [] {
    std::vector<std::int32_t> full(0x110000, 0);
    for (std::size_t r = 0; r < kLowerRunCount; ++r) {
      const LowerRun& run = kLowerRuns[r];
      for (char32_t c = run.first; c <= run.last; c += run.stride) full[c] = run.delta;
    }
    return TwoStage<std::int32_t>(full);
  }();
  return table;
}

}  // namespace

std::uint8_t properties(char32_t c) { return c < 0x110000 ? property_table().of(c) : std::uint8_t{Cn}; }

bool is_join_control(char32_t c) {
  for (std::size_t r = 0; r < kJoinControlCount; ++r)
    if (c >= kJoinControl[r].first && c <= kJoinControl[r].last) return true;
  return false;
}

char32_t simple_lowercase(char32_t c) {
  return c < 0x110000 ? static_cast<char32_t>(static_cast<std::int32_t>(c) + lowercase_table().of(c)) : c;
}

RangeSet categories(std::uint32_t mask) {
  RangeSet out;
  for (std::size_t r = 0; r < kGcRunCount; ++r) {
    if (!(mask & (1u << kGcRuns[r].gc))) continue;
    const char32_t last = r + 1 < kGcRunCount ? kGcRuns[r + 1].first - 1 : 0x10FFFF;
    if (!out.empty() && out.back().last + 1 == kGcRuns[r].first) {
      out.back().last = last;
    } else {
      out.push_back({kGcRuns[r].first, last});
    }
  }
  return out;
}

RangeSet ranges(const Range* table, std::size_t count) { return set_union(RangeSet(table, table + count), {}); }

RangeSet set_union(const RangeSet& a, const RangeSet& b) {
  RangeSet all(a);
  all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end(), [](const Range& x, const Range& y) { return x.first < y.first; });
  RangeSet out;
  for (const Range& r : all) {
    if (!out.empty() && r.first <= out.back().last + 1) {
      out.back().last = std::max(out.back().last, r.last);
    } else {
      out.push_back(r);
    }
  }
  return out;
}

RangeSet complement(const RangeSet& a) {
  RangeSet out;
  char32_t next = 0;
  for (const Range& r : a) {
    if (r.first > next) out.push_back({next, r.first - 1});
    next = r.last + 1;
  }
  if (next <= 0x10FFFF) out.push_back({next, 0x10FFFF});
  return out;
}

}  // namespace ucd

char32_t next_char(std::string_view text, std::size_t& i) {
  std::size_t len = 0;
  const char32_t c = utf8::decode(text, i, len);
  i += len;
  return c == utf8::kInvalid ? U'\uFFFD' : c;
}

void append_utf8(std::string& out, char32_t c) { utf8::append(out, c); }

void prepend(std::string& text, std::string_view prefix) {
  std::string out;
  out.reserve(prefix.size() + text.size());
  out.append(prefix);
  out.append(text);
  text = std::move(out);
}

namespace {
std::uint32_t mask(char32_t c) { return U_MASK(u_charType(static_cast<UChar32>(c))); }

// Some of HF tokenizers' answers come from old Unicode tables compiled into
// its dependencies (Cargo.lock of tokenizers 0.22): the unicode_categories
// crate 0.1.1 has Unicode 8.0's general categories (is_punctuation, is_other,
// is_mark_nonspacing), and unicode-normalization-alignments 0.1.12 has Unicode
// 9.0's normal forms and combining marks. There a character assigned later
// belongs to no category and has no decomposition. ICU 72 has Unicode 15.0:
// its age and category give the old answer, but for the few characters whose
// category changed since (UCD's DerivedAge.txt and the Unicode 9.0-15.0
// release notes; every code point checked against the reference by
// tools/make_unicode_goldens.mjs).
bool assigned_by(char32_t c, std::uint8_t major) {
  UVersionInfo age;
  u_charAge(static_cast<UChar32>(c), age);
  return age[0] != 0 && age[0] <= major;  // 8.0 and 9.0 had no minor versions after them
}
// Po in Unicode 8.0 and 9.0: U+166D CANADIAN SYLLABICS CHI SIGN (So since 12.0),
// U+111C9 SHARADA SANDHI MARK (Mn since 11.0).
}  // namespace

unsigned unicode_age(char32_t c) {
  UVersionInfo age;
  u_charAge(static_cast<UChar32>(c), age);
  return age[0];
}

namespace {

bool was_po(char32_t c) { return c == 0x166D || c == 0x111C9; }
// Mc in Unicode 9.0: U+1CF2, U+1CF3 VEDIC SIGN (ROTATED) ARDHAVISARGA (Lo since 10.0).
bool was_mc(char32_t c) { return c == 0x1CF2 || c == 0x1CF3; }
// Mn in Unicode 8.0: as now, but U+1734 HANUNOO SIGN PAMUDPOD (Mc since 14.0) was, and
// U+1885, U+1886 MONGOLIAN LETTER ALI GALI (THREE) BALUDA (Lo then) and U+A9BD
// JAVANESE CONSONANT SIGN KERET (Mc then) were not.
bool was_mn(char32_t c) {
  if (c == 0x1734) return true;
  if (c == 0x1885 || c == 0x1886 || c == 0xA9BD || was_po(c)) return false;
  return (mask(c) & U_GC_MN_MASK) != 0 && assigned_by(c, 8);
}
}  // namespace

// Rust's std (Unicode 17.0) and the regex crate (16.0): these answer from tj_ucd.h's tables.
bool is_whitespace(char32_t c) { return (ucd::properties(c) & ucd::kWhiteSpaceBit) != 0; }
bool is_numeric(char32_t c) { return (ucd::properties(c) & ucd::kNumeric17Bit) != 0; }
bool is_punctuation(char32_t c) {
  if (c < 0x80) return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E);
  return was_po(c) || ((mask(c) & U_GC_P_MASK) != 0 && assigned_by(c, 8));
}
bool is_word(char32_t c) {
  if (c < 0x80) return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  const std::uint8_t p = ucd::properties(c);
  if (p & ucd::kAlphabeticBit) return true;
  const auto g = static_cast<ucd::Gc>(p & ucd::kGcMask);
  return g == ucd::Mn || g == ucd::Mc || g == ucd::Me || g == ucd::Nd || g == ucd::Pc || ucd::is_join_control(c);
}
bool is_mark(char32_t c) {
  return was_mc(c) || ((mask(c) & U_GC_M_MASK) != 0 && !was_po(c) && assigned_by(c, 9));
}
bool is_mark_nonspacing(char32_t c) { return was_mn(c); }
// The unicode_categories crate's is_other, which BertNormalizer calls, has no
// table for Cn: unassigned code points and noncharacters are not "other".
bool is_other(char32_t c) {
  return (mask(c) & (U_GC_CC_MASK | U_GC_CF_MASK | U_GC_CO_MASK | U_GC_CS_MASK)) != 0 && assigned_by(c, 8);
}

unsigned category_groups(char32_t c) {
  static constexpr std::uint8_t kGroup[ucd::kGcCount] = {
      0,       0,       0,       0,       0,                                                     // C*
      kLetter, kLetter, kLetter, kLetter, kLetter,                                               // L*
      kMark,   kMark,   kMark,                                                                   // M*
      kNumber, kNumber, kNumber,                                                                 // N*
      kPunctuation, kPunctuation, kPunctuation, kPunctuation, kPunctuation, kPunctuation, kPunctuation,  // P*
      kSymbol, kSymbol, kSymbol, kSymbol,                                                        // S*
      0,       0,       0};                                                                      // Z*
  return kGroup[ucd::category(c)];
}

std::size_t grapheme_end(std::string_view text, std::size_t i) {
  const auto gcb = [](char32_t c) {
    return static_cast<UGraphemeClusterBreak>(u_getIntPropertyValue(static_cast<UChar32>(c), UCHAR_GRAPHEME_CLUSTER_BREAK));
  };
  const auto pictographic = [](char32_t c) {
    return c >= 0xA9 && u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_EXTENDED_PICTOGRAPHIC);
  };
  char32_t c = next_char(text, i);
  // Two ASCII characters other than CR LF always break.
  if (i >= text.size() || (c < 0x80 && c != '\r' && static_cast<unsigned char>(text[i]) < 0x80)) return i;
  UGraphemeClusterBreak prev = gcb(c);
  bool pict = pictographic(c);  // ExtPict Extend* ends here (GB11)
  bool zwj_after_pict = false;  // ... followed by this ZWJ
  std::size_t regional = prev == U_GCB_REGIONAL_INDICATOR ? 1 : 0;  // RIs ending here
  while (i < text.size()) {
    std::size_t j = i;
    c = next_char(text, j);
    const UGraphemeClusterBreak cur = gcb(c);
    const auto in = [](UGraphemeClusterBreak b, std::initializer_list<UGraphemeClusterBreak> set) {
      for (UGraphemeClusterBreak s : set) {
        if (b == s) return true;
      }
      return false;
    };
    bool join = false;
    if (prev == U_GCB_CR && cur == U_GCB_LF) {
      join = true;                                                                       // GB3
    } else if (in(prev, {U_GCB_CONTROL, U_GCB_CR, U_GCB_LF}) || in(cur, {U_GCB_CONTROL, U_GCB_CR, U_GCB_LF})) {
      join = false;                                                                      // GB4, GB5
    } else if (prev == U_GCB_L && in(cur, {U_GCB_L, U_GCB_V, U_GCB_LV, U_GCB_LVT})) {
      join = true;                                                                       // GB6
    } else if (in(prev, {U_GCB_LV, U_GCB_V}) && in(cur, {U_GCB_V, U_GCB_T})) {
      join = true;                                                                       // GB7
    } else if (in(prev, {U_GCB_LVT, U_GCB_T}) && cur == U_GCB_T) {
      join = true;                                                                       // GB8
    } else if (in(cur, {U_GCB_EXTEND, U_GCB_ZWJ, U_GCB_SPACING_MARK}) || prev == U_GCB_PREPEND) {
      join = true;                                                                       // GB9, GB9a, GB9b
    } else if (zwj_after_pict && pictographic(c)) {
      join = true;                                                                       // GB11
    } else if (prev == U_GCB_REGIONAL_INDICATOR && cur == U_GCB_REGIONAL_INDICATOR) {
      join = regional % 2 == 1;                                                          // GB12, GB13
    }
    if (!join) break;
    zwj_after_pict = cur == U_GCB_ZWJ && pict;
    pict = pictographic(c) || (cur == U_GCB_EXTEND && pict);
    regional = cur == U_GCB_REGIONAL_INDICATOR ? regional + 1 : 0;
    prev = cur;
    i = j;
  }
  return i;
}

std::string lowercase(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const char32_t c = next_char(text, i);
    if (c < 0x80) {
      out += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    } else if (c == 0x130) {
      out += "i\xCC\x87";  // the one unconditional multi-character lowercase mapping
    } else {
      append_utf8(out, ucd::simple_lowercase(c));
    }
  }
  return out;
}

std::string normalize(std::string_view text, NormalForm form) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* n = nullptr;
  switch (form) {
    case NormalForm::nfc: n = icu::Normalizer2::getNFCInstance(status); break;
    case NormalForm::nfd: n = icu::Normalizer2::getNFDInstance(status); break;
    case NormalForm::nfkc: n = icu::Normalizer2::getNFKCInstance(status); break;
    case NormalForm::nfkd: n = icu::Normalizer2::getNFKDInstance(status); break;
  }
  if (U_FAILURE(status)) throw Error("ICU has no Unicode normalizer");
  // Unicode 9.0's normal forms, as unicode-normalization-alignments has them:
  // ICU's, applied only to the characters assigned by 9.0 (the rest are
  // copied as they are and end a span, as characters the tables do not know).
  static const icu::UnicodeSet unicode9 = [] {
    UErrorCode s = U_ZERO_ERROR;
    icu::UnicodeSet set(icu::UnicodeString("[:age=9.0:]", -1, US_INV), s);
    if (U_FAILURE(s)) throw Error("ICU has no Unicode 9.0 character set");
    set.freeze();
    return set;
  }();
  const icu::FilteredNormalizer2 filtered_normalizer(*n, unicode9);
  const icu::Normalizer2& filtered = filtered_normalizer;
  const icu::UnicodeString in = icu::UnicodeString::fromUTF8(icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
  if (filtered.isNormalized(in, status) && U_SUCCESS(status)) return std::string(text);
  status = U_ZERO_ERROR;
  const icu::UnicodeString out = filtered.normalize(in, status);
  if (U_FAILURE(status)) throw Error("ICU could not normalize a text");
  std::string result;
  out.toUTF8String(result);
  return result;
}

}  // namespace embedpe::tj
