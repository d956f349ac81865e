// Reading the texts to encode: one text per line, UTF-8, streamed.
//
//   std::vector<std::string> texts = embedpe::read_lines("corpus.txt");  // or "-" for stdin
//
//   embedpe::LineReader reader({"a.txt", "b.jsonl"}, {.format = embedpe::InputFormat::jsonl});
//   while (true) {
//     auto batch = reader.next(256);                 // up to 256 lines, in order
//     if (batch.empty()) break;
//     for (const auto& t : batch) use(t.text, t.source, t.line);
//   }
//
// A UTF-8 byte-order mark at the start is dropped and a trailing "\r" on each
// line is removed (CRLF files). Invalid UTF-8 and NUL bytes are errors that
// name the file and the line, so that a binary file given by mistake is not
// silently turned into tokens.
#pragma once

#include <cstddef>
#include <cstdio>
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

enum class InputFormat {
  lines,  // one text per line
  jsonl,  // one JSON object per line; the text is its string member `field`
};

struct InputOptions {
  InputFormat format = InputFormat::lines;
  std::string field = "text";  // jsonl
  bool skip_empty = false;     // drop empty (or whitespace-only) texts instead of keeping them
  // Read only the k-th of n parts (1-based k) of a seekable single input:
  // contiguous byte ranges split at line boundaries (a line belongs to the
  // part its first byte falls in). Line numbers stay those of the file.
  std::size_t shard_index = 1, shard_count = 1;
};

struct TextLine {
  std::string text;
  std::size_t source = 0;  // index into the reader's paths
  std::size_t line = 0;    // 1-based line number in that source
};

class LineReader {
 public:
  LineReader(std::vector<std::string> paths, InputOptions options);
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;
  ~LineReader();

  // The next `max_lines` texts (fewer at the end; empty when done).
  std::vector<TextLine> next(std::size_t max_lines);

  const std::vector<std::string>& paths() const { return paths_; }
  // "<stdin>" for "-".
  std::string display_name(std::size_t source) const;
  std::size_t bytes_read() const { return bytes_read_; }
  // Bytes this reader will read in all, if every input is a regular file.
  std::optional<std::size_t> total_bytes() const { return total_bytes_; }
  std::size_t empty_lines() const { return empty_lines_; }  // seen, kept or skipped

 private:
  bool open_next();
  bool read_line(std::string& line);

  std::vector<std::string> paths_;
  InputOptions options_;
  static constexpr std::size_t kNotStarted = static_cast<std::size_t>(-1);  // ++ gives source 0
  std::size_t current_ = kNotStarted;  // index of the open source (paths_.size() when done)
  std::FILE* file_ = nullptr;
  std::size_t line_ = 0;
  std::size_t end_offset_ = 0;  // shard: stop before a line starting at or after this
  std::size_t offset_ = 0;      // of the next byte in the current file
  bool sharded_ = false;
  std::size_t bytes_read_ = 0;
  std::optional<std::size_t> total_bytes_;
  std::size_t empty_lines_ = 0;
  char* buffer_ = nullptr;
  std::size_t capacity_ = 0;
};

// All lines of a file ("-" reads standard input), checked as above.
std::vector<std::string> read_lines(const std::string& path);

}  // namespace embedpe
