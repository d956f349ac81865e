// Private: what Regex (tj_regex.h) and the hand-written splitters standing in
// for it (tj_regex_fast.h) share: one match, as byte offsets into the text,
// and Oniguruma initialised once; on their own so that the splitters need
// nothing of Regex.
#pragma once

#include <cstddef>

namespace embedpe::tj {

struct RegexMatch {
  std::size_t begin, end;  // byte offsets into the text
};

// onig_initialize for UTF-8, once per process (defined in tj_regex.cpp).
void initialize_oniguruma();

}  // namespace embedpe::tj
