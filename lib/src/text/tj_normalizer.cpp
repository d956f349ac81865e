#include "tj_normalizer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>
#include <vector>

#include "charsmap.h"
#include "model_files.h"
#include "tj_fields.h"
#include "tj_regex.h"
#include "tj_unicode.h"

namespace embedpe::tj {

void Normalizer::normalize_lead(std::string& text, std::uint32_t& lead) const {
  if (lead == 0) {  // no character of the result starts at offset 0: none is inserted before the first
    normalize(text);
    return;
  }
  std::string head = text.substr(0, lead);
  normalize(text);
  normalize(head);
  lead = static_cast<std::uint32_t>(std::min(head.size(), text.size()));
}

namespace {

std::size_t count_chars(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// NormalizedString::transform's alignments of the first bytes, fed one (char, change) at a time
// (change: 0 replaces the next character of the input, -n replaces it and drops n more, 1 is
// inserted and takes the alignment of the byte before). Counts the bytes of the result aligned
// with offset 0 while they last: the input's first `lead` bytes are.
class LeadOfTransform {
 public:
  LeadOfTransform(std::string_view input, std::uint32_t lead) : input_(input), lead_(lead) {}
  // False once a character is not aligned with offset 0 (no later one is: offsets only grow).
  bool feed(std::size_t char_bytes, long change) {
    if (!open_) return false;
    const bool zero = change > 0 ? (pos_ < 1 || pos_ - 1 < lead_) : pos_ < lead_;
    if (!zero) return open_ = false;
    out_ += char_bytes;
    if (change <= 0) skip(1);
    if (change < 0) skip(static_cast<std::size_t>(-change));
    return true;
  }
  std::uint32_t lead() const { return static_cast<std::uint32_t>(out_); }
  bool open() const { return open_; }

 private:
  void skip(std::size_t chars) {
    for (; chars > 0 && pos_ < input_.size(); --chars) next_char(input_, pos_);
  }
  std::string_view input_;
  std::size_t lead_, pos_ = 0, out_ = 0;
  bool open_ = true;
};

class Unicode final : public Normalizer {
 public:
  explicit Unicode(NormalForm form) : form_(form) {}
  void normalize(std::string& text) const override { text = tj::normalize(text, form_); }

 private:
  NormalForm form_;
};

class Lowercase final : public Normalizer {
 public:
  void normalize(std::string& text) const override { text = lowercase(text); }
};

// Keeps the characters `keep` accepts.
template <class Keep>
void filter(std::string& text, Keep keep) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t at = i;
    if (keep(next_char(text, i))) out.append(text, at, i - at);
  }
  text = std::move(out);
}

class StripAccents final : public Normalizer {
 public:
  void normalize(std::string& text) const override {
    filter(text, [](char32_t c) { return !is_mark(c); });
  }
};

// NormalizedString::lstrip/rstrip: char::is_whitespace.
void strip(std::string& text, bool left, bool right, std::uint32_t* lead = nullptr) {
  std::size_t begin = 0, end = text.size();
  if (left) {
    while (begin < end) {
      std::size_t i = begin;
      if (!is_whitespace(next_char(text, i))) break;
      begin = i;
    }
  }
  if (right) {
    while (end > begin) {
      std::size_t start = end - 1;
      while (start > begin && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
      std::size_t i = start;
      if (!is_whitespace(next_char(text, i))) break;
      end = start;
    }
  }
  text = text.substr(begin, end - begin);
  if (lead) {  // the kept characters keep their alignments
    *lead = static_cast<std::uint32_t>(std::min<std::size_t>(begin < *lead ? *lead - begin : 0, text.size()));
  }
}

class Strip final : public Normalizer {
 public:
  Strip(bool left, bool right) : left_(left), right_(right) {}
  void normalize(std::string& text) const override { strip(text, left_, right_); }
  void normalize_lead(std::string& text, std::uint32_t& lead) const override { strip(text, left_, right_, &lead); }

 private:
  bool left_, right_;
};

bool is_chinese_char(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

class Bert final : public Normalizer {
 public:
  Bert(bool clean_text, bool chinese, bool strip_accents, bool lowercase)
      : clean_text_(clean_text), chinese_(chinese), strip_accents_(strip_accents), lowercase_(lowercase) {}
  void normalize(std::string& text) const override {
    if (clean_text_ || chinese_) {
      std::string out;
      out.reserve(text.size());
      for (std::size_t i = 0; i < text.size();) {
        const std::size_t at = i;
        char32_t c = next_char(text, i);
        if (clean_text_) {
          const bool control = c != '\t' && c != '\n' && c != '\r' && is_other(c);
          if (c == 0 || c == 0xFFFD || control) continue;
          if (c == '\t' || c == '\n' || c == '\r' || is_whitespace(c)) c = ' ';
        }
        if (chinese_ && is_chinese_char(c)) {
          out += ' ';
          out.append(text, at, i - at);
          out += ' ';
        } else if (c == ' ') {
          out += ' ';
        } else {
          out.append(text, at, i - at);
        }
      }
      text = std::move(out);
    }
    if (strip_accents_) {
      text = tj::normalize(text, NormalForm::nfd);
      filter(text, [](char32_t c) { return !is_mark_nonspacing(c); });
    }
    if (lowercase_) text = tj::lowercase(text);
  }

 private:
  bool clean_text_, chinese_, strip_accents_, lowercase_;
};

// Nmt: ASCII control characters dropped, other spaces and U+2581 made ' '.
class Nmt final : public Normalizer {
 public:
  void normalize(std::string& text) const override {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
      const std::size_t at = i;
      const char32_t c = next_char(text, i);
      if ((c >= 0x01 && c <= 0x08) || c == 0x0B || (c >= 0x0E && c <= 0x1F) || c == 0x7F || c == 0x8F || c == 0x9F) continue;
      if (c == 0x09 || c == 0x0A || c == 0x0C || c == 0x0D || c == 0x1680 || (c >= 0x200B && c <= 0x200F) || c == 0x2028 ||
          c == 0x2029 || c == 0x2581 || c == 0xFEFF || c == 0xFFFD) {
        out += ' ';
      } else {
        out.append(text, at, i - at);
      }
    }
    text = std::move(out);
  }
};

class Replace final : public Normalizer {
 public:
  Replace(Regex regex, std::string content) : regex_(std::move(regex)), content_(std::move(content)) {}
  void normalize(std::string& text) const override { regex_.replace_all(text, content_); }
  void normalize_lead(std::string& text, std::uint32_t& lead) const override { regex_.replace_all(text, content_, &lead); }

 private:
  Regex regex_;
  std::string content_;
};

class Prepend final : public Normalizer {
 public:
  explicit Prepend(std::string prefix) : prefix_(std::move(prefix)) {}
  void normalize(std::string& text) const override {
    if (!text.empty()) prepend(text, prefix_);
  }
  // NormalizedString::prepend: the new characters take the alignment of the first one.
  void normalize_lead(std::string& text, std::uint32_t& lead) const override {
    if (text.empty()) return;
    prepend(text, prefix_);
    if (lead > 0) lead += static_cast<std::uint32_t>(prefix_.size());
  }

 private:
  std::string prefix_;
};

// spm_precompiled's base64 (the base64 crate's STANDARD engine): the standard
// alphabet, '=' padding to a multiple of 4, no other byte, no stray bits.
std::optional<std::string> decode_base64(std::string_view text) {
  const auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const std::size_t pad = last ? (text[i + 3] == '=') + (text[i + 2] == '=' && text[i + 3] == '=') : 0;
    std::uint32_t bits = 0;
    for (std::size_t k = 0; k < 4 - pad; ++k) {
      const int v = value(text[i + k]);
      if (v < 0) return std::nullopt;
      bits = bits << 6 | static_cast<std::uint32_t>(v);
    }
    bits <<= 6 * pad;
    if ((pad == 1 && (bits & 0xFF)) || (pad == 2 && (bits & 0xFFFF))) return std::nullopt;
    out += static_cast<char>(bits >> 16);
    if (pad < 2) out += static_cast<char>((bits >> 8) & 0xFF);
    if (pad < 1) out += static_cast<char>(bits & 0xFF);
  }
  return out;
}

// Precompiled (tokenizers/src/normalizers/precompiled.rs over the
// spm_precompiled crate): each extended grapheme cluster shorter than 6 bytes
// is looked up whole first; otherwise, or when that finds nothing, each of its
// characters alone. A lookup takes the *first* (shortest) key of the charsmap
// that starts the chunk (cut at a NUL), and the chunk becomes that key's
// string, whatever follows the key in the chunk.
class Precompiled final : public Normalizer {
 public:
  Precompiled(std::string blob, const std::string& field) : blob_(std::move(blob)) {
    std::string why;
    std::optional<Charsmap> map = Charsmap::parse(blob_, &why);
    if (!map || !map->check_reachable(&why)) refuse(field, "is not a SentencePiece charsmap: " + why);
    map_ = *map;
  }
  void normalize(std::string& text) const override {
    std::string out;
    out.reserve(text.size());
    bool modified = false;
    for (std::size_t i = 0; i < text.size();) {
      const std::size_t end = grapheme_end(text, i);
      const std::string_view grapheme = std::string_view(text).substr(i, end - i);
      i = end;
      if (grapheme.size() < 6 && transform(grapheme, out)) {
        modified = true;
        continue;
      }
      for (std::size_t k = 0; k < grapheme.size();) {
        const std::size_t at = k;
        next_char(grapheme, k);
        const std::string_view part = grapheme.substr(at, k - at);
        if (transform(part, out)) {
          modified = true;
        } else {
          out += part;
        }
      }
    }
    if (modified) text = std::move(out);
  }
  // precompiled.rs's transformations, fed to LeadOfTransform as they are made: replace() gives a
  // chunk's new characters change 0, the ones beyond the old count 1, and folds a shortfall into
  // the last transformation made so far (an earlier chunk's; none at the start, where HF then
  // aligns what follows with the dropped characters), so the last one is held back.
  void normalize_lead(std::string& text, std::uint32_t& lead) const override {
    LeadOfTransform t(text, lead);
    struct Change {
      std::size_t bytes;
      long change;
    };
    std::vector<Change> pending;
    std::string form;
    const auto replace = [&](std::string_view old_part, std::string_view new_part) {
      const long old_count = static_cast<long>(count_chars(old_part)), new_count = static_cast<long>(count_chars(new_part));
      for (std::size_t k = 0; k < new_part.size();) {
        const std::size_t at = k;
        next_char(new_part, k);
        pending.push_back({k - at, 0});
      }
      if (new_count > old_count) {
        for (std::size_t k = pending.size() - static_cast<std::size_t>(new_count - old_count); k < pending.size(); ++k) pending[k].change = 1;
      } else if (new_count < old_count && !pending.empty()) {
        pending.back().change += new_count - old_count;
      }
    };
    const auto flush = [&](bool all) {  // feeds every pending transformation but the last
      const std::size_t n = all ? pending.size() : (pending.empty() ? 0 : pending.size() - 1);
      for (std::size_t k = 0; k < n; ++k) t.feed(pending[k].bytes, pending[k].change);
      pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(n));
    };
    for (std::size_t i = 0; i < text.size();) {
      const std::size_t end = grapheme_end(text, i);
      const std::string_view grapheme = std::string_view(text).substr(i, end - i);
      i = end;
      form.clear();
      if (grapheme.size() < 6 && transform(grapheme, form)) {
        replace(grapheme, form);
      } else {
        for (std::size_t k = 0; k < grapheme.size();) {
          const std::size_t at = k;
          next_char(grapheme, k);
          const std::string_view part = grapheme.substr(at, k - at);
          form.clear();
          if (transform(part, form)) {
            replace(part, form);
          } else {
            pending.push_back({part.size(), 0});
          }
        }
      }
      flush(false);
      if (!t.open()) break;
    }
    flush(true);
    lead = t.lead();
    normalize(text);
  }

 private:
  // Appends the chunk's form and answers true, or false when no key starts it.
  bool transform(std::string_view chunk, std::string& out) const {
    chunk = chunk.substr(0, chunk.find('\0'));
    std::optional<std::string_view> form;
    map_.prefixes(chunk, [&](std::size_t, std::uint32_t value) {
      form = map_.string_at(value);  // in the strings: check_reachable saw every leaf
      return false;
    });
    if (!form) return false;
    out += *form;
    return true;
  }

  std::string blob_;
  Charsmap map_;  // views into blob_
};

class Sequence final : public Normalizer {
 public:
  explicit Sequence(std::vector<std::unique_ptr<Normalizer>> parts) : parts_(std::move(parts)) {}
  void normalize(std::string& text) const override {
    for (const auto& p : parts_) p->normalize(text);
  }
  void normalize_lead(std::string& text, std::uint32_t& lead) const override {
    for (const auto& p : parts_) p->normalize_lead(text, lead);
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> parts_;
};

}  // namespace

// Replace's and Split's {"String": s} or {"Regex": r}.
Regex load_pattern(const nlohmann::json& object, const std::string& field) {
  const nlohmann::json& p = member(object, "pattern", field);
  const std::string f = field + ".pattern";
  if (p.is_object() && p.size() == 1 && p.begin().value().is_string()) {
    const std::string value = p.begin().value().get<std::string>();
    if (p.begin().key() == "String") return Regex::literal(value, f + ".String");
    if (p.begin().key() == "Regex") return Regex(value, f + ".Regex");
  }
  refuse(f, "is " + json_value_text(p) + ", not {\"String\": ...} or {\"Regex\": ...}");
}

std::unique_ptr<Normalizer> load_normalizer(const nlohmann::json& section, const std::string& field) {
  if (section.is_null()) return nullptr;
  const std::string type = type_of(section, field);
  if (type == "NFC") return std::make_unique<Unicode>(NormalForm::nfc);
  if (type == "NFD") return std::make_unique<Unicode>(NormalForm::nfd);
  if (type == "NFKC") return std::make_unique<Unicode>(NormalForm::nfkc);
  if (type == "NFKD") return std::make_unique<Unicode>(NormalForm::nfkd);
  if (type == "Lowercase") return std::make_unique<Lowercase>();
  if (type == "Nmt") return std::make_unique<Nmt>();
  if (type == "StripAccents") return std::make_unique<StripAccents>();
  if (type == "Strip") {
    return std::make_unique<Strip>(boolean(section, "strip_left", field), boolean(section, "strip_right", field));
  }
  if (type == "BertNormalizer") {
    const bool lower = boolean(section, "lowercase", field);
    bool accents = lower;
    if (const nlohmann::json* s = optional_member(section, "strip_accents")) {
      if (!s->is_boolean()) refuse(field + ".strip_accents", "is " + json_value_text(*s) + ", not true, false or null");
      accents = s->get<bool>();
    }
    return std::make_unique<Bert>(boolean(section, "clean_text", field), boolean(section, "handle_chinese_chars", field),
                                  accents, lower);
  }
  if (type == "Replace") {
    return std::make_unique<Replace>(load_pattern(section, field), string(section, "content", field));
  }
  if (type == "Prepend") return std::make_unique<Prepend>(string(section, "prepend", field));
  if (type == "Precompiled") {
    const std::string f = field + ".precompiled_charsmap";
    std::optional<std::string> blob = decode_base64(string(section, "precompiled_charsmap", field));
    if (!blob) refuse(f, "is not base64 (the standard alphabet, padded with '=')");
    return std::make_unique<Precompiled>(std::move(*blob), f);
  }
  if (type == "Sequence") {
    const nlohmann::json& list = member(section, "normalizers", field);
    if (!list.is_array()) refuse(field + ".normalizers", "is not a list");
    std::vector<std::unique_ptr<Normalizer>> parts;
    for (std::size_t i = 0; i < list.size(); ++i) {
      auto part = load_normalizer(list[i], field + ".normalizers[" + std::to_string(i) + "]");
      if (!part) refuse(field + ".normalizers[" + std::to_string(i) + "]", "is null, not a normalizer");
      parts.push_back(std::move(part));
    }
    return std::make_unique<Sequence>(std::move(parts));
  }
  refuse(field + ".type", "'" + type +
                              "' is not a normalizer embedpe supports (NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, "
                              "Strip, BertNormalizer, Nmt, Replace, Prepend, Precompiled, Sequence)");
}

}  // namespace embedpe::tj
