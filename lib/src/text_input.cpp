#include "embedpe/text_input.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>

#include "embedpe/error.h"

namespace embedpe {

std::optional<std::size_t> find_invalid_utf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    unsigned char c = s[i];
    if (c < 0x80) { ++i; continue; }
    std::size_t len;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;  // overlong
      if (c == 0xED) hi = 0x9F;  // UTF-16 surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;  // overlong
      if (c == 0xF4) hi = 0x8F;  // above U+10FFFF
    } else {
      return i;
    }
    if (i + len > n) return i;
    if (s[i + 1] < lo || s[i + 1] > hi) return i;
    for (std::size_t k = 2; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return i;
    }
    i += len;
  }
  return std::nullopt;
}

void check_text(std::string_view text, const std::string& what) {
  if (auto bad = find_invalid_utf8(text)) {
    throw Error(what + ": invalid UTF-8 at byte " + std::to_string(*bad + 1) +
                "; convert the text to UTF-8 (e.g. with iconv)");
  }
  if (auto nul = text.find('\0'); nul != std::string_view::npos) {
    throw Error(what + ": NUL byte at byte " + std::to_string(nul + 1) +
                "; this looks like a binary file, not text");
  }
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream file;
  std::istream* in = &std::cin;
  std::string name = path == "-" ? "<stdin>" : path;
  if (path != "-") {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      throw Error("input " + path + " is a directory; give a text file with one text per line");
    }
    file.open(path, std::ios::binary);
    if (!file) throw Error("cannot open input " + path + ": " + std::strerror(errno));
    in = &file;
  }
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(*in, line)) {
    if (lines.empty() && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    check_text(line, name + ":" + std::to_string(lines.size() + 1));
    lines.push_back(std::move(line));
  }
  if (in->bad()) throw Error("cannot read input " + name + ": " + std::strerror(errno));
  return lines;
}

}  // namespace embedpe
