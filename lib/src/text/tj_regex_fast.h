// Private: hand-written splitters standing in for Oniguruma on the standard
// pre-tokenizer patterns of tokenizer.json files, recognised by their exact
// pattern string (after JSON unescaping). Each gives exactly the matches
// Regex::find_all_oniguruma (tj_regex.h) gives on any valid UTF-8 text
// (fuzz_tj_regex_fast checks it). The classes (\p{L}, \p{N}, \s, \p{P},
// \p{S}, \p{M}) are Unicode 16.0's (tj_ucd.h), as HF's Oniguruma 6.9.10
// has them and as Regex compiles them for Debian's Oniguruma 6.9.8
// (rewrite_unicode_classes). Linear in the text.
//
//   if (const tj::FastSplitter* f = tj::fast_splitter(pattern)) f->find_all(text, matches);
//
// Known: "gpt2" (ByteLevel's use_regex pattern), "llama3" (LLaMA-3/3.1/3.2),
// "qwen2" (Qwen2/2.5/3: \p{N} alone), "deepseek_digits", "deepseek_cjk",
// "deepseek" (DeepSeek-V3's three Splits).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "tj_regex_base.h"

namespace embedpe::tj {

struct FastSplitter {
  const char* name;
  std::string_view pattern;
  void (*find_all)(std::string_view text, std::vector<RegexMatch>& out);
};

// The splitter of this exact pattern, or nullptr.
const FastSplitter* fast_splitter(std::string_view pattern);
// Every known splitter (tests, fuzzing).
const std::vector<FastSplitter>& fast_splitters();
// The classes the splitters give c, one bit each (tests).
enum : std::uint8_t { kClassL = 1, kClassN = 2, kClassSpace = 4, kClassP = 8, kClassS = 16, kClassM = 32 };
std::uint8_t splitter_classes(char32_t c);

}  // namespace embedpe::tj
