#include "tj_unicode.h"

#include <initializer_list>

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include "embedpe/error.h"
#include "utf8.h"

namespace embedpe::tj {

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
}  // namespace

bool is_whitespace(char32_t c) { return u_isUWhiteSpace(static_cast<UChar32>(c)); }
bool is_numeric(char32_t c) { return (mask(c) & (U_GC_ND_MASK | U_GC_NL_MASK | U_GC_NO_MASK)) != 0; }
bool is_punctuation(char32_t c) {
  if (c < 0x80) return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E);
  return crate_is_punctuation(c);
}
bool is_word(char32_t c) {
  if (c < 0x80) return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  const auto u = static_cast<UChar32>(c);
  return u_hasBinaryProperty(u, UCHAR_ALPHABETIC) || (mask(c) & (U_GC_M_MASK | U_GC_ND_MASK | U_GC_PC_MASK)) != 0 ||
         u_hasBinaryProperty(u, UCHAR_JOIN_CONTROL);
}
bool is_mark(char32_t c) { return (mask(c) & U_GC_M_MASK) != 0; }
bool is_mark_nonspacing(char32_t c) { return crate_is_mark_nonspacing(c); }
// The unicode_categories crate's is_other, which BertNormalizer calls, has no
// table for Cn: unassigned code points and noncharacters are not "other".
bool is_other(char32_t c) { return crate_is_other(c); }

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
      append_utf8(out, static_cast<char32_t>(u_tolower(static_cast<UChar32>(c))));
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
  const icu::UnicodeString in = icu::UnicodeString::fromUTF8(icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
  if (n->isNormalized(in, status) && U_SUCCESS(status)) return std::string(text);
  status = U_ZERO_ERROR;
  const icu::UnicodeString out = n->normalize(in, status);
  if (U_FAILURE(status)) throw Error("ICU could not normalize a text");
  std::string result;
  out.toUTF8String(result);
  return result;
}

}  // namespace embedpe::tj
