#include "tj_post.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <optional>

#include "byte_piece.h"
#include "embedpe/error.h"
#include "model_files.h"
#include "tj_fields.h"
#include "tj_model.h"
#include "tj_normalizer.h"
#include "tj_regex.h"
#include "tj_unicode.h"

namespace embedpe::tj {

namespace {

struct SpecialToken {
  std::vector<std::int32_t> ids;
  std::vector<std::string> tokens;
};

class Template final : public PostProcessor {
 public:
  struct Item {
    bool sequence;      // a Sequence piece (A or B), else a SpecialToken
    bool b = false;     // Sequence B
    std::string token;  // SpecialToken's id
    std::int32_t type_id = 0;
  };
  Template(std::vector<Item> single, std::vector<Item> pair, std::map<std::string, SpecialToken> specials)
      : single_(std::move(single)), pair_(std::move(pair)), specials_(std::move(specials)) {}
  std::size_t added_tokens(bool pair) const override {
    std::size_t n = 0;
    for (const Item& i : pair ? pair_ : single_) {
      if (!i.sequence) n += specials_.at(i.token).ids.size();
    }
    return n;
  }
  void process(std::vector<Encoded>& encodings, bool add_special_tokens) const override {
    std::vector<Encoded> out;
    for (const Item& i : encodings.size() == 2 ? pair_ : single_) {
      if (i.sequence) {
        Encoded e = encodings[i.b ? 1 : 0];
        e.types.assign(e.ids.size(), i.type_id);
        out.push_back(std::move(e));
      } else if (add_special_tokens) {
        const SpecialToken& t = specials_.at(i.token);
        out.push_back(Encoded{t.ids, t.tokens, std::vector<std::int32_t>(t.ids.size(), i.type_id)});
      }
    }
    encodings = std::move(out);
  }

 private:
  std::vector<Item> single_, pair_;
  std::map<std::string, SpecialToken> specials_;
};

// RobertaProcessing (<s> A </s></s> B </s>, type ids all 0) and BertProcessing
// ([CLS] A [SEP] B [SEP], B's type ids 1).
class ClsSep final : public PostProcessor {
 public:
  ClsSep(bool roberta, std::pair<std::string, std::int32_t> cls, std::pair<std::string, std::int32_t> sep)
      : roberta_(roberta), cls_(std::move(cls)), sep_(std::move(sep)) {}
  std::size_t added_tokens(bool pair) const override { return pair ? (roberta_ ? 4 : 3) : 2; }
  void process(std::vector<Encoded>& encodings, bool add_special_tokens) const override {
    if (roberta_) {
      for (Encoded& e : encodings) e.types.assign(e.ids.size(), 0);
    }
    if (!add_special_tokens) return;
    for (std::size_t i = 0; i < encodings.size(); ++i) {
      Encoded& e = encodings[i];
      const std::int32_t type = roberta_ ? 0 : static_cast<std::int32_t>(i);
      const auto& front = i == 0 ? cls_ : sep_;
      if (i == 0 || roberta_) {
        e.ids.insert(e.ids.begin(), front.second);
        e.tokens.insert(e.tokens.begin(), front.first);
        e.types.insert(e.types.begin(), i == 0 ? 0 : type);
      }
      e.ids.push_back(sep_.second);
      e.tokens.push_back(sep_.first);
      e.types.push_back(type);
    }
  }

 private:
  bool roberta_;
  std::pair<std::string, std::int32_t> cls_, sep_;
};

class ByteLevelPost final : public PostProcessor {
 public:
  std::size_t added_tokens(bool) const override { return 0; }
  void process(std::vector<Encoded>&, bool) const override {}  // offsets only
};

class SequencePost final : public PostProcessor {
 public:
  explicit SequencePost(std::vector<std::unique_ptr<PostProcessor>> parts) : parts_(std::move(parts)) {}
  std::size_t added_tokens(bool pair) const override {
    std::size_t n = 0;
    for (const auto& p : parts_) n += p->added_tokens(pair);
    return n;
  }
  void process(std::vector<Encoded>& encodings, bool add_special_tokens) const override {
    for (const auto& p : parts_) p->process(encodings, add_special_tokens);
  }

 private:
  std::vector<std::unique_ptr<PostProcessor>> parts_;
};

std::pair<std::string, std::int32_t> token_and_id(const nlohmann::json& section, const char* key,
                                                  const std::string& field) {
  const nlohmann::json& v = member(section, key, field);
  const std::string f = field + "." + key;
  if (!v.is_array() || v.size() != 2 || !v[0].is_string()) refuse(f, "is " + json_value_text(v) + ", not [token, id]");
  return {v[0].get<std::string>(), id(v[1], f + "[1]")};
}

std::vector<Template::Item> load_template(const nlohmann::json& section, const char* key, const std::string& field,
                                          const std::map<std::string, SpecialToken>& specials) {
  const nlohmann::json& list = member(section, key, field);
  const std::string f = field + "." + key;
  if (!list.is_array()) refuse(f, "is not a list (a template given as a string is not read; HF writes lists)");
  std::vector<Template::Item> items;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string fi = f + "[" + std::to_string(i) + "]";
    const nlohmann::json& item = list[i];
    if (!item.is_object() || item.size() != 1) refuse(fi, "is " + json_value_text(item) + ", not {\"Sequence\": ...} or {\"SpecialToken\": ...}");
    const std::string kind = item.begin().key();
    const nlohmann::json& body = item.begin().value();
    Template::Item t;
    if (kind == "Sequence") {
      t.sequence = true;
      const std::string which = string(body, "id", fi + ".Sequence");
      if (which != "A" && which != "B") refuse(fi + ".Sequence.id", "is '" + which + "', not A or B");
      t.b = which == "B";
    } else if (kind == "SpecialToken") {
      t.sequence = false;
      t.token = string(body, "id", fi + ".SpecialToken");
      if (!specials.count(t.token)) refuse(fi + ".SpecialToken.id", "'" + t.token + "' is not in special_tokens");
    } else {
      refuse(fi, "'" + kind + "' is not Sequence or SpecialToken");
    }
    const std::uint64_t type = unsigned_number(member(body, "type_id", fi + "." + kind), fi + "." + kind + ".type_id");
    if (type > 0x7fffffff) refuse(fi + "." + kind + ".type_id", "is beyond int32");
    t.type_id = static_cast<std::int32_t>(type);
    items.push_back(std::move(t));
  }
  return items;
}

}  // namespace

std::unique_ptr<PostProcessor> load_post_processor(const nlohmann::json& section, const std::string& field) {
  if (section.is_null()) return nullptr;
  const std::string type = type_of(section, field);
  if (type == "TemplateProcessing") {
    std::map<std::string, SpecialToken> specials;
    const nlohmann::json& s = member(section, "special_tokens", field);
    if (!s.is_object()) refuse(field + ".special_tokens", "is not an object");
    for (auto it = s.begin(); it != s.end(); ++it) {
      const std::string f = field + ".special_tokens." + it.key();
      SpecialToken t;
      const nlohmann::json& ids = member(it.value(), "ids", f);
      const nlohmann::json& tokens = member(it.value(), "tokens", f);
      if (!ids.is_array() || !tokens.is_array() || ids.size() != tokens.size()) {
        refuse(f, "needs as many ids as tokens");
      }
      for (std::size_t i = 0; i < ids.size(); ++i) {
        t.ids.push_back(id(ids[i], f + ".ids[" + std::to_string(i) + "]"));
        if (!tokens[i].is_string()) refuse(f + ".tokens[" + std::to_string(i) + "]", "is not a string");
        t.tokens.push_back(tokens[i].get<std::string>());
      }
      specials.emplace(string(it.value(), "id", f), std::move(t));
    }
    auto single = load_template(section, "single", field, specials);
    auto pair = load_template(section, "pair", field, specials);
    return std::make_unique<Template>(std::move(single), std::move(pair), std::move(specials));
  }
  if (type == "RobertaProcessing" || type == "BertProcessing") {
    return std::make_unique<ClsSep>(type == "RobertaProcessing", token_and_id(section, "cls", field),
                                    token_and_id(section, "sep", field));
  }
  if (type == "ByteLevel") return std::make_unique<ByteLevelPost>();
  if (type == "Sequence") {
    const nlohmann::json& list = member(section, "processors", field);
    if (!list.is_array()) refuse(field + ".processors", "is not a list");
    std::vector<std::unique_ptr<PostProcessor>> parts;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string f = field + ".processors[" + std::to_string(i) + "]";
      auto part = load_post_processor(list[i], f);
      if (!part) refuse(f, "is null, not a post-processor");
      parts.push_back(std::move(part));
    }
    return std::make_unique<SequencePost>(std::move(parts));
  }
  refuse(field + ".type", "'" + type +
                              "' is not a post-processor embedpe supports (TemplateProcessing, RobertaProcessing, "
                              "BertProcessing, ByteLevel, Sequence)");
}

std::string utf8_lossy(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  while (i < s.size()) {
    const unsigned char b = byte(i);
    if (b < 0x80) {
      out += static_cast<char>(b);
      ++i;
      continue;
    }
    // The length and the allowed range of the second byte (Rust's / Unicode's table 3-7).
    std::size_t need = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) {
      need = 1;
    } else if (b >= 0xE0 && b <= 0xEF) {
      need = 2;
      if (b == 0xE0) lo = 0xA0;
      if (b == 0xED) hi = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
      need = 3;
      if (b == 0xF0) lo = 0x90;
      if (b == 0xF4) hi = 0x8F;
    }
    if (need == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    bool ok = true;
    for (std::size_t k = 0; k < need; ++k, ++j) {
      if (j >= s.size()) {
        ok = false;
        break;
      }
      const unsigned char c = byte(j);
      const unsigned char l = k == 0 ? lo : 0x80, h = k == 0 ? hi : 0xBF;
      if (c < l || c > h) {
        ok = false;
        break;
      }
    }
    if (ok) {
      out.append(s, i, need + 1);
    } else {
      out += "\xEF\xBF\xBD";
    }
    i = j;
  }
  return out;
}

namespace {

bool is_byte_level_char(std::string_view token, std::string& bytes) {
  bytes.clear();
  for (std::size_t i = 0; i < token.size();) {
    const char32_t c = next_char(token, i);
    int b = -1;
    if ((c >= '!' && c <= '~') || (c >= 0xA1 && c <= 0xAC) || (c >= 0xAE && c <= 0xFF)) {
      b = static_cast<int>(c);
    } else if (c >= 0x100 && c < 0x100 + 68) {
      // 256 + n: the n-th byte not in the printable ranges, in order.
      int n = static_cast<int>(c - 0x100);
      for (int x = 0; x < 256; ++x) {
        const bool printable = (x >= '!' && x <= '~') || (x >= 0xA1 && x <= 0xAC) || (x >= 0xAE && x <= 0xFF);
        if (printable) continue;
        if (n-- == 0) {
          b = x;
          break;
        }
      }
    }
    if (b < 0) return false;
    bytes += static_cast<char>(b);
  }
  return true;
}

class ByteLevelDecoder final : public Decoder {
 public:
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::string all, bytes;
    for (const std::string& t : tokens) {
      if (is_byte_level_char(t, bytes)) {
        all += bytes;
      } else {
        all += t;
      }
    }
    tokens.assign(1, utf8_lossy(all));
  }
};

class MetaspaceDecoder final : public Decoder {
 public:
  MetaspaceDecoder(char32_t replacement, bool prepends) : prepends_(prepends) { append_utf8(replacement_, replacement); }
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      std::string out;
      const std::string& t = tokens[i];
      for (std::size_t k = 0; k < t.size();) {
        if (t.compare(k, replacement_.size(), replacement_) == 0) {
          if (!(i == 0 && prepends_)) out += ' ';
          k += replacement_.size();
        } else {
          out += t[k++];
        }
      }
      tokens[i] = std::move(out);
    }
  }

 private:
  std::string replacement_;
  bool prepends_;
};

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  std::string out;
  std::size_t last = 0;
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, last)) {
    out.append(s, last, at - last);
    out += to;
    last = at + from.size();
  }
  out.append(s, last);
  s = std::move(out);
}

class WordPieceDecoder final : public Decoder {
 public:
  WordPieceDecoder(std::string prefix, bool cleanup) : prefix_(std::move(prefix)), cleanup_(cleanup) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      std::string& t = tokens[i];
      if (i != 0) {
        if (t.compare(0, prefix_.size(), prefix_) == 0) {
          t.erase(0, prefix_.size());
        } else {
          prepend(t, " ");
        }
      }
      if (cleanup_) {
        static constexpr std::pair<std::string_view, std::string_view> kCleanup[] = {
            {" .", "."},     {" ?", "?"},     {" !", "!"},     {" ,", ","},           {" ' ", "'"},   {" n't", "n't"},
            {" 'm", "'m"},   {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
        for (const auto& [from, to] : kCleanup) replace_all(t, from, to);
      }
    }
  }

 private:
  std::string prefix_;
  bool cleanup_;
};

class ByteFallbackDecoder final : public Decoder {
 public:
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::vector<std::string> out;
    std::string pending;
    auto flush = [&] {
      if (pending.empty()) return;
      if (utf8_lossy(pending) == pending) {
        out.push_back(pending);
      } else {
        for (std::size_t k = 0; k < pending.size(); ++k) out.emplace_back("\xEF\xBF\xBD");
      }
      pending.clear();
    };
    for (std::string& t : tokens) {
      const int value = byte_piece::byte_fallback_byte(t);
      if (value >= 0) {
        pending += static_cast<char>(value);
      } else {
        flush();
        out.push_back(std::move(t));
      }
    }
    flush();
    tokens = std::move(out);
  }
};

class FuseDecoder final : public Decoder {
 public:
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::string all;
    for (const std::string& t : tokens) all += t;
    tokens.assign(1, std::move(all));
  }
};

class StripDecoder final : public Decoder {
 public:
  StripDecoder(char32_t content, std::size_t start, std::size_t stop, std::string field)
      : content_(content), start_(start), stop_(stop), field_(std::move(field)) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (std::string& t : tokens) {
      std::vector<char32_t> chars;
      for (std::size_t i = 0; i < t.size();) chars.push_back(next_char(t, i));
      // decoders/strip.rs cuts from the end with `chars.len() - i - 1` and slices
      // chars[start_cut..stop_cut]: a token of content characters alone (or empty) fewer than
      // min(start, len) + stop makes the index go below 0 or the slice run backwards, and HF
      // panics. No answer to copy: this decode fails.
      if (std::all_of(chars.begin(), chars.end(), [this](char32_t c) { return c == content_; }) &&
          std::min(start_, chars.size()) + stop_ > chars.size()) {
        throw Error(field_ + " (Strip, start " + std::to_string(start_) + ", stop " + std::to_string(stop_) +
                    "): the token " + json_value_text(nlohmann::json(t)) +
                    " is its content character alone, too few of them to strip; HF tokenizers 0.22 panics there, "
                    "so there is no decode to give");
      }
      std::size_t start_cut = 0;
      for (std::size_t i = 0; i < std::min(start_, chars.size()); ++i) {
        if (chars[i] != content_) break;
        start_cut = i + 1;
      }
      std::size_t stop_cut = chars.size();
      for (std::size_t i = 0; i < stop_ && i < chars.size(); ++i) {
        const std::size_t index = chars.size() - i - 1;
        if (chars[index] != content_) break;
        stop_cut = index;
      }
      std::string out;
      for (std::size_t i = start_cut; i < stop_cut; ++i) append_utf8(out, chars[i]);
      t = std::move(out);
    }
  }

 private:
  char32_t content_;
  std::size_t start_, stop_;
  std::string field_;
};

class ReplaceDecoder final : public Decoder {
 public:
  ReplaceDecoder(Regex regex, std::string content) : regex_(std::move(regex)), content_(std::move(content)) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (std::string& t : tokens) regex_.replace_all(t, content_);
  }

 private:
  Regex regex_;
  std::string content_;
};

// BPEDecoder: each token's end-of-word suffix becomes a space, the last
// token's nothing (decoders/bpe.rs: token.replace(suffix, " " or "")).
class BpeDecoder final : public Decoder {
 public:
  explicit BpeDecoder(std::string suffix) : suffix_(std::move(suffix)) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (std::size_t i = 0; i < tokens.size(); ++i) tokens[i] = replace(tokens[i], i + 1 == tokens.size() ? "" : " ");
  }

 private:
  // Rust's str::replace: an empty pattern matches at every character boundary.
  std::string replace(const std::string& t, std::string_view with) const {
    std::string out;
    if (suffix_.empty()) {
      out += with;
      for (std::size_t i = 0; i < t.size();) {
        const std::size_t from = i;
        next_char(t, i);
        out.append(t, from, i - from);
        out += with;
      }
      return out;
    }
    std::size_t last = 0;
    for (std::size_t at = t.find(suffix_); at != std::string::npos; at = t.find(suffix_, last)) {
      out.append(t, last, at - last);
      out += with;
      last = at + suffix_.size();
    }
    out.append(t, last);
    return out;
  }

  std::string suffix_;
};

class SequenceDecoder final : public Decoder {
 public:
  explicit SequenceDecoder(std::vector<std::unique_ptr<Decoder>> parts) : parts_(std::move(parts)) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (const auto& p : parts_) p->decode_chain(tokens);
  }

 private:
  std::vector<std::unique_ptr<Decoder>> parts_;
};

}  // namespace

std::unique_ptr<Decoder> load_decoder(const nlohmann::json& section, const std::string& field) {
  if (section.is_null()) return nullptr;
  const std::string type = type_of(section, field);
  if (type == "ByteLevel") return std::make_unique<ByteLevelDecoder>();
  if (type == "Metaspace") {
    bool prepends = true;
    if (const nlohmann::json* s = optional_member(section, "prepend_scheme")) {
      const std::string name = s->is_string() ? s->get<std::string>() : "";
      if (name != "first" && name != "never" && name != "always") {
        refuse(field + ".prepend_scheme", "is " + json_value_text(*s) + ", not \"first\", \"never\" or \"always\"");
      }
      prepends = name != "never";
    }
    if (section.contains("add_prefix_space") && !boolean(section, "add_prefix_space", field)) {
      if (prepends) refuse(field, "add_prefix_space does not match declared prepend_scheme");
    }
    return std::make_unique<MetaspaceDecoder>(one_char(section, "replacement", field), prepends);
  }
  if (type == "WordPiece") {
    const std::string prefix = section.contains("prefix") ? string(section, "prefix", field) : "##";
    return std::make_unique<WordPieceDecoder>(prefix, boolean_or(section, "cleanup", true, field));
  }
  if (type == "ByteFallback") return std::make_unique<ByteFallbackDecoder>();
  if (type == "Fuse") return std::make_unique<FuseDecoder>();
  if (type == "BPEDecoder") {
    return std::make_unique<BpeDecoder>(section.contains("suffix") ? string(section, "suffix", field) : "</w>");
  }
  if (type == "Strip") {
    const auto count = [&](const char* key) {
      const std::uint64_t v = unsigned_number(member(section, key, field), field + "." + key);
      return static_cast<std::size_t>(v);
    };
    return std::make_unique<StripDecoder>(one_char(section, "content", field), count("start"), count("stop"), field);
  }
  if (type == "Replace") return std::make_unique<ReplaceDecoder>(load_pattern(section, field), string(section, "content", field));
  if (type == "Sequence") {
    const nlohmann::json& list = member(section, "decoders", field);
    if (!list.is_array()) refuse(field + ".decoders", "is not a list");
    std::vector<std::unique_ptr<Decoder>> parts;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string f = field + ".decoders[" + std::to_string(i) + "]";
      auto part = load_decoder(list[i], f);
      if (!part) refuse(f, "is null, not a decoder");
      parts.push_back(std::move(part));
    }
    return std::make_unique<SequenceDecoder>(std::move(parts));
  }
  refuse(field + ".type", "'" + type +
                              "' is not a decoder embedpe supports (ByteLevel, Metaspace, WordPiece, ByteFallback, "
                              "Fuse, Strip, Replace, BPEDecoder, Sequence)");
}

}  // namespace embedpe::tj
