#include "model_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <set>
#include <utility>
#include <vector>

#include "embedpe/error.h"
#include "embedpe/message.h"
#include "embedpe/output_file.h"
#include "in_file.h"
#include "sha256.h"

namespace embedpe {

namespace {

using nlohmann::json;

// The DOM, built by SAX so that every object's keys are seen (a key twice is
// refused, not silently the last) and nesting is bounded before anything
// deep is built; top-level members `keep` rejects are checked, then dropped.
// Json: nlohmann::json, or nlohmann::ordered_json (the files embedpe writes, read back in
// their order).
template <class Json>
class Builder : public nlohmann::json_sax<Json> {
  using Base = nlohmann::json_sax<Json>;
  using number_integer_t = typename Base::number_integer_t;
  using number_unsigned_t = typename Base::number_unsigned_t;
  using number_float_t = typename Base::number_float_t;
  using string_t = typename Base::string_t;
  using binary_t = typename Base::binary_t;

 public:
  Builder(const std::string& shown, const std::function<bool(const std::string&)>& keep) : shown_(shown), keep_(keep) {}

  bool null() override { return value(nullptr); }
  bool boolean(bool v) override { return value(v); }
  bool number_integer(number_integer_t v) override { return value(v); }
  bool number_unsigned(number_unsigned_t v) override { return value(v); }
  bool number_float(number_float_t v, const string_t&) override { return value(v); }
  bool string(string_t& v) override { return value(std::move(v)); }
  bool binary(binary_t&) override { return value(nullptr); }  // never produced from JSON text
  bool start_object(std::size_t) override {
    keys_.emplace_back();
    return open(Json::object());
  }
  bool key(string_t& k) override {
    if (!keys_.back().insert(k).second) {
      error_ = shown_ + " gives the key " + json_value_text(json(k)) + " twice in one object; each key must appear once";
      return false;
    }
    if (keys_.size() == 1 && keep_ && !keep_(k)) drop_next_ = true;
    key_ = k;
    return true;
  }
  bool end_object() override {
    keys_.pop_back();
    return close();
  }
  bool start_array(std::size_t) override { return open(Json::array()); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t byte, const std::string&, const nlohmann::detail::exception& e) override {
    not_json(e, " (at byte " + std::to_string(byte) + ")");
    return false;
  }
  void not_json(const nlohmann::detail::exception& e, const std::string& where = "") {
    error_ = shown_ + " is not valid JSON: " + json_parse_reason(e) + where;
  }

  const std::string& shown() const { return shown_; }

  Json root;
  std::string error_;

 private:
  Json* place(Json v) {
    if (stack_.empty()) {
      root = std::move(v);
      return &root;
    }
    Json& top = *stack_.back();
    if (top.is_array()) {
      top.push_back(std::move(v));
      return &top.back();
    }
    Json& slot = top[key_];
    slot = std::move(v);
    return &slot;
  }
  bool value(Json v) {
    if (drop_depth_ > 0) return true;
    if (drop_next_) {
      drop_next_ = false;
      return true;
    }
    place(std::move(v));
    return true;
  }
  bool open(Json empty) {
    if (++depth_ > kMaxModelJsonDepth) {
      error_ = shown_ + " nests more than " + std::to_string(kMaxModelJsonDepth) +
               " levels deep; a model's JSON file is a few levels deep";
      return false;
    }
    if (drop_depth_ > 0) {
      ++drop_depth_;
    } else if (drop_next_) {
      drop_next_ = false;
      drop_depth_ = 1;
    } else {
      stack_.push_back(place(std::move(empty)));
    }
    return true;
  }
  bool close() {
    --depth_;
    if (drop_depth_ > 0) {
      --drop_depth_;
    } else {
      stack_.pop_back();
    }
    return true;
  }

  const std::string& shown_;
  const std::function<bool(const std::string&)>& keep_;
  std::vector<Json*> stack_;
  std::vector<std::set<std::string>> keys_;
  std::string key_;
  std::size_t depth_ = 0, drop_depth_ = 0;
  bool drop_next_ = false;
};

// `text` through a Builder; false with the builder's error_ (or none) when it is refused.
template <class Json>
bool build(std::string_view text, Builder<Json>& builder) {
  if (text.starts_with("\xEF\xBB\xBF")) {
    // nlohmann skips it; Python's json (transformers' reader) refuses it: "Unexpected UTF-8 BOM".
    builder.error_ = builder.shown() + " starts with a UTF-8 byte order mark, which transformers' reader "
                                       "(Python's json.load) refuses";
    return false;
  }
  try {
    return Json::sax_parse(text.begin(), text.end(), &builder, nlohmann::json::input_format_t::json, true) &&
           builder.error_.empty();
  } catch (const nlohmann::json::exception& e) {
    builder.not_json(e);
    return false;
  }
}

}  // namespace

std::optional<std::string> json_overflowing_number(const std::exception& e) {
  if (!dynamic_cast<const json::out_of_range*>(&e)) return std::nullopt;
  // "number overflow parsing '1e999999'": the number is digits, signs and e,
  // so it is safe to repeat, but may be long.
  const std::string what = e.what();
  const std::size_t quote = what.find('\'');
  std::string number = quote == std::string::npos ? std::string() : what.substr(quote + 1);
  if (!number.empty() && number.back() == '\'') number.pop_back();
  if (number.size() > 24) number = number.substr(0, 24) + "... (" + std::to_string(number.size()) + " characters)";
  return number;
}

std::string json_parse_reason(const std::exception& e) {
  if (const auto number = json_overflowing_number(e)) {
    return "the number " + *number + " is out of range: it overflows a double (at most about 1.8e308)";
  }
  // "[json.exception.parse_error.101] parse error at line 1, column 8: syntax
  // error while parsing value - invalid string: ...; last read: '...'": the
  // reason, without the bytes last read (they may be anything).
  const std::string what = e.what();
  const std::size_t dash = what.find(" - ");
  std::string reason = dash == std::string::npos ? what : what.substr(dash + 3);
  if (dash == std::string::npos && reason.starts_with("[json.exception.")) {
    reason = reason.substr(std::min(reason.size(), reason.find("] ") + 2));
  }
  return reason.substr(0, reason.find("; last read:"));
}

std::string json_value_text(const nlohmann::json& value) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 56) + " ...";
  return text;
}

std::string byte_size_text(std::size_t bytes) {
  static constexpr std::pair<std::size_t, const char*> kUnits[] = {{std::size_t(1) << 30, "GiB"},
                                                                  {std::size_t(1) << 20, "MiB"},
                                                                  {std::size_t(1) << 10, "KiB"}};
  for (const auto& [unit, name] : kUnits) {
    if (bytes >= unit && bytes % unit == 0) return std::to_string(bytes / unit) + " " + name;
  }
  return std::to_string(bytes) + " bytes";
}

nlohmann::json parse_model_json(std::string_view text, const std::string& shown,
                                const std::function<bool(const std::string&)>& keep) {
  Builder<json> builder(shown, keep);
  if (!build(text, builder)) throw UsageError(builder.error_.empty() ? shown + " is not valid JSON" : builder.error_);
  return std::move(builder.root);
}

template <class Json>
std::optional<Json> parse_json(std::string_view text) {
  const std::string shown;
  const std::function<bool(const std::string&)> keep_all;  // the builder holds references to both
  Builder<Json> builder(shown, keep_all);
  if (!build(text, builder)) return std::nullopt;
  return std::move(builder.root);
}
template std::optional<nlohmann::json> parse_json(std::string_view text);
template std::optional<nlohmann::ordered_json> parse_json(std::string_view text);

void refuse_missing_pretrained(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 || errno != ENOENT) return;
  throw (Message() << "pretrained " << Verbatim{path}
                   << " does not exist; give a Hugging Face model directory, a tokenizer.json or a .gguf file")
      .usage_error({"pretrained"});
}

std::string ModelFiles::path(const std::string& name) const {
  return dir_.empty() || dir_.back() == '/' ? dir_ + name : dir_ + "/" + name;
}

bool ModelFiles::has(const std::string& name) const {
  struct stat st;
  return ::lstat(path(name).c_str(), &st) == 0;
}

std::string ModelFiles::names_text(std::size_t shown) const {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir_, ec)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  std::string text;
  for (std::size_t i = 0; i < names.size() && i < shown; ++i) text += (i ? ", " : "") + names[i];
  if (names.size() > shown) text += " and " + std::to_string(names.size() - shown) + " more";
  return text;
}

namespace {

// The file at `shown`, whole, or nullopt when nothing is there and `missing_is_none`.
std::optional<std::string> read_capped(const std::string& shown, std::size_t max_bytes, const std::string& what,
                                       bool missing_is_none) {
  const auto open = [&]() -> std::optional<InFile> {
    try {
      const auto not_regular = [&] {
        throw UsageError(shown + " is not a regular file (a FIFO, device or directory is never read as " +
                         (missing_is_none ? "a model's file)" : "an input)"));
      };
      if (missing_is_none) return InFile::if_exists(shown, InFile::Links::follow, shown, not_regular);
      return InFile(shown, InFile::Links::follow, shown, not_regular);
    } catch (const UsageError&) {
      throw;
    } catch (const Error& e) {
      throw UsageError(e.what());  // a file that cannot be read is a bad input, as a bad one is
    }
  };
  const std::optional<InFile> file = open();
  if (!file) return std::nullopt;
  if (file->size() > max_bytes) {
    throw UsageError(shown + " is " + std::to_string(file->size()) + " bytes, more than " + what + " can be (" +
                     byte_size_text(max_bytes) + ")");
  }
  std::string bytes;
  try {
    bytes = file->read_at(0, file->size());
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  if (bytes.size() < file->size()) throw UsageError(shown + " is shorter than it was when opened");
  return bytes;
}

}  // namespace

std::string read_input_file(const std::string& path, std::size_t max_bytes, const std::string& what) {
  return *read_capped(path, max_bytes, what, false);
}

nlohmann::json read_json_file(const std::string& path, std::size_t max_bytes, const std::string& what) {
  return parse_model_json(read_input_file(path, max_bytes, what), path);
}

std::optional<std::string> ModelFiles::read(const std::string& name, std::size_t max_bytes, const std::string& what) {
  std::optional<std::string> bytes = read_capped(path(name), max_bytes, what, true);
  if (bytes) hashes_[name] = sha256_hex(*bytes);
  return bytes;
}

void ModelFiles::note(const std::string& name) const {
  const std::string shown = path(name);
  const int fd = ::open(shown.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return;
  struct stat st;
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  try {
    if (regular) note_input(fd, shown);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
}

void ModelFiles::note_model_files() const {
  static constexpr const char* kNames[] = {
      "config.json",          "generation_config.json", "tokenizer.json",  "tokenizer_config.json",
      "special_tokens_map.json", "added_tokens.json",   "vocab.json",      "vocab.txt",
      "merges.txt",           "tokenizer.model",        "spiece.model",    "sentencepiece.bpe.model",
      "model.safetensors.index.json", "pytorch_model.bin.index.json"};
  for (const char* name : kNames) note(name);
  std::error_code listed;
  for (const auto& e : std::filesystem::directory_iterator(dir_, listed)) {
    const std::string name = e.path().filename().string();
    const bool weights = (name.starts_with("model") && name.ends_with(".safetensors")) ||
                         (name.starts_with("pytorch_model") && name.ends_with(".bin"));
    if (weights || name.ends_with(".model")) note(name);
  }
}

std::optional<nlohmann::json> ModelFiles::json(const std::string& name, std::size_t max_bytes,
                                               const std::function<bool(const std::string&)>& keep) {
  const std::optional<std::string> text = read(name, max_bytes, "a model's JSON file");
  if (!text) return std::nullopt;
  return parse_model_json(*text, path(name), keep);
}

std::string ModelFiles::digest() const {
  Sha256 h;
  for (const auto& [name, hex] : hashes_) h.update(hex + "  " + name + "\n");
  return h.hex();
}

}  // namespace embedpe
