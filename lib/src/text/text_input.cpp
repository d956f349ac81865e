#include "embedpe/text_input.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <new>

#include <nlohmann/json.hpp>

#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/message.h"
#include "model_files.h"
#include "sha256.h"
#include "utf8.h"

namespace embedpe {

std::optional<std::size_t> find_invalid_utf8(std::string_view text) { return utf8::find_invalid(text); }

void check_text(std::string_view text, const std::string& what) {
  if (auto bad = find_invalid_utf8(text)) {
    throw Error(what + ": invalid UTF-8 at byte " + std::to_string(*bad + 1) +
                "; convert the text to UTF-8 (e.g. with iconv)");
  }
  if (auto nul = text.find('\0'); nul != std::string_view::npos) {
    // A NUL byte in a text file, or a \u0000 escape in a JSON string: the text holds U+0000.
    throw Error(what + ": NUL byte (U+0000) at byte " + std::to_string(nul + 1) +
                " of the text; texts may not hold it (a binary file, or a \\u0000 in JSON?)");
  }
}

namespace {

// Whether every character of `s` is Unicode White_Space (PropList.txt):
// U+0009..U+000D, U+0020, U+0085, U+00A0, U+1680, U+2000..U+200A, U+2028,
// U+2029, U+202F, U+205F, U+3000. The one definition skip_empty uses; bytes
// that are not UTF-8 are not white space.
bool blank(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    char32_t c;
    std::size_t n;
    if (b < 0x80) {
      c = b, n = 1;
    } else if ((b & 0xE0) == 0xC0) {
      c = b & 0x1F, n = 2;
    } else if ((b & 0xF0) == 0xE0) {
      c = b & 0x0F, n = 3;
    } else {
      return false;  // 4-byte sequences hold no white space; invalid lead bytes are not
    }
    if (i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k) {
      const auto t = static_cast<unsigned char>(s[i + k]);
      if ((t & 0xC0) != 0x80) return false;
      c = (c << 6) | (t & 0x3F);
    }
    const bool space = (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
                       (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
                       c == 0x3000;
    if (!space) return false;
    i += n;
  }
  return true;
}

// Sharding seeks into its input. The path is the user's text: a file called
// "shard" is not the parameter.
UsageError not_a_regular_file(const std::string& path) {
  const std::string head = "shard needs a regular file, and ";
  return UsageError(head + path + " is not one", {"shard"}, {{head.size(), path.size()}});
}

// A file whose size does not say how much it holds (/proc/cpuinfo says 0).
UsageError untrusted_size(const std::string& path) {
  const std::string head = "shard cuts a file by its size, and the size of ";
  return UsageError(head + path + " cannot be trusted (a /proc or /sys file, or one that says 0 bytes but holds more)" +
                        ": copy it to a regular file first",
                    {"shard"}, {{head.size(), path.size()}});
}

// What a JSON Lines record that does not parse is, as one clause: what the
// parser found and where (the byte of the line, the top-level member being
// read when it is known), never the record's raw bytes. `member` is empty
// when the error is not inside a member's value (a key, the braces).
std::string json_error_text(std::string_view line, const std::string& member, const std::exception& e,
                            std::size_t byte) {
  const std::string in = member.empty() ? std::string() : " in the member " + member;
  // nlohmann's parser says "ill-formed UTF-8 byte" one byte late, or for the
  // first byte of a key: found here the way check_text finds it.
  if (auto bad = find_invalid_utf8(line)) {
    return "invalid UTF-8 at byte " + std::to_string(*bad + 1) + in + "; convert the text to UTF-8 (e.g. with iconv)";
  }
  if (const auto number = json_overflowing_number(e)) {
    return "the number " + *number + in + " is out of range: it overflows a double (at most about 1.8e308)";
  }
  std::string reason = json_parse_reason(e);
  const std::string at = " at byte " + std::to_string(byte) + in;
  if (reason.find("surrogate U+D800..U+DBFF") != std::string::npos) {
    return "a lone surrogate escape (\\uD800 to \\uDBFF not followed by \\uDC00 to \\uDFFF)" + at +
           "; it encodes no character";
  }
  if (reason.find("surrogate U+DC00..U+DFFF") != std::string::npos) {
    return "a lone surrogate escape (\\uDC00 to \\uDFFF not after \\uD800 to \\uDBFF)" + at +
           "; it encodes no character";
  }
  if (reason.starts_with("invalid string: ")) reason = reason.substr(16);
  return "not valid JSON" + at + ": " + reason;
}

}  // namespace

LineReader::LineReader(std::vector<std::string> paths, InputOptions options)
    : paths_(std::move(paths)), options_(std::move(options)) {
  if (paths_.empty()) throw UsageError("no input given");
  if (options_.shard_count == 0 || options_.shard_index == 0 || options_.shard_index > options_.shard_count) {
    throw UsageError("shard takes K/N with 1 <= K <= N", {"shard"});
  }
  if (options_.max_line_bytes == 0) throw UsageError("max_line_bytes must be at least 1", {"max_line_bytes"});
  sharded_ = options_.shard_count > 1 || options_.shard_given;
  if (sharded_ && (paths_.size() != 1 || paths_[0] == "-")) {
    throw UsageError("shard needs exactly one seekable input file (not stdin)", {"shard"});
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
      if (sharded_) throw not_a_regular_file(p);
      known = false;
      continue;
    }
    total += static_cast<std::size_t>(st.st_size);
  }
  if (known) total_bytes_ = sharded_ ? 0 : total;
}

LineReader::~LineReader() { close_current(); }

void LineReader::close_current() {
  if (fd_ > STDIN_FILENO) ::close(fd_);
  fd_ = -1;
}

std::string LineReader::display_name(std::size_t source) const {
  return paths_[source] == "-" ? "<stdin>" : paths_[source];
}

std::string LineReader::origin(std::size_t source, std::size_t line) const {
  if (sharded_ && options_.shard_seek) {
    return display_name(source) + " line " + std::to_string(line) + " from byte " + std::to_string(range_begin_);
  }
  return display_name(source) + ":" + std::to_string(line);
}

void LineReader::fail_read(const std::string& why, std::vector<std::string> parameters) const {
  throw Error("cannot read input " + display_name(current_) + ": " + why +
                  "; stopped rather than take it for the end of the input",
              std::move(parameters));
}

bool LineReader::fill() {
  constexpr std::size_t kChunk = std::size_t(1) << 16;
  if (eof_) return false;
  // Move the unconsumed bytes to the front, then make room for one more read.
  const std::size_t keep = filled_ - pending_;
  if (pending_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + pending_, keep);
    pending_ = 0;
    filled_ = keep;
  }
  if (buffer_.size() < keep + kChunk) {
    // Doubling (amortised O(1) per byte), but never beyond what the longest
    // allowed line needs; saturating, for --max-line-bytes near SIZE_MAX.
    const std::size_t max = options_.max_line_bytes;
    const std::size_t cap = max > SIZE_MAX - 2 - kChunk ? SIZE_MAX : max + 2 + kChunk;
    try {
      buffer_.resize(std::max(keep + kChunk, std::min(buffer_.size() * 2, cap)));
    } catch (const std::bad_alloc&) {
      fail_read("out of memory holding a line of " + std::to_string(keep) + " bytes (" + origin(current_, line_ + 1) +
                    "); lower max_line_bytes (now " + std::to_string(options_.max_line_bytes) +
                    ") or allow the process more memory",
                {"max_line_bytes"});
    }
  }
  for (;;) {
    const ssize_t n = ::read(fd_, buffer_.data() + filled_, buffer_.size() - filled_);
    if (n > 0) {
      filled_ += static_cast<std::size_t>(n);
      file_offset_ += static_cast<std::size_t>(n);
      return true;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_read(std::strerror(errno));
    eof_ = true;
    // A regular file that ends before the size it had when it was opened was
    // cut while being read: its end here is not the end of the input.
    if (expected_size_ && file_offset_ < *expected_size_) {
      fail_read("it ended at byte " + std::to_string(file_offset_) + " but was " + std::to_string(*expected_size_) +
                " bytes when opened (was it truncated or rewritten while being read?)");
    }
    return false;
  }
}

std::string file_fingerprint(int fd, std::size_t size, const std::string& path) {
  constexpr std::size_t kEnd = std::size_t(64) << 10;
  const auto read_at = [&](std::size_t offset, std::size_t n) {
    std::string buf(n, '\0');
    std::size_t got = 0;
    while (got < n) {
      const ssize_t r = ::pread(fd, buf.data() + got, n - got, static_cast<off_t>(offset + got));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) throw Error("cannot read " + path + ": " + std::strerror(errno));
      if (r == 0) break;
      got += static_cast<std::size_t>(r);
    }
    buf.resize(got);
    return buf;
  };
  Sha256 h;
  h.update(std::to_string(size) + "\n");
  h.update(read_at(0, std::min(kEnd, size)));
  if (size > kEnd) {
    const std::size_t tail = std::max(kEnd, size - kEnd);
    h.update(read_at(tail, size - tail));
  }
  return h.hex();
}

bool LineReader::open_next() {
  close_current();
  ++current_;
  if (current_ >= paths_.size()) return false;
  const std::string& path = paths_[current_];
  line_ = lines_before_ = 0;
  offset_ = file_offset_ = 0;
  pending_ = filled_ = 0;
  eof_ = false;
  expected_size_.reset();
  end_offset_ = static_cast<std::size_t>(-1);
  if (path == "-") {
    fd_ = STDIN_FILENO;
    note_input(fd_, path);
    return true;
  }
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw Error("cannot open input " + path + ": " + std::strerror(errno));
  note_input(fd_, path);
  struct stat st;
  if (::fstat(fd_, &st) != 0) fail_read(std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw Error("input " + path + " is a directory; give a text file with one text per line");
  if (S_ISREG(st.st_mode)) expected_size_ = static_cast<std::size_t>(st.st_size);
  if (expected_size_ && paths_.size() == 1) {  // a shard's input, or shard 1/1's
    opened_size_ = expected_size_;
    fingerprint_ = file_fingerprint(fd_, *expected_size_, path);
  }
  if (!sharded_) return true;
  if (!expected_size_) throw not_a_regular_file(path);
  // Shards are cut by the size: one that cannot be trusted would give every
  // shard nothing. /proc and /sys files report 0 or a page; any file that
  // says 0 bytes and yet holds one is refused too (FUSE, ...).
  if (struct statfs fs; ::fstatfs(fd_, &fs) == 0 && (fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC)) {
    throw untrusted_size(path);
  }
  if (*expected_size_ == 0) {
    char byte;
    if (::pread(fd_, &byte, 1, 0) > 0) throw untrusted_size(path);
  }

  // This shard's byte range: lines whose first byte is in [begin, end).
  const std::size_t size = *expected_size_;
  const std::size_t begin = size / options_.shard_count * (options_.shard_index - 1) +
                            std::min(size % options_.shard_count, options_.shard_index - 1);
  end_offset_ = size / options_.shard_count * options_.shard_index +
                std::min(size % options_.shard_count, options_.shard_index);
  // Count the lines before `begin` (for line numbers), then start at the
  // first line that begins at or after it: the line that straddles `begin`
  // belongs to the previous shard. With shard_seek only the byte before
  // `begin` is read, to see whether a line starts at `begin`.
  if (options_.shard_seek && begin > 0) {
    if (::lseek(fd_, static_cast<off_t>(begin - 1), SEEK_SET) < 0) fail_read(std::strerror(errno));
    offset_ = file_offset_ = begin - 1;
  }
  bool at_line_start = true;
  while (offset_ < begin) {
    if (pending_ == filled_ && !fill()) break;
    const std::size_t take = std::min(filled_ - pending_, begin - offset_);
    const char* p = buffer_.data() + pending_;
    line_ += static_cast<std::size_t>(std::count(p, p + take, '\n'));
    at_line_start = p[take - 1] == '\n';
    pending_ += take;
    offset_ += take;
  }
  if (offset_ > 0 && !at_line_start) {
    for (;;) {
      if (pending_ == filled_ && !fill()) break;
      const char* p = buffer_.data() + pending_;
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', filled_ - pending_));
      const std::size_t take = nl ? static_cast<std::size_t>(nl - p) + 1 : filled_ - pending_;
      pending_ += take;
      offset_ += take;
      if (nl) break;
    }
    ++line_;
  }
  if (options_.shard_seek) line_ = 0;  // the shard's own lines, from 1
  lines_before_ = line_;
  range_begin_ = offset_;
  if (total_bytes_) *total_bytes_ = end_offset_ > offset_ ? end_offset_ - offset_ : 0;
  return true;
}

bool LineReader::read_line(std::string& line) {
  if (offset_ >= end_offset_) return false;
  // Find the end of the line in what is buffered, reading more as needed.
  std::size_t scanned = 0;  // bytes after pending_ known to hold no '\n'
  const char* nl = nullptr;
  for (;;) {
    const std::size_t have = filled_ - pending_;
    nl = static_cast<const char*>(std::memchr(buffer_.data() + pending_ + scanned, '\n', have - scanned));
    if (nl) break;
    scanned = have;
    // "\r" of a CRLF ending may follow the longest allowed line.
    if (have > 0 && have - 1 > options_.max_line_bytes) {
      throw Error(origin(current_, line_ + 1) + ": line longer than max_line_bytes " +
                      std::to_string(options_.max_line_bytes) +
                      " bytes; split the text into shorter lines or raise max_line_bytes",
                  {"max_line_bytes"});
    }
    if (!fill()) break;
  }
  const std::size_t have = filled_ - pending_;
  if (!nl && have == 0) return false;  // the end of this file
  const std::size_t n = nl ? static_cast<std::size_t>(nl - (buffer_.data() + pending_)) + 1 : have;
  const std::string_view raw(buffer_.data() + pending_, n);
  std::size_t len = n;
  if (len && raw[len - 1] == '\n') --len;
  if (len && raw[len - 1] == '\r') --len;
  if (len > options_.max_line_bytes) {
    throw Error(origin(current_, line_ + 1) + ": line longer than max_line_bytes " +
                    std::to_string(options_.max_line_bytes) +
                    " bytes; split the text into shorter lines or raise max_line_bytes",
                {"max_line_bytes"});
  }
  std::size_t skip = 0;
  if (offset_ == 0 && raw.substr(0, 3) == "\xEF\xBB\xBF") skip = std::min<std::size_t>(3, len);
  line.assign(raw.data() + skip, len - skip);
  if (raw_sink_) raw_sink_(current_, raw);
  pending_ += n;
  offset_ += n;
  bytes_read_ += n;
  ++line_;
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
    const std::string where = origin(current_, line_);
    std::string text;
    if (options_.format == InputFormat::jsonl && !blank(line)) {
      // The parser keeps one stack entry per open bracket: refuse deep
      // nesting before it costs memory.
      // A key given twice in one object ({"text":"a","text":"b"}) is
      // ambiguous: refused naming it, never the last one taken.
      std::vector<std::vector<std::string>> keys;  // of each open object
      // The top-level member whose value is being read (JSON-quoted), for
      // a message about a record that does not parse.
      std::string member;
      auto depth_limit = [&where, &keys, &member](int depth, nlohmann::json::parse_event_t event,
                                                  nlohmann::json& parsed) {
        if (static_cast<std::size_t>(depth) > kMaxJsonDepth) {
          throw Error(where + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                          " levels; input_format jsonl expects flat records",
                      {"input_format"});
        }
        using E = nlohmann::json::parse_event_t;
        if (depth == 1 && (event == E::value || event == E::object_end || event == E::array_end)) member.clear();
        if (event == E::object_start) keys.emplace_back();
        if (event == E::object_end && !keys.empty()) keys.pop_back();
        if (event == E::key && !keys.empty()) {
          const std::string key = parsed.get<std::string>();
          if (depth == 1) {
            member = nlohmann::json(key).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
          }
          if (std::find(keys.back().begin(), keys.back().end(), key) != keys.back().end()) {
            Message m;
            m << where << ": the key " << Verbatim{nlohmann::json(key).dump(-1, ' ', false,
                                                                          nlohmann::json::error_handler_t::replace)}
              << " is given twice in one object; which one is meant is ambiguous: give it once";
            throw m.error({"input_format"});
          }
          keys.back().push_back(key);
        }
        return true;
      };
      nlohmann::json doc;
      try {
        doc = nlohmann::json::parse(line, depth_limit);
      } catch (const nlohmann::json::parse_error& e) {
        Message m;
        m << where << ": " << Verbatim{json_error_text(line, member, e, e.byte)}
          << " (input_format jsonl expects one JSON object per line)";
        throw m.error({"input_format"});
      } catch (const nlohmann::json::out_of_range& e) {
        Message m;
        m << where << ": " << Verbatim{json_error_text(line, member, e, 0)};
        throw m.error();
      } catch (const nlohmann::json::exception&) {
        throw Error(where + ": not valid JSON (input_format jsonl expects one JSON object per line)", {"input_format"});
      }
      if (!doc.is_object()) {
        throw Error(where + ": a JSON " + doc.type_name() + ", not an object (input_format jsonl expects one " +
                        "object per line)",
                    {"input_format"});
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

TextSource TextSource::given(std::vector<std::string> texts, std::string label) {
  TextSource s;
  s.label_ = std::move(label);
  s.texts_ = std::move(texts);
  for (std::size_t i = 0; i < s.texts_.size(); ++i) check_text(s.texts_[i], s.label_ + " " + std::to_string(i + 1));
  return s;
}

std::vector<TextLine> TextSource::next(std::size_t max_lines) {
  if (reader_) return reader_->next(max_lines);
  std::vector<TextLine> lines;
  for (; taken_ < texts_.size() && lines.size() < max_lines; ++taken_) {
    lines.push_back({std::move(texts_[taken_]), 0, taken_ + 1});
  }
  return lines;
}

std::string TextSource::origin(const TextLine& line) const {
  if (reader_) return reader_->origin(line.source, line.line);
  return label_ + " " + std::to_string(line.line);
}

std::vector<std::string> TextSource::source_names() const {
  std::vector<std::string> names;
  if (reader_ && reader_->paths().size() > 1) {
    for (std::size_t i = 0; i < reader_->paths().size(); ++i) names.push_back(reader_->display_name(i));
  }
  return names;
}

std::string TextSource::input_names() const {
  std::string names;
  for (std::size_t i = 0; reader_ && i < reader_->paths().size(); ++i) {
    names += (i ? ", " : "") + reader_->display_name(i);
  }
  return names;
}

std::pair<std::vector<std::string>, std::vector<std::string>> TextSource::take(std::vector<TextLine>& lines) const {
  std::vector<std::string> texts, origins;
  texts.reserve(lines.size());
  origins.reserve(lines.size());
  for (auto& l : lines) {
    origins.push_back(origin(l));
    texts.push_back(std::move(l.text));
  }
  return {std::move(texts), std::move(origins)};
}

bool TextSpec::ids_input() const {
  if (!ids.empty() && reading.format == InputFormat::jsonl) {
    Message m;
    m << "ids gives " << Verbatim{"ids"} << ", not JSON Lines: drop input_format jsonl";
    throw m.usage_error({"ids", "input_format"});
  }
  return !ids.empty() || reading.format == InputFormat::ids;
}

std::vector<std::pair<std::string, std::string>> text_inputs(const TextSpec& spec, const std::string& model) {
  std::vector<std::pair<std::string, std::string>> inputs;
  for (const std::string& path : spec.inputs) inputs.emplace_back("input", path);
  inputs.emplace_back("model", model);
  return inputs;
}

TextSource open_text_source(const TextSpec& spec) {
  // Options about reading files are refused where they would do nothing,
  // never ignored: N jobs with shard K/N and given texts would each write them all.
  const InputOptions& reading = spec.reading;
  if (reading.field != InputOptions{}.field && reading.format != InputFormat::jsonl) {
    throw UsageError("field names the member of a JSON Lines input that holds the text: add input_format jsonl",
                     {"field", "input_format"});
  }
  if (reading.shard_seek && !spec.shard_given) {
    throw UsageError("shard_seek says how shard K/N starts its part of the input: add shard", {"shard_seek", "shard"});
  }
  if (!spec.texts.empty() || !spec.ids.empty()) {
    const std::string given = spec.ids.empty() ? "text" : "ids";
    if (spec.shard_given) {
      throw UsageError("shard splits an input file, and " + given + " values are not one: give a FILE",
                       {"shard", given});
    }
    if (reading.skip_empty) {
      throw UsageError("skip_empty drops empty lines of input files; " + given + " values are used as given",
                       {"skip_empty", given});
    }
    if (reading.format == InputFormat::jsonl && spec.ids.empty()) {  // given ids: ids_input() says it
      throw UsageError("input_format jsonl reads input files; text values are used as given", {"input_format", "text"});
    }
    if (reading.format == InputFormat::ids && spec.ids.empty()) {  // text would be read as ids
      throw (Message() << "input_format " << Verbatim{"ids"}
                       << " reads input files; text values are used as given: " << Verbatim{"give sequences of ids"}
                       << " with ids")
          .usage_error({"input_format", "text", "ids"});
    }
  }
  if (!spec.pairs.empty() && spec.pairs.size() != spec.texts.size()) {
    Message m;
    m << "text_pair is the " << Verbatim{"second text of a pair"} << ": give one per text ("
      << std::to_string(spec.texts.size()) << " text, " << std::to_string(spec.pairs.size()) << " text_pair)";
    throw m.usage_error({"text_pair", "text"});
  }
  if (!spec.ids.empty()) return TextSource::given(spec.ids, spec.ids_label);
  if (!spec.texts.empty()) return TextSource::given(spec.texts, spec.texts_label);
  // Nothing named: standard input when something is piped into it (as
  // spm_encode and jq read it); nothing on a terminal.
  if (spec.inputs.empty() && ::isatty(STDIN_FILENO)) {
    Message m;
    m << "nothing to process: give text TEXT, a FILE, or " << Verbatim{"pipe text into standard input"};
    throw m.usage_error({"text"});
  }
  if (std::count(spec.inputs.begin(), spec.inputs.end(), "-") > 1) {
    Message m;
    m << "input " << Verbatim{"- (standard input) is given more than once, and it can be read only once"}
      << ": give it once";
    throw m.usage_error({"input"});
  }
  const std::vector<std::string> paths = spec.inputs.empty() ? std::vector<std::string>{"-"} : spec.inputs;
  InputOptions options = reading;
  options.shard_given = options.shard_given || spec.shard_given;
  return TextSource(std::make_unique<LineReader>(paths, options));
}

}  // namespace embedpe
