// Private: the Unicode questions tokenizer.json's components ask, answered as
// HF tokenizers (Rust) answers them, each from the Unicode version HF's code
// has: char::is_whitespace (White_Space), char::is_numeric (N*) and
// char::to_lowercase from Rust's std (Unicode 17.0, tj_ucd.h), the regex
// crate's \w (16.0, tj_ucd.h); is_punctuation, is_other, is_mark_nonspacing
// (the unicode_categories crate, 8.0), is_mark and NFC/NFD/NFKC/NFKD
// (unicode-normalization-alignments, 9.0) from ICU 72 filtered by age.
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
bool is_punctuation(char32_t c);  // Pc, Pd, Ps, Pe, Pi, Pf, Po, or ASCII punctuation
bool is_word(char32_t c);         // the regex crate's \w: Alphabetic, M*, Nd, Pc, Join_Control
bool is_mark(char32_t c);         // M* (unicode-normalization's is_combining_mark)
bool is_mark_nonspacing(char32_t c);  // Mn
bool is_other(char32_t c);        // Cc, Cf, Cs, Co (not Cn: see the .cpp)

// The Unicode version that assigned c, major number, ICU's (0: unassigned in Unicode 15.0; tests).
unsigned unicode_age(char32_t c);

// The general category groups of c, Unicode 16.0's (Oniguruma 6.9.10's), one bit each.
enum CategoryGroup : unsigned { kLetter = 1, kNumber = 2, kPunctuation = 4, kSymbol = 8, kMark = 16 };
unsigned category_groups(char32_t c);

// The end of the extended grapheme cluster that starts at text[i] (valid
// UTF-8, i < size), as unicode-segmentation's graphemes(true) splits it
// (UAX #29's rules GB3-GB13 on ICU's Grapheme_Cluster_Break and
// Extended_Pictographic; ICU 72 has Unicode 15.0, which has no GB9c; HF's
// unicode-segmentation 1.12 has 16.0, but the one caller, Precompiled, looks
// whole clusters up only when shorter than 6 bytes, which no GB9c cluster is).
std::size_t grapheme_end(std::string_view text, std::size_t i);

// char::to_lowercase of each character, concatenated.
std::string lowercase(std::string_view text);

enum class NormalForm { nfc, nfd, nfkc, nfkd };
std::string normalize(std::string_view text, NormalForm form);

}  // namespace embedpe::tj
