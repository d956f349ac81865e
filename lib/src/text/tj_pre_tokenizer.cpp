#include "tj_pre_tokenizer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>

#include "model_files.h"
#include "tj_fields.h"
#include "tj_model.h"
#include "tj_normalizer.h"
#include "tj_regex.h"
#include "tj_unicode.h"

namespace embedpe::tj {

namespace {

enum class Behavior { removed, isolated, merged_with_previous, merged_with_next, contiguous };

Behavior load_behavior(const nlohmann::json& object, const char* key, const std::string& field) {
  const std::string b = string(object, key, field);
  if (b == "Removed") return Behavior::removed;
  if (b == "Isolated") return Behavior::isolated;
  if (b == "MergedWithPrevious") return Behavior::merged_with_previous;
  if (b == "MergedWithNext") return Behavior::merged_with_next;
  if (b == "Contiguous") return Behavior::contiguous;
  refuse(field + "." + key, "'" + b + "' is not Removed, Isolated, MergedWithPrevious, MergedWithNext or Contiguous");
}

// A stretch of a piece: a match of the pattern or the text between matches.
struct Span {
  std::size_t begin, end;
  bool match;
};

// pattern.rs's find_matches for a regex: the matches and the stretches between them.
void regex_spans(const Regex& regex, std::string_view text, bool invert, std::vector<Regex::Match>& scratch,
                 std::vector<Span>& spans) {
  spans.clear();
  if (text.empty()) {
    spans.push_back({0, 0, invert});
    return;
  }
  regex.find_all(text, scratch);
  std::size_t prev = 0;
  for (const Regex::Match& m : scratch) {
    if (prev != m.begin) spans.push_back({prev, m.begin, invert});
    spans.push_back({m.begin, m.end, !invert});
    prev = m.end;
  }
  if (prev != text.size()) spans.push_back({prev, text.size(), invert});
}

// pattern.rs's find_matches for a character predicate: each character it accepts is a match of its own.
template <class Pred>
void char_spans(std::string_view text, Pred pred, std::vector<Span>& spans) {
  spans.clear();
  if (text.empty()) {
    spans.push_back({0, 0, false});
    return;
  }
  std::size_t last = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t at = i;
    if (pred(next_char(text, i))) {
      if (last < at) spans.push_back({last, at, false});
      spans.push_back({at, i, true});
      last = i;
    }
  }
  if (text.size() > last) spans.push_back({last, text.size(), false});
}

// NormalizedString::split: the behavior applied to the spans, then the pieces cut (empty ones dropped).
void split_piece(const Piece& piece, std::vector<Span>& spans, Behavior behavior, std::vector<Piece>& out) {
  std::vector<Span> kept;
  kept.reserve(spans.size());
  switch (behavior) {
    case Behavior::isolated:
      for (Span s : spans) kept.push_back({s.begin, s.end, false});
      break;
    case Behavior::removed:
      kept = spans;  // match = to remove
      break;
    case Behavior::contiguous: {
      bool previous = false;
      for (const Span& s : spans) {
        if (s.match == previous && !kept.empty()) {
          kept.back().end = s.end;
        } else {
          kept.push_back({s.begin, s.end, false});
        }
        previous = s.match;
      }
      break;
    }
    case Behavior::merged_with_previous: {
      bool previous = false;
      for (const Span& s : spans) {
        if (s.match && !previous && !kept.empty()) {
          kept.back().end = s.end;
        } else {
          kept.push_back({s.begin, s.end, false});
        }
        previous = s.match;
      }
      break;
    }
    case Behavior::merged_with_next: {
      bool previous = false;
      for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
        if (it->match && !previous && !kept.empty()) {
          kept.back().begin = it->begin;
        } else {
          kept.push_back({it->begin, it->end, false});
        }
        previous = it->match;
      }
      std::reverse(kept.begin(), kept.end());
      break;
    }
  }
  for (const Span& s : kept) {
    if (s.match || s.begin == s.end) continue;
    out.push_back(Piece{piece.text.substr(s.begin, s.end - s.begin), -1, lead_after(piece.lead, s.begin), piece.bytes});
  }
}

// PreTokenizedString::split: `fn` splits each piece that is not an added token.
template <class Fn>
void split_each(std::vector<Piece>& pieces, Fn fn) {
  std::vector<Piece> out;
  out.reserve(pieces.size() * 2);
  for (Piece& p : pieces) {
    if (p.id >= 0) {
      out.push_back(std::move(p));
    } else {
      fn(p, out);
    }
  }
  pieces = std::move(out);
}

class Split final : public PreTokenizer {
 public:
  Split(Regex regex, Behavior behavior, bool invert) : regex_(std::move(regex)), behavior_(behavior), invert_(invert) {}
  void pre_tokenize(std::vector<Piece>& pieces) const override {
    std::vector<Regex::Match> scratch;
    std::vector<Span> spans;
    split_each(pieces, [&](const Piece& p, std::vector<Piece>& out) {
      regex_spans(regex_, p.text, invert_, scratch, spans);
      split_piece(p, spans, behavior_, out);
    });
  }

 private:
  Regex regex_;
  Behavior behavior_;
  bool invert_;
};

template <class Pred>
class CharSplit final : public PreTokenizer {
 public:
  CharSplit(Pred pred, Behavior behavior) : pred_(pred), behavior_(behavior) {}
  void pre_tokenize(std::vector<Piece>& pieces) const override {
    std::vector<Span> spans;
    split_each(pieces, [&](const Piece& p, std::vector<Piece>& out) {
      char_spans(p.text, pred_, spans);
      split_piece(p, spans, behavior_, out);
    });
  }

 private:
  Pred pred_;
  Behavior behavior_;
};

template <class Pred>
std::unique_ptr<PreTokenizer> char_split(Pred pred, Behavior behavior) {
  return std::make_unique<CharSplit<Pred>>(pred, behavior);
}

class BertPre final : public PreTokenizer {
 public:
  void pre_tokenize(std::vector<Piece>& pieces) const override {
    std::vector<Span> spans;
    split_each(pieces, [&](const Piece& p, std::vector<Piece>& out) {
      char_spans(p.text, is_whitespace, spans);
      split_piece(p, spans, Behavior::removed, out);
    });
    split_each(pieces, [&](const Piece& p, std::vector<Piece>& out) {
      char_spans(p.text, is_punctuation, spans);
      split_piece(p, spans, Behavior::isolated, out);
    });
  }
};

// Whitespace: the regex crate's \w+|[^\w\s]+, inverted, removed: runs of word
// characters and runs of other non-space characters, spaces dropped.
class WhitespacePre final : public PreTokenizer {
 public:
  void pre_tokenize(std::vector<Piece>& pieces) const override {
    split_each(pieces, [&](const Piece& p, std::vector<Piece>& out) {
      const std::string& t = p.text;
      std::size_t i = 0;
      while (i < t.size()) {
        std::size_t next = i;
        const char32_t c = next_char(t, next);
        if (is_whitespace(c) && !is_word(c)) {
          i = next;
          continue;
        }
        const bool word = is_word(c);
        const std::size_t begin = i;
        i = next;
        while (i < t.size()) {
          std::size_t n = i;
          const char32_t d = next_char(t, n);
          if (word ? !is_word(d) : (is_word(d) || is_whitespace(d))) break;
          i = n;
        }
        out.push_back(Piece{t.substr(begin, i - begin), -1, lead_after(p.lead, begin), p.bytes});
      }
    });
  }
};

std::string byte_level_map_impl(std::string_view text) {
  std::string out;
  out.reserve(text.size() * 2);
  for (char b : text) out += byte_level_char(static_cast<unsigned char>(b));
  return out;
}

class ByteLevel final : public PreTokenizer {
 public:
  ByteLevel(bool add_prefix_space, bool use_regex) : add_prefix_space_(add_prefix_space), use_regex_(use_regex) {
    if (use_regex_) {
      regex_.emplace("'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+",
                     "ByteLevel's own pattern");
    }
  }
  void pre_tokenize(std::vector<Piece>& pieces) const override {
    std::vector<Regex::Match> scratch;
    std::vector<Span> spans;
    split_each(pieces, [&](Piece& p, std::vector<Piece>& out) {
      if (add_prefix_space_ && (p.text.empty() || p.text[0] != ' ')) {
        prepend(p.text, " ");  // NormalizedString::prepend: the new bytes take the next one's alignment
        if (p.lead > 0) ++p.lead;
      }
      if (!use_regex_) {
        if (!p.text.empty()) out.push_back(std::move(p));
        return;
      }
      regex_spans(*regex_, p.text, false, scratch, spans);
      split_piece(p, spans, Behavior::isolated, out);
    });
    for (Piece& p : pieces) {
      if (p.id >= 0) continue;
      if (map_) {
        if (p.lead > 0) {  // each byte's characters take its alignment
          const std::size_t n = std::min<std::size_t>(p.lead, p.text.size());
          p.lead = static_cast<std::uint32_t>(byte_level_map_impl(std::string_view(p.text).substr(0, n)).size());
        }
        p.text = byte_level_map_impl(p.text);
      } else {
        p.bytes = true;
      }
    }
  }
  bool ends_with_byte_level() const override { return true; }
  void leave_byte_mapping_to_model() override { map_ = false; }
  bool set_add_prefix_space(bool on) override {
    add_prefix_space_ = on;
    return true;
  }

 private:
  bool add_prefix_space_, use_regex_, map_ = true;
  std::optional<Regex> regex_;
};

class Metaspace final : public PreTokenizer {
 public:
  enum class Scheme { first, never, always };
  Metaspace(char32_t replacement, Scheme scheme, bool split) : scheme_(scheme), split_(split) {
    append_utf8(replacement_, replacement);
    replacement_char_ = replacement;
  }
  bool needs_lead() const override { return scheme_ == Scheme::first; }
  void pre_tokenize(std::vector<Piece>& pieces) const override {
    std::vector<Span> spans;
    split_each(pieces, [&](Piece& p, std::vector<Piece>& out) {
      std::string t;
      t.reserve(p.text.size() + replacement_.size());
      std::size_t lead = p.lead;  // a space's replacement takes the space's alignment
      for (std::size_t i = 0; i < p.text.size(); ++i) {
        if (p.text[i] == ' ') {
          t += replacement_;
          if (i < p.lead) lead += replacement_.size() - 1;
        } else {
          t += p.text[i];
        }
      }
      const bool starts = t.compare(0, replacement_.size(), replacement_) == 0;
      if (!starts && (scheme_ == Scheme::always || (scheme_ == Scheme::first && lead > 0))) {
        prepend(t, replacement_);
        if (lead > 0) lead += replacement_.size();
      }
      p.lead = static_cast<std::uint32_t>(std::min(lead, t.size()));
      p.text = std::move(t);
      if (!split_) {
        if (!p.text.empty()) out.push_back(std::move(p));
        return;
      }
      const char32_t r = replacement_char_;
      char_spans(p.text, [r](char32_t c) { return c == r; }, spans);
      split_piece(p, spans, Behavior::merged_with_next, out);
    });
  }

 private:
  std::string replacement_;
  char32_t replacement_char_;
  Scheme scheme_;
  bool split_;
};

class SequencePre final : public PreTokenizer {
 public:
  explicit SequencePre(std::vector<std::unique_ptr<PreTokenizer>> parts) : parts_(std::move(parts)) {}
  void pre_tokenize(std::vector<Piece>& pieces) const override {
    for (const auto& p : parts_) p->pre_tokenize(pieces);
  }
  bool needs_lead() const override {
    return std::any_of(parts_.begin(), parts_.end(), [](const auto& p) { return p->needs_lead(); });
  }
  bool ends_with_byte_level() const override { return !parts_.empty() && parts_.back()->ends_with_byte_level(); }
  void leave_byte_mapping_to_model() override {
    if (!parts_.empty()) parts_.back()->leave_byte_mapping_to_model();
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> parts_;
};

}  // namespace

std::string byte_level_map(std::string_view text) { return byte_level_map_impl(text); }

std::unique_ptr<PreTokenizer> load_pre_tokenizer(const nlohmann::json& section, const std::string& field) {
  if (section.is_null()) return nullptr;
  const std::string type = type_of(section, field);
  if (type == "Split") {
    return std::make_unique<Split>(load_pattern(section, field), load_behavior(section, "behavior", field),
                                   boolean(section, "invert", field));
  }
  if (type == "ByteLevel") {
    boolean(section, "add_prefix_space", field);  // required, as HF requires them
    boolean(section, "trim_offsets", field);
    return std::make_unique<ByteLevel>(boolean(section, "add_prefix_space", field),
                                       boolean_or(section, "use_regex", true, field));
  }
  if (type == "Digits") {
    if (boolean(section, "individual_digits", field)) return char_split(is_numeric, Behavior::isolated);
    return char_split(is_numeric, Behavior::contiguous);
  }
  if (type == "Punctuation") {
    const Behavior b = section.contains("behavior") ? load_behavior(section, "behavior", field) : Behavior::isolated;
    return char_split(is_punctuation, b);
  }
  if (type == "Whitespace") return std::make_unique<WhitespacePre>();
  if (type == "WhitespaceSplit") return char_split(is_whitespace, Behavior::removed);
  if (type == "BertPreTokenizer") return std::make_unique<BertPre>();
  if (type == "Metaspace") {
    const char32_t replacement = one_char(section, "replacement", field);
    Metaspace::Scheme scheme = Metaspace::Scheme::always;
    if (const nlohmann::json* s = optional_member(section, "prepend_scheme")) {
      const std::string name = s->is_string() ? s->get<std::string>() : "";
      if (name == "first") {
        scheme = Metaspace::Scheme::first;
      } else if (name == "never") {
        scheme = Metaspace::Scheme::never;
      } else if (name != "always") {
        refuse(field + ".prepend_scheme", "is " + json_value_text(*s) + ", not \"first\", \"never\" or \"always\"");
      }
    }
    if (section.contains("add_prefix_space") && !boolean(section, "add_prefix_space", field)) {
      if (scheme != Metaspace::Scheme::never) refuse(field, "add_prefix_space does not match declared prepend_scheme");
      scheme = Metaspace::Scheme::never;
    }
    return std::make_unique<Metaspace>(replacement, scheme, boolean_or(section, "split", true, field));
  }
  if (type == "Sequence") {
    const nlohmann::json& list = member(section, "pretokenizers", field);
    if (!list.is_array()) refuse(field + ".pretokenizers", "is not a list");
    std::vector<std::unique_ptr<PreTokenizer>> parts;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string f = field + ".pretokenizers[" + std::to_string(i) + "]";
      auto part = load_pre_tokenizer(list[i], f);
      if (!part) refuse(f, "is null, not a pre-tokenizer");
      parts.push_back(std::move(part));
    }
    return std::make_unique<SequencePre>(std::move(parts));
  }
  refuse(field + ".type", "'" + type +
                              "' is not a pre-tokenizer embedpe supports (Split, ByteLevel, Digits, Punctuation, "
                              "Whitespace, WhitespaceSplit, Metaspace, BertPreTokenizer, Sequence)");
}

}  // namespace embedpe::tj
