// libFuzzer target: reading a tokenizer.json (issue 47, item 8) and running
// its pipeline. The input is the file, then optionally a NUL and a text to
// encode. Beyond "no crash": a file is either refused with a UsageError (one
// line) or gives a tokenizer whose every id of an encoding decodes and lies
// below id_bound(), and whose type ids are one per id.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "embedpe/error.h"
#include "tj_tokenizer.h"
#include "tj_unicode.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string_view file = input.substr(0, nul);
  std::string text = nul == std::string_view::npos ? "Hello world, <s> 123 don't  \n\t日本語 é" : std::string(input.substr(nul + 1));
  // Texts are valid UTF-8 by the time they reach a tokenizer (check_text).
  std::string valid;
  for (std::size_t i = 0; i < text.size();) embedpe::tj::append_utf8(valid, embedpe::tj::next_char(text, i));
  std::unique_ptr<embedpe::tj::Tokenizer> tok;
  try {
    tok = embedpe::tj::Tokenizer::load(file, "fuzz.json");
  } catch (const embedpe::UsageError& e) {
    if (std::string_view(e.what()).find('\n') != std::string_view::npos) __builtin_trap();  // one line
    return 0;
  }
  const std::string_view pair = "second";
  for (const bool special : {true, false}) {
    embedpe::tj::Encoded e;
    try {
      // A text may need what the model lacks (an unknown token with no unk): one line, as HF's encode fails.
      e = tok->encode(valid, special ? &pair : nullptr, special);
    } catch (const embedpe::UsageError& error) {
      if (std::string_view(error.what()).find('\n') != std::string_view::npos) __builtin_trap();
      continue;
    }
    if (e.types.size() != e.ids.size() || e.tokens.size() != e.ids.size()) __builtin_trap();
    for (std::int32_t id : e.ids) {
      if (id < 0 || static_cast<std::size_t>(id) >= tok->id_bound()) __builtin_trap();
    }
    (void)tok->decode(e.ids, special);
  }
  return 0;
}
