#include "embedpe/text_input.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

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

namespace {

bool blank(std::string_view s) {
  return s.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos;
}

}  // namespace

LineReader::LineReader(std::vector<std::string> paths, InputOptions options)
    : paths_(std::move(paths)), options_(std::move(options)) {
  if (paths_.empty()) throw UsageError("no input given");
  if (options_.shard_count == 0 || options_.shard_index == 0 || options_.shard_index > options_.shard_count) {
    throw UsageError("--shard takes K/N with 1 <= K <= N");
  }
  sharded_ = options_.shard_count > 1;
  if (sharded_ && (paths_.size() != 1 || paths_[0] == "-")) {
    throw UsageError("--shard needs exactly one seekable input file (not stdin)");
  }
  std::size_t total = 0;
  bool known = true;
  for (const auto& p : paths_) {
    struct stat st;
    if (p == "-") {
      known = false;
      continue;
    }
    if (::stat(p.c_str(), &st) != 0) throw Error("cannot open input " + p + ": " + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) throw Error("input " + p + " is a directory; give a text file with one text per line");
    if (!S_ISREG(st.st_mode)) {
      if (sharded_) throw UsageError("--shard needs a regular file, and " + p + " is not one");
      known = false;
      continue;
    }
    total += static_cast<std::size_t>(st.st_size);
  }
  if (known) total_bytes_ = sharded_ ? 0 : total;
}

LineReader::~LineReader() {
  if (file_ && file_ != stdin) std::fclose(file_);
  std::free(buffer_);
}

std::string LineReader::display_name(std::size_t source) const {
  return paths_[source] == "-" ? "<stdin>" : paths_[source];
}

bool LineReader::open_next() {
  if (file_ && file_ != stdin) std::fclose(file_);
  file_ = nullptr;
  ++current_;
  if (current_ >= paths_.size()) return false;
  const std::string& path = paths_[current_];
  line_ = 0;
  offset_ = 0;
  end_offset_ = static_cast<std::size_t>(-1);
  if (path == "-") {
    file_ = stdin;
    return true;
  }
  file_ = std::fopen(path.c_str(), "rb");
  if (!file_) throw Error("cannot open input " + path + ": " + std::strerror(errno));
  if (!sharded_) return true;

  // This shard's byte range: lines whose first byte is in [begin, end).
  struct stat st;
  ::fstat(fileno(file_), &st);
  const auto size = static_cast<std::size_t>(st.st_size);
  const std::size_t begin = size / options_.shard_count * (options_.shard_index - 1) +
                            std::min(size % options_.shard_count, options_.shard_index - 1);
  end_offset_ = size / options_.shard_count * options_.shard_index +
                std::min(size % options_.shard_count, options_.shard_index);
  // Count the lines before `begin` (for line numbers), then start at the
  // first line that begins at or after it.
  std::size_t newlines = 0, pos = 0;
  char chunk[1 << 16];
  bool at_line_start = true;
  while (pos < begin) {
    const std::size_t want = std::min(sizeof chunk, begin - pos);
    const std::size_t got = std::fread(chunk, 1, want, file_);
    if (got == 0) break;
    for (std::size_t i = 0; i < got; ++i) newlines += chunk[i] == '\n';
    at_line_start = chunk[got - 1] == '\n';
    pos += got;
  }
  offset_ = pos;
  line_ = newlines;
  if (pos > 0 && !at_line_start) {  // finish the line that started in the previous shard
    int c;
    while ((c = std::fgetc(file_)) != EOF) {
      ++offset_;
      if (c == '\n') break;
    }
    ++line_;
  }
  if (total_bytes_) *total_bytes_ = end_offset_ > offset_ ? end_offset_ - offset_ : 0;
  return true;
}

bool LineReader::read_line(std::string& line) {
  if (offset_ >= end_offset_) return false;
  const ssize_t n = ::getline(&buffer_, &capacity_, file_);
  if (n < 0) {
    if (std::ferror(file_)) throw Error("cannot read input " + display_name(current_) + ": " + std::strerror(errno));
    return false;
  }
  offset_ += static_cast<std::size_t>(n);
  bytes_read_ += static_cast<std::size_t>(n);
  ++line_;
  std::size_t len = static_cast<std::size_t>(n);
  if (len && buffer_[len - 1] == '\n') --len;
  if (len && buffer_[len - 1] == '\r') --len;
  line.assign(buffer_, len);
  if (line_ == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
  return true;
}

std::vector<TextLine> LineReader::next(std::size_t max_lines) {
  std::vector<TextLine> out;
  if (current_ == kNotStarted && !open_next()) return out;
  std::string line;
  while (out.size() < max_lines && current_ < paths_.size()) {
    if (!read_line(line)) {
      if (!open_next()) break;
      continue;
    }
    const std::string where = display_name(current_) + ":" + std::to_string(line_);
    std::string text;
    if (options_.format == InputFormat::jsonl && !blank(line)) {
      auto doc = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (doc.is_discarded() || !doc.is_object()) {
        throw Error(where + ": not a JSON object (--input-format jsonl expects one object per line)");
      }
      auto it = doc.find(options_.field);
      if (it == doc.end() || !it->is_string()) {
        throw Error(where + ": no string member \"" + options_.field + "\"; choose the member with --field");
      }
      text = it->get<std::string>();
    } else {
      text = std::move(line);
    }
    check_text(text, where);
    if (blank(text)) {
      ++empty_lines_;
      if (options_.skip_empty) continue;
    }
    out.push_back({std::move(text), current_, line_});
  }
  return out;
}

std::vector<std::string> read_lines(const std::string& path) {
  LineReader reader({path}, {});
  std::vector<std::string> lines;
  for (auto& t : reader.next(static_cast<std::size_t>(-1))) lines.push_back(std::move(t.text));
  return lines;
}

}  // namespace embedpe
