// Private: a validating pull reader of JSON text, for tokenizer.json's model
// section (tj_model.h), which is too big for a DOM to be cheap.
//
//   tj::JsonReader r(text, "tokenizer.json", "model");
//   r.begin_object();
//   while (auto key = r.next_key()) { ... r.string() / r.integer() / r.skip() ... }
//
// It accepts what nlohmann::json::parse accepts (RFC 8259, UTF-8 strings,
// \u escapes with surrogate pairs) and reports anything else as a UsageError of
// one line naming the file, the field being read and the byte offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace embedpe::tj {

class JsonReader {
 public:
  enum class Kind { object, array, string, number, boolean, null };

  // `field` names the value `text` holds in messages ("model").
  JsonReader(std::string_view text, const std::string& shown, std::string field);

  Kind peek();  // the kind of the next value (skips whitespace)
  bool at_null();  // true (and consumed) if the next value is null

  void begin_object();
  // The next member's key (the reader then stands before its value), or
  // nullopt at the closing brace (consumed). The view lives until the next call.
  std::optional<std::string_view> next_key();
  void begin_array();
  // True if another element follows (the reader stands before it); false at
  // the closing bracket (consumed).
  bool next_element();

  // A string value, unescaped. The view lives until the next call (a view into
  // the text where it has no escapes).
  std::string_view string();
  // An integer value (no fraction or exponent), range-checked.
  std::int64_t integer();
  double number();
  // A number's text as written (validated as a JSON number).
  std::string_view raw_number();
  // A number as serde_json 1.0.149 reads it into an f64 without its
  // float_roundtrip feature, as HF tokenizers is built: the decimal
  // significand (digits past u64 dropped) as a double, then one multiply or
  // divide by a power of ten, so not always the nearest double (-16.427407879097371
  // reads as -16.427407879097373). Out of range (as serde says it): fail().
  double serde_number();
  bool boolean();
  void skip();  // any value, validated

  // Ends the text: only whitespace may follow.
  void end();

  // Where the reader stands, to come back to (a second look at an object).
  struct Mark {
    std::size_t pos;
    bool first;
    int depth;
  };
  Mark mark() const { return {pos_, first_, depth_}; }
  void restore(const Mark& m) {
    pos_ = m.pos;
    first_ = m.first;
    depth_ = m.depth;
  }
  const std::string& shown() const { return shown_; }

  // The dotted path of the value being read, for messages ("model.vocab['a']").
  // Callers keep it up to date through push/pop (set_path: a whole new one).
  void set_path(std::string path) { path_ = std::move(path); }
  void push(std::string_view part) { path_.append(part); }
  void push_index(std::size_t index);     // "[12]"
  void push_key(std::string_view key);    // "['key']"
  void pop(std::size_t size) { path_.resize(size); }
  std::size_t path_size() const { return path_.size(); }
  const std::string& path() const { return path_; }
  std::size_t offset() const { return pos_; }

  // A UsageError "<shown>: <path>: <what>".
  [[noreturn]] void fail(const std::string& what) const;
  [[noreturn]] void fail_at(const std::string& path, const std::string& what) const;

 private:
  [[noreturn]] void syntax(const char* what) const;
  void ws();
  void expect(char c, const char* what);
  std::string_view scan_string(bool keep);
  void skip_number();
  void literal(std::string_view word);

  std::string_view text_;
  std::size_t pos_ = 0;
  const std::string& shown_;
  std::string path_;
  std::string buffer_;  // unescaped strings
  // Containers: whether the next member/element is the first.
  bool first_ = false;
  int depth_ = 0;
};

// A string quoted for a message: 'abc', at most 40 characters, control
// characters escaped.
std::string in_quotes(std::string_view s);

}  // namespace embedpe::tj
