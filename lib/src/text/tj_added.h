// Private: tokenizer.json's "added_tokens", matched as HF tokenizers 0.22.2's
// AddedVocabulary matches them: the tokens with normalized=false on the raw
// text first, then those with normalized=true (their content normalized) on
// each remaining piece once it is normalized; leftmost-longest, each match
// then checked for single_word and widened by lstrip/rstrip over whitespace.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tj_pre_tokenizer.h"

namespace embedpe::tj {

class Normalizer;

struct AddedToken {
  std::string content;
  std::int32_t id = -1;
  bool single_word = false, lstrip = false, rstrip = false, normalized = true, special = false;
};

class AddedVocabulary {
 public:
  // `order`: the patterns in HF's order (special tokens, then the others), each
  // with its id; `by_id`: the token each id names (whose flags a match of it
  // follows); `special`: the contents of the special tokens. The normalized
  // ones' patterns are their content through `normalizer`; one that normalizes to "" is refused
  // (UsageError naming `field`).
  AddedVocabulary(std::vector<AddedToken> order, std::unordered_map<std::int32_t, AddedToken> by_id,
                  std::set<std::string> special, const Normalizer* normalizer, const std::string& field);

  // extract_and_normalize: the text cut into added tokens and normalized pieces; with `lead`,
  // each piece's Piece::lead kept (else 0).
  std::vector<Piece> extract_and_normalize(std::string_view text, const Normalizer* normalizer, bool lead) const;

  const AddedToken* by_id(std::int32_t id) const;
  const std::unordered_map<std::int32_t, AddedToken>& tokens_by_id() const { return by_id_; }
  std::optional<std::int32_t> id_of(std::string_view content) const;
  bool is_special(std::string_view content) const;
  std::size_t size() const { return by_id_.size(); }
  // HF's encode_special_tokens: a match of a special token is passed over
  // (its text stays text), as find_matches does (added_vocabulary.rs).
  void set_encode_special_tokens(bool value) { encode_special_tokens_ = value; }

 private:
  // A leftmost-longest matcher over byte strings (aho-corasick's MatchKind::LeftmostLongest).
  struct Trie {
    struct Node {
      std::unordered_map<unsigned char, std::uint32_t> next;
      std::int32_t token = -1;  // the id of the pattern ending here
    };
    std::vector<Node> nodes{Node{}};
    bool first_byte[256] = {};
    void add(std::string_view pattern, std::int32_t token);
    bool empty() const { return nodes.size() == 1; }
  };
  void split(Piece piece, const Trie& trie, std::vector<Piece>& out) const;

  std::vector<AddedToken> order_;
  std::unordered_map<std::int32_t, AddedToken> by_id_;
  std::unordered_map<std::string, std::int32_t> by_content_;  // content -> id
  std::set<std::string, std::less<>> special_;
  Trie raw_, normalized_;
  bool encode_special_tokens_ = false;
};

}  // namespace embedpe::tj
