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
//
// A read error is never mistaken for the end of the input: a failed read(2),
// a regular file that ends before the size it had when it was opened (it
// shrank while being read), a line longer than `max_line_bytes` or a JSON
// record nested deeper than kMaxJsonDepth all throw embedpe::Error naming the
// file, so a run cannot end "successfully" with part of its input. Memory is
// bounded by the longest line allowed plus one read buffer.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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
  ids,    // one sequence of token ids per line, read as lines (parse_id_text parses them)
};

struct InputOptions {
  InputFormat format = InputFormat::lines;
  std::string field = "text";  // jsonl
  bool skip_empty = false;     // drop empty (or whitespace-only) texts instead of keeping them
  // Read only the k-th of n parts (1-based k) of a seekable single input:
  // contiguous byte ranges split at line boundaries (a line belongs to the
  // part its first byte falls in). Line numbers stay those of the file: the
  // reader counts the lines before its range, reading the bytes before it.
  std::size_t shard_index = 1, shard_count = 1;
  // A part was asked for, even 1/1 (whose record merge reads): the input is
  // then checked as any part's is, one regular file whose size can be trusted.
  bool shard_given = false;
  // Start at the range without reading the bytes before it (O(1) for any k).
  // Line numbers then count from the shard's first line (origin() says
  // "line L from byte B"); embedpe merge turns them back into the file's.
  bool shard_seek = false;
  // A line (without its "\n" or "\r\n") longer than this is an error rather
  // than an unbounded allocation.
  std::size_t max_line_bytes = kDefaultMaxLineBytes;
  // 4 MiB: tokenizing a line takes up to ~300 bytes of memory per byte of
  // it (SentencePiece's lattice and pieces; docs/PERFORMANCE.md, "Long
  // lines"), so the default bounds that at about 1.2 GiB per line.
  static constexpr std::size_t kDefaultMaxLineBytes = std::size_t(4) << 20;  // 4 MiB
};

// JSONL records nested deeper than this are refused (a record of a million
// "[" would otherwise cost memory in proportion).
inline constexpr std::size_t kMaxJsonDepth = 512;

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
  const InputOptions& options() const { return options_; }
  // The bytes of the (single) input this reader has consumed so far, as
  // [begin, end) offsets in the file: a shard's range once read to the end,
  // from its first line's first byte to the next shard's first byte.
  std::pair<std::size_t, std::size_t> consumed_range() const { return {range_begin_, offset_}; }
  // Lines consumed so far from the current input, kept or skipped (a shard's
  // own lines, not those before its range).
  std::size_t lines_consumed() const { return line_ - lines_before_; }
  // A single input's identity (a shard's), taken from the descriptor it is
  // read through when it was opened: its size then, and its fingerprint
  // (file_fingerprint). Empty before it is opened, and for stdin or a pipe.
  std::optional<std::size_t> opened_size() const { return opened_size_; }
  const std::string& fingerprint() const { return fingerprint_; }
  // Where line `line` of `source` is, the one way messages spell it:
  // "corpus.txt:17", or with shard_seek "corpus.txt line 5 from byte 1234".
  std::string origin(std::size_t source, std::size_t line) const;

  // Receives the raw bytes of every line consumed, kept or skipped, with its
  // line ending, in input order — exactly the input that next() turned into
  // texts (for hashing what a batch came from). Set it before the first next().
  using RawSink = std::function<void(std::size_t source, std::string_view bytes)>;
  void set_raw_sink(RawSink sink) { raw_sink_ = std::move(sink); }

 private:
  bool open_next();
  void close_current();
  bool read_line(std::string& line);
  // Reads more bytes into buffer_ after the `keep` bytes at pending_; false at
  // the end of the file. Throws on a read error or a file that shrank.
  bool fill();
  // `parameters` as for embedpe::Error: those `why` names.
  [[noreturn]] void fail_read(const std::string& why, std::vector<std::string> parameters = {}) const;

  std::vector<std::string> paths_;
  InputOptions options_;
  static constexpr std::size_t kNotStarted = static_cast<std::size_t>(-1);  // ++ gives source 0
  std::size_t current_ = kNotStarted;  // index of the open source (paths_.size() when done)
  int fd_ = -1;
  std::size_t line_ = 0;
  std::size_t lines_before_ = 0;  // lines before a counted shard's range
  std::size_t end_offset_ = 0;  // shard: stop before a line starting at or after this
  std::size_t offset_ = 0;      // in the current file, of the first byte not yet consumed
  std::size_t file_offset_ = 0; // in the current file, of the next byte read(2) returns
  std::optional<std::size_t> expected_size_;  // a regular file's size when it was opened
  std::optional<std::size_t> opened_size_;    // a single regular input's, kept once it is closed
  std::string fingerprint_;                   // a single regular input's
  bool sharded_ = false;
  std::size_t range_begin_ = 0;  // offset of the first line this reader takes
  std::size_t bytes_read_ = 0;
  std::optional<std::size_t> total_bytes_;
  std::size_t empty_lines_ = 0;
  std::string buffer_;  // read(2) lands here; holds at most one line plus one read
  std::size_t pending_ = 0, filled_ = 0;  // unconsumed bytes are buffer_[pending_, filled_)
  bool eof_ = false;
  RawSink raw_sink_;
};

// What identifies the regular file open as `fd`, of `size` bytes, cheaply:
// the SHA-256 of its size and its first and last 64 KiB, read through `fd`
// (pread) so that it describes the file read, never another one found at its
// name later. Throws Error naming `path` if it cannot be read.
std::string file_fingerprint(int fd, std::size_t size, const std::string& path);

// Where a run's texts come from: strings given one by one, or a LineReader
// over files. Either way lines come out of next(), and origin() names a line
// the one way messages spell it: "corpus.txt:17", or "LABEL N" for the Nth
// given text (the caller picks the label: the command line says "--text").
//
//   embedpe::TextSource src = embedpe::TextSource::given({"Hello", "world"}, "text");
//   for (auto lines = src.next(128); !lines.empty(); lines = src.next(128)) {
//     src.origin(lines[0]);  // "text 1"
//   }
class TextSource {
 public:
  // Each text is checked as UTF-8 (check_text, naming its origin).
  static TextSource given(std::vector<std::string> texts, std::string label);
  explicit TextSource(std::unique_ptr<LineReader> reader) : reader_(std::move(reader)) {}

  // The next `max_lines` lines (fewer at the end; empty when done). Given
  // texts have source 0 and line N (from 1).
  std::vector<TextLine> next(std::size_t max_lines);
  std::string origin(const TextLine& line) const;
  // The inputs' names when there are several (records then say which);
  // empty for one input or given texts.
  std::vector<std::string> source_names() const;
  // Null for given texts.
  LineReader* reader() const { return reader_.get(); }
  // The inputs' names, joined with ", " (for "input a.txt, b.txt has no text").
  std::string input_names() const;
  // The texts of `lines` (moved out) and where each came from, for messages.
  std::pair<std::vector<std::string>, std::vector<std::string>> take(std::vector<TextLine>& lines) const;

 private:
  TextSource() = default;
  std::unique_ptr<LineReader> reader_;
  std::vector<std::string> texts_;
  std::size_t taken_ = 0;
  std::string label_;
};

// Where a run's texts come from, as a front end gathers them: given texts
// (with their pairs) or sequences of ids, else input files, else standard
// input when it is not a terminal.
//
//   embedpe::TextSpec spec;
//   spec.inputs = {"corpus.txt"};
//   embedpe::TextSource source = embedpe::open_text_source(spec);
struct TextSpec {
  std::vector<std::string> texts;   // given texts
  std::vector<std::string> pairs;   // empty, or the second text of each given text
  std::vector<std::string> ids;     // given sequences of ids ("1,262,2"), used as they are
  std::vector<std::string> inputs;  // files, read in order; "-" is standard input
  InputOptions reading;
  bool shard_given = false;  // a part was asked for, even 1/1: an empty part is an empty result, not an error
  // How origins and messages name the given texts and ids ("text 2"); a
  // front end may spell them its own way ("--text 2").
  std::string texts_label = "text", ids_label = "ids";

  // The texts are sequences of ids (given, or input_format ids): no tokenizer.
  // UsageError for given ids with input_format jsonl.
  bool ids_input() const;
};

// The source `spec` describes. UsageError (naming parameters: field,
// input_format, shard, shard_seek, skip_empty, text_pair) for options that
// would do nothing with the texts given, never ignored (input_format ids
// would read given texts as ids); and when nothing is given and standard
// input is a terminal.
TextSource open_text_source(const TextSpec& spec);

// The files a run of `spec`'s texts reads, as (parameter, path) pairs, what
// its output must not replace (refuse_outputs_over_inputs, weights.h): each
// input ("input"), and the tokenizer's model ("model"; "" for none).
std::vector<std::pair<std::string, std::string>> text_inputs(const TextSpec& spec, const std::string& model);

// All lines of a file ("-" reads standard input), checked as above.
std::vector<std::string> read_lines(const std::string& path);

}  // namespace embedpe
