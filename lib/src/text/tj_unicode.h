// Private: the Unicode questions tokenizer.json's components ask, answered by
// ICU as Rust's char methods answer them (HF tokenizers is written in Rust):
// char::is_whitespace (White_Space), char::is_numeric (N*), is_punctuation
// (P*), the regex crate's \w, char::to_lowercase, and NFC/NFD/NFKC/NFKD.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace embedpe::tj {

// The code point at text[i] (valid UTF-8), and i moved past it.
char32_t next_char(std::string_view text, std::size_t& i);
void append_utf8(std::string& out, char32_t c);
// text = prefix + text (std::string::insert(0, ...) trips GCC 12's -Wstringop-overflow at -O3).
void prepend(std::string& text, std::string_view prefix);

bool is_whitespace(char32_t c);   // White_Space
bool is_numeric(char32_t c);      // Nd, Nl, No
// HF's BertNormalizer, BertPreTokenizer and Punctuation ask the unicode_categories crate 0.1.1,
// whose tables are of an old Unicode version (tj_unicode_categories.cpp, written from them):
bool is_punctuation(char32_t c);  // Pc, Pd, Ps, Pe, Pi, Pf, Po there, or ASCII punctuation
bool is_word(char32_t c);         // the regex crate's \w: Alphabetic, M*, Nd, Pc, Join_Control
bool is_mark(char32_t c);         // M* (unicode-normalization's is_combining_mark)
bool is_mark_nonspacing(char32_t c);  // Mn there
bool is_other(char32_t c);        // Cc, Cf, Co there (not Cn)
// The crate's own tables (tj_unicode_categories.cpp).
bool crate_is_mark_nonspacing(char32_t c);
bool crate_is_punctuation(char32_t c);
bool crate_is_other(char32_t c);

// The end of the extended grapheme cluster that starts at text[i] (valid
// UTF-8, i < size), as unicode-segmentation's graphemes(true) splits it
// (UAX #29's rules GB3-GB13 on ICU's Grapheme_Cluster_Break and
// Extended_Pictographic; ICU 72 has Unicode 15.0, which has no GB9c).
std::size_t grapheme_end(std::string_view text, std::size_t i);

// char::to_lowercase of each character, concatenated.
std::string lowercase(std::string_view text);

enum class NormalForm { nfc, nfd, nfkc, nfkd };
std::string normalize(std::string_view text, NormalForm form);

}  // namespace embedpe::tj
