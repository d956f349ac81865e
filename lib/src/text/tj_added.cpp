#include "tj_added.h"

#include <nlohmann/json.hpp>

#include "model_files.h"
#include "tj_fields.h"
#include "tj_normalizer.h"
#include "tj_unicode.h"

namespace embedpe::tj {

void AddedVocabulary::Trie::add(std::string_view pattern, std::int32_t token) {
  if (pattern.empty()) return;  // aho-corasick's empty pattern would match everywhere; HF never builds one
  std::uint32_t at = 0;
  for (char ch : pattern) {
    const auto c = static_cast<unsigned char>(ch);
    const auto it = nodes[at].next.find(c);
    if (it == nodes[at].next.end()) {
      nodes.emplace_back();
      nodes[at].next.emplace(c, static_cast<std::uint32_t>(nodes.size() - 1));
      at = static_cast<std::uint32_t>(nodes.size() - 1);
    } else {
      at = it->second;
    }
  }
  first_byte[static_cast<unsigned char>(pattern[0])] = true;
  if (nodes[at].token < 0) nodes[at].token = token;  // the same pattern twice: the first one's (aho-corasick)
}

AddedVocabulary::AddedVocabulary(std::vector<AddedToken> order, std::unordered_map<std::int32_t, AddedToken> by_id,
                                 std::set<std::string> special, const Normalizer* normalizer, const std::string& field)
    : order_(std::move(order)), by_id_(std::move(by_id)), special_(special.begin(), special.end()) {
  for (const auto& [id, t] : by_id_) by_content_[t.content] = id;
  for (const AddedToken& t : order_) {
    if (t.id < 0) continue;
    if (!t.normalized) {
      raw_.add(t.content, t.id);
    } else {
      std::string pattern = t.content;
      if (normalizer) normalizer->normalize(pattern);
      // HF's aho-corasick then holds the empty pattern, which matches at every byte: the text is
      // split into single bytes and a split inside a character panics ("AddedVocabulary bad
      // split"), so HF aborts on any text with a non-ASCII character there. No tokenizer to follow.
      if (pattern.empty()) {
        refuse(field, "the token " + json_value_text(nlohmann::json(t.content)) +
                                   " (normalized: true) is \"\" once normalized; HF tokenizers 0.22 would split every "
                                   "text at each byte and panic on any non-ASCII character");
      }
      normalized_.add(pattern, t.id);
    }
  }
}

const AddedToken* AddedVocabulary::by_id(std::int32_t id) const {
  const auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &it->second;
}

std::optional<std::int32_t> AddedVocabulary::id_of(std::string_view content) const {
  const auto it = by_content_.find(std::string(content));
  if (it == by_content_.end()) return std::nullopt;
  return it->second;
}

bool AddedVocabulary::is_special(std::string_view content) const { return special_.find(content) != special_.end(); }

namespace {

// The regex crate's ^\w and \w$ and \s, over UTF-8.
bool starts_with_word(std::string_view s) {
  if (s.empty()) return false;
  std::size_t i = 0;
  return is_word(next_char(s, i));
}

std::size_t previous_char_start(std::string_view s, std::size_t end) {
  std::size_t start = end - 1;
  while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
  return start;
}

bool ends_with_word(std::string_view s) {
  if (s.empty()) return false;
  std::size_t i = previous_char_start(s, s.size());
  return is_word(next_char(s, i));
}

}  // namespace

void AddedVocabulary::split(Piece piece, const Trie& trie, std::vector<Piece>& out) const {
  const std::string& s = piece.text;
  if (trie.empty()) {
    if (!s.empty()) out.push_back(std::move(piece));
    return;
  }
  struct Found {
    std::size_t begin, end;
    std::int32_t token;
  };
  std::vector<Found> found;
  // Leftmost-longest, non-overlapping.
  for (std::size_t i = 0; i < s.size();) {
    if (!trie.first_byte[static_cast<unsigned char>(s[i])]) {
      ++i;
      continue;
    }
    std::uint32_t at = 0;
    std::int32_t best = -1;
    std::size_t best_end = 0;
    for (std::size_t j = i; j < s.size(); ++j) {
      const auto it = trie.nodes[at].next.find(static_cast<unsigned char>(s[j]));
      if (it == trie.nodes[at].next.end()) break;
      at = it->second;
      if (trie.nodes[at].token >= 0) {
        best = trie.nodes[at].token;
        best_end = j + 1;
      }
    }
    if (best < 0) {
      ++i;
      continue;
    }
    found.push_back({i, best_end, best});
    i = best_end;
  }
  std::size_t start_offset = 0;
  auto emit_text = [&](std::size_t b, std::size_t e) {
    if (b < e) out.push_back(Piece{s.substr(b, e - b), -1, lead_after(piece.lead, b), false});
  };
  for (const Found& f : found) {
    std::size_t start = f.begin, stop = f.end;
    const AddedToken& t = by_id_.at(f.token);
    if (encode_special_tokens_ && is_special(t.content)) continue;
    if (t.single_word) {
      const bool start_space = start == 0 || !ends_with_word(std::string_view(s).substr(0, start));
      const bool stop_space = stop == s.size() || !starts_with_word(std::string_view(s).substr(stop));
      if (!start_space || !stop_space) continue;
    }
    if (t.lstrip) {
      std::size_t b = start;
      while (b > 0) {
        const std::size_t p = previous_char_start(s, b);
        std::size_t q = p;
        if (!is_whitespace(next_char(s, q))) break;
        b = p;
      }
      start = std::max(b, start_offset);
    }
    if (t.rstrip) {
      while (stop < s.size()) {
        std::size_t q = stop;
        if (!is_whitespace(next_char(s, q))) break;
        stop = q;
      }
    }
    emit_text(start_offset, start);
    out.push_back(Piece{s.substr(start, stop - start), t.id, lead_after(piece.lead, start), false});
    start_offset = stop;
  }
  emit_text(start_offset, s.size());
}

std::vector<Piece> AddedVocabulary::extract_and_normalize(std::string_view text, const Normalizer* normalizer,
                                                          bool lead) const {
  std::vector<Piece> first;
  std::uint32_t first_char = 0;  // the original's first character is aligned with offset 0
  if (lead && !text.empty()) {
    std::size_t i = 0;
    next_char(text, i);
    first_char = static_cast<std::uint32_t>(i);
  }
  split(Piece{std::string(text), -1, first_char, false}, raw_, first);
  std::vector<Piece> out;
  out.reserve(first.size());
  for (Piece& p : first) {
    if (p.id >= 0) {
      out.push_back(std::move(p));
      continue;
    }
    if (normalizer) {
      if (lead) {
        normalizer->normalize_lead(p.text, p.lead);
      } else {
        normalizer->normalize(p.text);
      }
    }
    split(std::move(p), normalized_, out);
  }
  return out;
}

}  // namespace embedpe::tj
