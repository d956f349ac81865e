// Private: Python str methods and the few Unicode steps the HF slow classes use
// (hf_tokenizer.h), as CPython and transformers v4.44.2 compute them; ICU for NFKD,
// lowercasing, isdigit and categories.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace embedpe::detail::hf {

inline constexpr std::string_view kUnderline = "\xE2\x96\x81";  // U+2581

// str.isspace(): bidirectional class WS, B or S, or category Zs.
bool py_space(char32_t c);
std::vector<char32_t> chars(std::string_view s);
std::string utf8(const std::vector<char32_t>& cs, std::size_t from = 0, std::size_t to = std::string::npos);
std::string py_lstrip(std::string_view s);
std::string py_rstrip(std::string_view s);
std::string py_strip(std::string_view s);
// " ".join(s.split())
std::string py_join_split(std::string_view s);
// str.replace(from, to)
std::string replace_all(std::string_view s, std::string_view from, std::string_view to);
// str.lower()
std::string icu_lower(std::string_view s);
// What re.sub(r"(.+?)", lambda m: m.group(1).lower(), text) does: each character
// (but a newline, which "." does not match) lowered on its own.
std::string lower_each_char(std::string_view s);
// unicodedata.normalize("NFKD") without the combining characters (keep_accents=False).
std::string nfkd_without_combining(std::string_view s);
// str.isdigit()
bool py_isdigit(char32_t c);
// deberta_v2's _is_punctuation: non-letter/number ASCII, or a Unicode category P*.
bool is_punctuation(char32_t c);
// SPMTokenizer._run_split_on_punc: each punctuation character a word, the runs between them words
// (spaces kept inside them).
std::vector<std::string> run_split_on_punc(std::string_view text);

}  // namespace embedpe::detail::hf
