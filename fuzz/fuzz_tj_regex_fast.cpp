// libFuzzer target: each hand-written pre-tokenizer splitter of
// tj_regex_fast (issue 47, item 3) against Oniguruma itself, on arbitrary text.
// The first byte picks the splitter; the rest is the text, its invalid UTF-8
// turned into U+FFFD as a text is valid UTF-8 by the time it reaches a
// pre-tokenizer (check_text; NULs are kept: the splitters need not care).
// Any difference in the matches (begin and end of each) traps. Oniguruma runs
// the pattern as Regex compiles it, with Unicode 16.0's classes spelled out
// (rewrite_unicode_classes), so the two agree on every character.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tj_regex.h"
#include "tj_regex_fast.h"
#include "tj_unicode.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  using embedpe::tj::Regex;
  static const std::vector<Regex> regexes = [] {
    std::vector<Regex> r;
    for (const auto& f : embedpe::tj::fast_splitters()) r.emplace_back(f.pattern, f.name);
    return r;
  }();
  const Regex& regex = regexes[data[0] % regexes.size()];
  if (*regex.fast_path() == '\0') __builtin_trap();  // each pattern must find its splitter
  const std::string_view raw(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string text;
  for (std::size_t i = 0; i < raw.size();) {
    embedpe::tj::append_utf8(text, embedpe::tj::next_char(raw, i));
  }
  std::vector<Regex::Match> fast, onig;
  regex.find_all(text, fast);
  regex.find_all_oniguruma(text, onig);
  if (fast.size() != onig.size()) __builtin_trap();
  for (std::size_t i = 0; i < fast.size(); ++i) {
    if (fast[i].begin != onig[i].begin || fast[i].end != onig[i].end) __builtin_trap();
  }
  return 0;
}
