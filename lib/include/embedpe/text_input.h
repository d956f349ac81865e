// Reading the texts to encode: one text per line, UTF-8.
//
//   std::vector<std::string> texts = embedpe::read_lines("corpus.txt");  // or "-" for stdin
//
// A UTF-8 byte-order mark at the start is dropped and a trailing "\r" on each
// line is removed (CRLF files). Invalid UTF-8 and NUL bytes are errors that
// name the file and the line, so that a binary file given by mistake is not
// silently turned into tokens.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace embedpe {

// Offset of the first byte that does not start or continue a valid UTF-8
// sequence (overlong forms, surrogates and code points above U+10FFFF are
// invalid), or nullopt if the whole text is valid.
std::optional<std::size_t> find_invalid_utf8(std::string_view text);

// Throws embedpe::Error naming `what` (e.g. "--text 2" or "corpus.txt:17")
// if `text` is not valid UTF-8 or contains a NUL byte.
void check_text(std::string_view text, const std::string& what);

// All lines of a file ("-" reads standard input), checked as above.
std::vector<std::string> read_lines(const std::string& path);

}  // namespace embedpe
