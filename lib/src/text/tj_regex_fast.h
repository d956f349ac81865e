// Private: hand-written splitters standing in for Oniguruma on the standard
// pre-tokenizer patterns of tokenizer.json files, recognised by their exact
// pattern string (after JSON unescaping). Each gives exactly the matches
// Regex::find_all_oniguruma (tj_regex.h) gives on any valid UTF-8 text whose
// characters Oniguruma 6.9.8 classes as ICU does (fuzz_tj_regex_fast checks
// it). The classes (\p{L}, \p{N}, \s, \p{P}, \p{S}, \p{M}) are ICU 72's,
// Unicode 15.0: nearer to HF's Oniguruma (Unicode 16.0) than Debian's
// Oniguruma (Unicode 14.0), which differs on the 4,489 characters Unicode 15.0
// assigned. Linear in the text.
//
//   if (const tj::FastSplitter* f = tj::fast_splitter(pattern)) f->find_all(text, matches);
//
// Known: "gpt2" (ByteLevel's use_regex pattern), "llama3" (LLaMA-3/3.1/3.2),
// "qwen2" (Qwen2/2.5/3: \p{N} alone), "deepseek_digits", "deepseek_cjk",
// "deepseek" (DeepSeek-V3's three Splits).
#pragma once

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
// Whether Oniguruma classes c as the splitters do (tests, fuzzing).
bool classes_as_oniguruma(char32_t c);

}  // namespace embedpe::tj
