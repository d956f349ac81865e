#include "tj_json.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <vector>
#include <limits>
#include <system_error>

#include "embedpe/error.h"
#include "model_files.h"
#include "utf8.h"

namespace embedpe::tj {
namespace {

constexpr std::uint64_t kOnes = 0x0101010101010101ull;
std::uint64_t load8(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
// The high bit of every byte of v that is zero, and maybe of bytes after the
// first such (borrows): only whether any is set is used.
std::uint64_t zero_bytes(std::uint64_t v) { return (v - kOnes) & ~v; }

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }


// The length of the valid UTF-8 sequence at s[i] (lead byte >= 0x80), or 0.
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  const std::size_t left = s.size() - i;
  if (c >= 0xC2 && c <= 0xDF) return left >= 2 && (b(1) & 0xC0) == 0x80 ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (left < 3 || (b(1) & 0xC0) != 0x80 || (b(2) & 0xC0) != 0x80) return 0;
    if (c == 0xE0 && b(1) < 0xA0) return 0;   // overlong
    if (c == 0xED && b(1) >= 0xA0) return 0;  // surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (left < 4 || (b(1) & 0xC0) != 0x80 || (b(2) & 0xC0) != 0x80 || (b(3) & 0xC0) != 0x80) return 0;
    if (c == 0xF0 && b(1) < 0x90) return 0;   // overlong
    if (c == 0xF4 && b(1) >= 0x90) return 0;  // beyond U+10FFFF
    return 4;
  }
  return 0;
}

}  // namespace

std::string in_quotes(std::string_view s) {
  std::string out = "'";
  std::size_t chars = 0;
  for (std::size_t i = 0; i < s.size();) {
    if (++chars > 40) {
      out += "...";
      break;
    }
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7F) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
      ++i;
      continue;
    }
    std::size_t n = c < 0x80 ? 1 : utf8_sequence(s, i);
    if (n == 0) n = 1;
    out.append(s.substr(i, n));
    i += n;
  }
  return out + "'";
}

JsonReader::JsonReader(std::string_view text, const std::string& shown, std::string field)
    : text_(text), shown_(shown), path_(std::move(field)) {}

void JsonReader::push_index(std::size_t index) {
  path_ += '[';
  path_ += std::to_string(index);
  path_ += ']';
}

void JsonReader::push_key(std::string_view key) {
  path_ += '[';
  path_ += in_quotes(key);
  path_ += ']';
}

void JsonReader::fail(const std::string& what) const { fail_at(path_, what); }

void JsonReader::fail_at(const std::string& path, const std::string& what) const {
  throw UsageError(shown_ + ": " + path + ": " + what, {}, {TextSpan{0, shown_.size()}});
}

void JsonReader::syntax(const char* what) const {
  std::string msg = shown_ + ": malformed JSON at byte " + std::to_string(pos_);
  if (!path_.empty()) msg += " (in " + path_ + ")";
  msg += ": ";
  msg += what;
  throw UsageError(msg, {}, {TextSpan{0, shown_.size()}});
}

void JsonReader::ws() {
  // Pretty-printed files indent every line: skip spaces 8 at a time.
  const std::size_t n = text_.size();
  while (pos_ < n && is_ws(text_[pos_])) {
    ++pos_;
    while (pos_ + 8 <= n && load8(text_.data() + pos_) == kOnes * ' ') pos_ += 8;
  }
}

void JsonReader::expect(char c, const char* what) {
  ws();
  if (pos_ >= text_.size() || text_[pos_] != c) syntax(what);
  ++pos_;
}

JsonReader::Kind JsonReader::peek() {
  ws();
  if (pos_ >= text_.size()) syntax("unexpected end of text");
  switch (text_[pos_]) {
    case '{': return Kind::object;
    case '[': return Kind::array;
    case '"': return Kind::string;
    case 't':
    case 'f': return Kind::boolean;
    case 'n': return Kind::null;
    default:
      if (text_[pos_] == '-' || (text_[pos_] >= '0' && text_[pos_] <= '9')) return Kind::number;
      syntax("expected a value");
  }
}

bool JsonReader::at_null() {
  if (peek() != Kind::null) return false;
  literal("null");
  return true;
}

void JsonReader::literal(std::string_view word) {
  if (text_.substr(pos_, word.size()) != word) syntax("expected a value");
  pos_ += word.size();
  first_ = false;
}

void JsonReader::begin_object() {
  if (peek() != Kind::object) fail("expected an object");
  ++pos_;
  ++depth_;
  first_ = true;
}

std::optional<std::string_view> JsonReader::next_key() {
  ws();
  if (pos_ < text_.size() && text_[pos_] == '}') {
    ++pos_;
    --depth_;
    first_ = false;
    return std::nullopt;
  }
  if (!first_) expect(',', "expected ',' or '}'");
  first_ = false;
  ws();
  if (pos_ >= text_.size() || text_[pos_] != '"') syntax("expected a key");
  const std::string_view key = scan_string(true);
  expect(':', "expected ':'");
  return key;
}

void JsonReader::begin_array() {
  if (peek() != Kind::array) fail("expected an array");
  ++pos_;
  ++depth_;
  first_ = true;
}

bool JsonReader::next_element() {
  ws();
  if (pos_ < text_.size() && text_[pos_] == ']') {
    ++pos_;
    --depth_;
    first_ = false;
    return false;
  }
  if (!first_) expect(',', "expected ',' or ']'");
  first_ = false;
  return true;
}

// Reads the string at pos_ (an opening quote) and returns its unescaped text
// (with keep): a view into the text when it has no escapes, else into buffer_.
std::string_view JsonReader::scan_string(bool keep) {
  ++pos_;
  const std::size_t start = pos_;
  bool copying = false;  // buffer_ holds the text so far (an escape was met)
  const char* data = text_.data();
  const std::size_t n = text_.size();
  for (;;) {
    // The plain run: printable ASCII other than '"' and '\\', 8 bytes at a time.
    std::size_t run = pos_;
    while (run + 8 <= n) {
      const std::uint64_t v = load8(data + run);
      const std::uint64_t special = zero_bytes(v ^ (kOnes * '"')) | zero_bytes(v ^ (kOnes * '\\')) |
                                    ((v - kOnes * 0x20) & ~v) | v;
      if ((special & (kOnes * 0x80)) != 0) break;
      run += 8;
    }
    while (run < n) {
      const unsigned char c = static_cast<unsigned char>(data[run]);
      if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
      ++run;
    }
    if (copying) buffer_.append(data + pos_, run - pos_);
    pos_ = run;
    if (pos_ >= n) syntax("unterminated string");
    const unsigned char c = static_cast<unsigned char>(data[pos_]);
    if (c == '"') {
      ++pos_;
      first_ = false;
      if (copying) return buffer_;
      return text_.substr(start, pos_ - 1 - start);
    }
    if (c < 0x20) syntax("control character in a string");
    if (c >= 0x80) {
      const std::size_t len = utf8_sequence(text_, pos_);
      if (len == 0) syntax("invalid UTF-8 in a string");
      if (copying) buffer_.append(data + pos_, len);
      pos_ += len;
      continue;
    }
    // A backslash.
    if (keep && !copying) {
      buffer_.assign(data + start, pos_ - start);
      copying = true;
    }
    if (pos_ + 1 >= n) syntax("unterminated string");
    const char e = data[pos_ + 1];
    pos_ += 2;
    char plain = 0;
    switch (e) {
      case '"': plain = '"'; break;
      case '\\': plain = '\\'; break;
      case '/': plain = '/'; break;
      case 'b': plain = '\b'; break;
      case 'f': plain = '\f'; break;
      case 'n': plain = '\n'; break;
      case 'r': plain = '\r'; break;
      case 't': plain = '\t'; break;
      case 'u': break;
      default: syntax("invalid escape in a string");
    }
    if (plain) {
      if (copying) buffer_ += plain;
      continue;
    }
    const auto hex4 = [&]() -> std::uint32_t {
      if (pos_ + 4 > n) syntax("invalid \\u escape");
      std::uint32_t v = 0;
      for (int k = 0; k < 4; ++k) {
        const char h = data[pos_ + static_cast<std::size_t>(k)];
        v <<= 4;
        if (h >= '0' && h <= '9') v |= static_cast<std::uint32_t>(h - '0');
        else if (h >= 'a' && h <= 'f') v |= static_cast<std::uint32_t>(h - 'a' + 10);
        else if (h >= 'A' && h <= 'F') v |= static_cast<std::uint32_t>(h - 'A' + 10);
        else syntax("invalid \\u escape");
      }
      pos_ += 4;
      return v;
    };
    std::uint32_t cp = hex4();
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (pos_ + 2 > n || data[pos_] != '\\' || data[pos_ + 1] != 'u') syntax("lone surrogate in a \\u escape");
      pos_ += 2;
      const std::uint32_t low = hex4();
      if (low < 0xDC00 || low > 0xDFFF) syntax("lone surrogate in a \\u escape");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
      syntax("lone surrogate in a \\u escape");
    }
    if (copying) utf8::append(buffer_, static_cast<char32_t>(cp));
  }
}

std::string_view JsonReader::string() {
  if (peek() != Kind::string) fail("expected a string");
  return scan_string(true);
}

void JsonReader::skip_number() {
  const std::size_t n = text_.size();
  if (pos_ < n && text_[pos_] == '-') ++pos_;
  if (pos_ >= n) syntax("invalid number");
  if (text_[pos_] == '0') {
    ++pos_;
  } else if (text_[pos_] >= '1' && text_[pos_] <= '9') {
    while (pos_ < n && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
  } else {
    syntax("invalid number");
  }
  if (pos_ < n && text_[pos_] == '.') {
    ++pos_;
    if (pos_ >= n || text_[pos_] < '0' || text_[pos_] > '9') syntax("invalid number");
    while (pos_ < n && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
  }
  if (pos_ < n && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
    ++pos_;
    if (pos_ < n && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
    if (pos_ >= n || text_[pos_] < '0' || text_[pos_] > '9') syntax("invalid number");
    while (pos_ < n && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
  }
  first_ = false;
}

std::int64_t JsonReader::integer() {
  if (peek() != Kind::number) fail("expected an integer");
  const std::size_t start = pos_;
  skip_number();
  const std::string_view s = text_.substr(start, pos_ - start);
  if (s.find_first_of(".eE") != std::string_view::npos) fail_at(path_, "expected an integer, not " + std::string(s));
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) fail("integer " + std::string(s.substr(0, 30)) + " is out of range");
  return v;
}

std::string_view JsonReader::raw_number() {
  if (peek() != Kind::number) fail("expected a number");
  const std::size_t start = pos_;
  skip_number();
  return text_.substr(start, pos_ - start);
}

double JsonReader::serde_number() {
  const std::string_view t = raw_number();  // valid JSON number syntax
  static const auto pow10 = [] {
    std::vector<double> p(309);
    for (int e = 0; e <= 308; ++e) p[static_cast<std::size_t>(e)] = std::strtod(("1e" + std::to_string(e)).c_str(), nullptr);
    return p;
  }();
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  const auto overflows = [](std::uint64_t v, unsigned digit) { return v >= kMax / 10 && (v > kMax / 10 || digit > kMax % 10); };
  std::size_t i = 0;
  const bool positive = t[0] != '-';
  if (!positive) ++i;
  std::uint64_t significand = 0;
  std::int64_t exponent = 0;  // (serde: i32, saturating where it says so)
  bool is_float = false;
  // The integer part: digits past u64 only raise the exponent.
  for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) {
    const unsigned d = static_cast<unsigned>(t[i] - '0');
    if (is_float || overflows(significand, d)) {
      is_float = true;
      ++exponent;
    } else {
      significand = significand * 10 + d;
    }
  }
  if (i < t.size() && t[i] == '.') {
    is_float = true;
    ++i;
    bool dropping = false;
    for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) {
      const unsigned d = static_cast<unsigned>(t[i] - '0');
      if (dropping || overflows(significand, d)) {
        dropping = true;
        continue;
      }
      significand = significand * 10 + d;
      --exponent;
    }
  }
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    is_float = true;
    ++i;
    bool positive_exp = true;
    if (t[i] == '+' || t[i] == '-') positive_exp = t[i++] == '+';
    std::int64_t e = 0;
    for (; i < t.size(); ++i) {
      const int d = t[i] - '0';
      if (e >= std::numeric_limits<std::int32_t>::max() / 10 &&
          (e > std::numeric_limits<std::int32_t>::max() / 10 || d > std::numeric_limits<std::int32_t>::max() % 10)) {
        if (significand != 0 && positive_exp) fail("number " + std::string(t.substr(0, 30)) + " is out of range");
        return positive ? 0.0 : -0.0;
      }
      e = e * 10 + d;
    }
    exponent = positive_exp ? exponent + e : exponent - e;
    exponent = std::clamp<std::int64_t>(exponent, std::numeric_limits<std::int32_t>::min(),
                                        std::numeric_limits<std::int32_t>::max());  // saturating, as serde
  }
  if (!is_float) {
    // An integer: u64, i64, or (a negative beyond i64, or -0) -(significand as f64).
    if (positive) return static_cast<double>(significand);
    if (significand == 0 || significand > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return -static_cast<double>(significand);
    return static_cast<double>(-static_cast<std::int64_t>(significand));
  }
  double f = static_cast<double>(significand);
  for (;;) {
    const std::int64_t magnitude = exponent < 0 ? -exponent : exponent;
    if (magnitude <= 308) {
      if (exponent >= 0) {
        f *= pow10[static_cast<std::size_t>(magnitude)];
        if (std::isinf(f)) fail("number " + std::string(t.substr(0, 30)) + " is out of range");
      } else {
        f /= pow10[static_cast<std::size_t>(magnitude)];
      }
      break;
    }
    if (f == 0.0) break;
    if (exponent >= 0) fail("number " + std::string(t.substr(0, 30)) + " is out of range");
    f /= 1e308;
    exponent += 308;
  }
  return positive ? f : -f;
}

double JsonReader::number() {
  if (peek() != Kind::number) fail("expected a number");
  const std::size_t start = pos_;
  skip_number();
  double v = 0;
  const auto [end, ec] = std::from_chars(text_.data() + start, text_.data() + pos_, v);
  if (ec != std::errc() || end != text_.data() + pos_ || !std::isfinite(v))
    fail("number " + std::string(text_.substr(start, std::min<std::size_t>(pos_ - start, 30))) + " is out of range");
  return v;
}

bool JsonReader::boolean() {
  if (peek() != Kind::boolean) fail("expected true or false");
  const bool v = text_[pos_] == 't';
  literal(v ? "true" : "false");
  return v;
}

void JsonReader::skip() {
  // Iterative, so that deep nesting cannot exhaust the stack.
  std::string stack;  // '{' or '['
  for (;;) {
    switch (peek()) {
      case Kind::object:
      case Kind::array: {
        const char open = text_[pos_++];
        stack += open;
        static_assert(kMaxModelJsonDepth == 64, "the message below says 64");
        if (depth_ + stack.size() > kMaxModelJsonDepth) syntax("nests more than 64 levels");
        ws();
        const char close = open == '{' ? '}' : ']';
        if (pos_ < text_.size() && text_[pos_] == close) {
          ++pos_;
          stack.pop_back();
          break;
        }
        if (open == '{') {
          ws();
          if (pos_ >= text_.size() || text_[pos_] != '"') syntax("expected a key");
          scan_string(false);
          expect(':', "expected ':'");
        }
        continue;  // the first value
      }
      case Kind::string: scan_string(false); break;
      case Kind::number: skip_number(); break;
      case Kind::boolean: literal(text_[pos_] == 't' ? "true" : "false"); break;
      case Kind::null: literal("null"); break;
    }
    // A value ended: close containers or go on to the next value.
    for (;;) {
      if (stack.empty()) {
        first_ = false;
        return;
      }
      ws();
      if (pos_ >= text_.size()) syntax("unexpected end of text");
      const char c = text_[pos_];
      const char close = stack.back() == '{' ? '}' : ']';
      if (c == close) {
        ++pos_;
        stack.pop_back();
        continue;
      }
      if (c != ',') syntax(stack.back() == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
      ++pos_;
      if (stack.back() == '{') {
        ws();
        if (pos_ >= text_.size() || text_[pos_] != '"') syntax("expected a key");
        scan_string(false);
        expect(':', "expected ':'");
      }
      break;
    }
  }
}

void JsonReader::end() {
  ws();
  if (pos_ != text_.size()) syntax("text after the end of the JSON value");
}

}  // namespace embedpe::tj
