// Private: a tokenizer.json regular expression (Split's and Replace's patterns),
// compiled and searched as HF tokenizers 0.22.2 does it: Oniguruma, default
// syntax (ONIG_SYNTAX_ONIGURUMA), no options, UTF-8. HF's onig crate bundles
// Oniguruma 6.9.10 (Unicode 16.0); embedpe links Debian's 6.9.8 (Unicode 14.0)
// and compiles the pattern with its Unicode classes spelled out as Unicode
// 16.0's code point ranges (rewrite_unicode_classes, below). find_all reproduces the
// onig crate's FindMatches: successive leftmost matches, the search resuming
// at the end of the last one, and an empty match right where the last match
// ended skipped by one character.
//
//   embedpe::tj::Regex re("\\p{L}+", "pre_tokenizer.pattern.Regex");
//   std::vector<embedpe::tj::Regex::Match> m;
//   re.find_all("ab cd", m);   // {0,2}, {3,5}
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tj_regex_base.h"

namespace embedpe::tj {

struct FastSplitter;

class Regex {
 public:
  using Match = RegexMatch;  // byte offsets into the text
  // UsageError naming `field` when Oniguruma does not compile `pattern`.
  Regex(std::string_view pattern, const std::string& field);
  // A pattern matching `literal` itself (HF: regex::escape, then Oniguruma).
  static Regex literal(std::string_view literal, const std::string& field);
  Regex(Regex&&) noexcept;
  Regex& operator=(Regex&&) noexcept;
  ~Regex();

  // Replaces `out` with every match in `text` (valid UTF-8). Thread-safe.
  // A pattern tj_regex_fast knows goes through its hand-written splitter.
  void find_all(std::string_view text, std::vector<Match>& out) const;
  // Replace's normalizer and decoder (normalizers/replace.rs): each match of text becomes
  // `content`. An empty text is left as it is: HF's find_matches has no match in "" even for a
  // pattern that matches the empty string (utils/onig.rs).
  // With `lead` (the first bytes of text aligned with original offset 0, see tj::Piece::lead):
  // made the result's, as NormalizedString::replace aligns it (the text before a match keeps its
  // alignments; `content` takes the alignment of the match's last byte, (0, 0) after an empty
  // match at 0).
  void replace_all(std::string& text, std::string_view content, std::uint32_t* lead = nullptr) const;
  // Oniguruma alone, never a fast path: what the fuzz target and tests compare with.
  void find_all_oniguruma(std::string_view text, std::vector<Match>& out) const;
  const std::string& pattern() const { return pattern_; }
  // What Oniguruma compiled: the pattern with Unicode 16.0's classes (rewrite_unicode_classes).
  const std::string& compiled_pattern() const { return compiled_.empty() ? pattern_ : compiled_; }
  // The hand-written splitter standing in for Oniguruma, if the pattern is one we know ("gpt2", ...), else "".
  const char* fast_path() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  std::string pattern_;
  std::string compiled_;  // empty: pattern_ itself
  const FastSplitter* fast_ = nullptr;
};

// `pattern` (Oniguruma syntax) with each Unicode class construct that depends on the Unicode
// version written as an explicit class of Unicode 16.0's code point ranges ("[\x{41}-\x{5A}...]",
// valid in and out of a bracket class): \p{X}, \P{X}, \p{^X} for the general categories (short
// and long names) and Upper(case), Digit, Cntrl, Graph, Print, Assigned; \d \D; the POSIX
// brackets [:cntrl:] [:digit:] [:graph:] [:print:] [:upper:] (and [:^..:]). Each checked against
// Oniguruma 6.9.8 on Unicode 14.0's characters (test_tj_regex.cpp). Left as they are, so answered
// from Oniguruma 6.9.8's Unicode 14.0: \s \S \h \H [:space:] [:blank:] [:xdigit:] [:ascii:]
// (the same in every version); \w \W, Word, Alpha(betic), Alnum, Lower(case) and their POSIX
// brackets, [:punct:] (Oniguruma's own definitions, not followed yet); scripts, blocks and other
// properties; \b \B \X; any construct in a scope where an option other than m is on ((?i) folds a
// class's case, (?W) (?D) make \w \d ASCII); a construct next to a '-' in a class (a range's end,
// refused by Oniguruma). A pattern the rewriter does not follow is returned whole, unchanged: one
// with \c, \C- or \M- escapes, (?x), a POSIX bracket it does not know, an option group it cannot read.
std::string rewrite_unicode_classes(std::string_view pattern);
// Unicode 16.0's code points (closed ranges) of the property `name` (as \p{name} spells it), if
// the rewriter knows it.
std::optional<std::vector<std::pair<char32_t, char32_t>>> unicode16_property(std::string_view name);

}  // namespace embedpe::tj
