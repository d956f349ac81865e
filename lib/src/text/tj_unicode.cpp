#include "tj_unicode.h"

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
  return (mask(c) & U_GC_P_MASK) != 0;
}
bool is_word(char32_t c) {
  if (c < 0x80) return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  const auto u = static_cast<UChar32>(c);
  return u_hasBinaryProperty(u, UCHAR_ALPHABETIC) || (mask(c) & (U_GC_M_MASK | U_GC_ND_MASK | U_GC_PC_MASK)) != 0 ||
         u_hasBinaryProperty(u, UCHAR_JOIN_CONTROL);
}
bool is_mark(char32_t c) { return (mask(c) & U_GC_M_MASK) != 0; }
bool is_mark_nonspacing(char32_t c) { return (mask(c) & U_GC_MN_MASK) != 0; }
// The unicode_categories crate's is_other, which BertNormalizer calls, has no
// table for Cn: unassigned code points and noncharacters are not "other".
bool is_other(char32_t c) { return (mask(c) & (U_GC_CC_MASK | U_GC_CF_MASK | U_GC_CO_MASK | U_GC_CS_MASK)) != 0; }

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
