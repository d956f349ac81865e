// Python str methods and Unicode steps of the HF slow classes (hf_text.h).
#include "hf_text.h"

#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include <algorithm>

#include "embedpe/error.h"
#include "utf8.h"

namespace embedpe::detail::hf {

// str.isspace(): bidirectional class WS, B or S, or category Zs.
bool py_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

std::vector<char32_t> chars(std::string_view s) {
  std::vector<char32_t> out;
  for (std::size_t i = 0; i < s.size();) out.push_back(utf8::next(s, i));
  return out;
}

std::string utf8(const std::vector<char32_t>& cs, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < std::min(to, cs.size()); ++i) utf8::append(out, cs[i]);
  return out;
}

std::string py_lstrip(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t j = i;
    if (!py_space(utf8::next(s, j))) break;
    i = j;
  }
  return std::string(s.substr(i));
}

std::string py_rstrip(std::string_view s) {
  auto cs = chars(s);
  std::size_t n = cs.size();
  while (n > 0 && py_space(cs[n - 1])) --n;
  return utf8(cs, 0, n);
}

std::string py_strip(std::string_view s) { return py_rstrip(py_lstrip(s)); }

// " ".join(s.split())
std::string py_join_split(std::string_view s) {
  std::string out, word;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t start = i;
    const char32_t c = utf8::next(s, i);
    if (py_space(c)) {
      if (!word.empty()) {
        if (!out.empty()) out += ' ';
        out += word;
        word.clear();
      }
    } else {
      word.append(s.substr(start, i - start));
    }
  }
  if (!word.empty()) {
    if (!out.empty()) out += ' ';
    out += word;
  }
  return out;
}

// str.replace(from, to)
std::string replace_all(std::string_view s, std::string_view from, std::string_view to) {
  std::string out;
  std::size_t i = 0;
  for (std::size_t p = s.find(from); p != std::string_view::npos; p = s.find(from, i)) {
    out.append(s.substr(i, p - i));
    out.append(to);
    i = p + from.size();
  }
  out.append(s.substr(i));
  return out;
}

std::string icu_lower(std::string_view s) {
  icu::UnicodeString u = icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), static_cast<int32_t>(s.size())));
  u.toLower(icu::Locale::getRoot());
  std::string out;
  u.toUTF8String(out);
  return out;
}

// What re.sub(r"(.+?)", lambda m: m.group(1).lower(), text) does: each character
// (but a newline, which "." does not match) lowered on its own.
std::string lower_each_char(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t start = i;
    const char32_t c = utf8::next(s, i);
    if (c == '\n') {
      out += '\n';
    } else {
      out += icu_lower(s.substr(start, i - start));
    }
  }
  return out;
}

std::string nfkd_without_combining(std::string_view s) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfkd = icu::Normalizer2::getNFKDInstance(status);
  if (U_FAILURE(status)) throw Error("ICU has no NFKD normalizer");
  icu::UnicodeString u = icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), static_cast<int32_t>(s.size())));
  icu::UnicodeString d = nfkd->normalize(u, status);
  if (U_FAILURE(status)) throw Error("ICU could not normalize a text");
  std::string decomposed;
  d.toUTF8String(decomposed);
  std::string out;
  for (std::size_t i = 0; i < decomposed.size();) {
    const char32_t c = utf8::next(decomposed, i);
    if (u_getCombiningClass(static_cast<UChar32>(c)) == 0) utf8::append(out, c);
  }
  return out;
}

bool py_isdigit(char32_t c) {
  const int type = u_getIntPropertyValue(static_cast<UChar32>(c), UCHAR_NUMERIC_TYPE);
  return type == U_NT_DECIMAL || type == U_NT_DIGIT;
}

// deberta_v2's _is_punctuation: non-letter/number ASCII, or a Unicode category P*.
bool is_punctuation(char32_t c) {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126) ||
         u_ispunct(static_cast<UChar32>(c));
}

// SPMTokenizer._run_split_on_punc: each punctuation character a word, the runs between them words
// (spaces kept inside them).
std::vector<std::string> run_split_on_punc(std::string_view text) {
  std::vector<std::string> output;
  bool start_new_word = true;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t from = i;
    const char32_t c = utf8::next(text, i);
    if (is_punctuation(c)) {
      output.emplace_back(text.substr(from, i - from));
      start_new_word = true;
    } else {
      if (start_new_word) output.emplace_back();
      start_new_word = false;
      output.back() += text.substr(from, i - from);
    }
  }
  return output;
}

}  // namespace embedpe::detail::hf
