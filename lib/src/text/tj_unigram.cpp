// tokenizer.json's Unigram model, as HF tokenizers 0.22.2 computes it
// (tokenizers/src/models/unigram/{model.rs,serialization.rs,trie.rs}).
//
// HF's encode_optimized: a best path over the word's byte positions, in f64.
// From each character start (left to right), every token that starts there
// (shortest first) proposes score + best[start] for the position where it
// ends, taken when that position has none yet or the proposal is strictly
// greater; a character that no one-character token covers proposes the
// unknown token with min_score - 10 (K_UNK_PENALTY). The path is read back
// from the end, runs of unknown-token nodes joined into one piece (fuse_unk
// is always on), and each piece is looked up by its text: a joined run that is
// not a token becomes its bytes' <0xAB> tokens with byte_fallback (when all
// exist), else unk_id.
//
// Not shared with segment_unigram (SentencePiece's unigram): that one sums
// float32 scores, scores user-defined pieces and unknowns its own way and
// normalizes; HF's sums the f64 scores serde_json reads (see
// JsonReader::serde_number), so a shared core would have to be generic in
// both the arithmetic and the rules, for two short loops.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <system_error>
#include <limits>

#include "byte_piece.h"
#include "embedpe/error.h"
#include "tj_models.h"
#include "tj_vocab.h"

namespace embedpe::tj {
namespace {

constexpr double kUnkPenalty = 10.0;

class Unigram final : public VocabModel {
 public:
  void tokenize(std::string_view word, std::vector<std::int32_t>& ids) const override;
  const char* type() const override { return "Unigram"; }

  static std::unique_ptr<Model> load(JsonReader& r);

 private:
  void encode(std::string_view word, std::vector<std::int32_t>& ids) const;
  [[noreturn]] void missing_unk(std::string_view word) const;
  // -1: no token has these bytes as a prefix; -2: a prefix of a token only;
  // else the token's id (the last of its ids, as HF's token_to_ids).
  std::int32_t find_prefix(std::string_view bytes) const;

  std::vector<double> scores_;  // (vocab_size)
  double min_score_ = std::numeric_limits<double>::infinity();
  bool byte_fallback_ = false;
  std::int32_t byte_tokens_[256];  // <0xAB>'s id, or -1
  // Every proper prefix of a token that is not itself a token, by bytes:
  // open addressing, grown at a load of 3/4.
  struct Slot {
    std::uint32_t tag = 0;  // the hash's high half | 1; 0: empty
    std::uint32_t offset = 0, size = 0;  // in prefix_bytes_
  };
  void add_prefix(std::string_view p, std::uint64_t hash);
  std::string prefix_bytes_;
  std::vector<Slot> prefixes_ = std::vector<Slot>(16);
  std::uint64_t prefix_mask_ = 15;
  std::size_t prefix_count_ = 0;
};

std::int32_t Unigram::find_prefix(std::string_view bytes) const {
  const std::uint64_t hash = hash_bytes(bytes);
  const std::int32_t id = vocab_.find(bytes, hash);
  if (id >= 0) return id;
  const std::uint32_t tag = static_cast<std::uint32_t>(hash >> 32) | 1;
  for (std::uint64_t i = hash & prefix_mask_;; i = (i + 1) & prefix_mask_) {
    const Slot& s = prefixes_[i];
    if (s.tag == 0) return -1;
    if (s.tag == tag && std::string_view(prefix_bytes_).substr(s.offset, s.size) == bytes) return -2;
  }
}

void Unigram::add_prefix(std::string_view p, std::uint64_t hash) {
  if ((prefix_count_ + 1) * 4 > prefixes_.size() * 3) {
    std::vector<Slot> old = std::move(prefixes_);
    prefixes_.assign(old.size() * 2, Slot{});
    prefix_mask_ = prefixes_.size() - 1;
    for (const Slot& s : old) {
      if (s.tag == 0) continue;
      std::uint64_t i = hash_bytes(std::string_view(prefix_bytes_).substr(s.offset, s.size)) & prefix_mask_;
      while (prefixes_[i].tag != 0) i = (i + 1) & prefix_mask_;
      prefixes_[i] = s;
    }
  }
  const std::uint32_t tag = static_cast<std::uint32_t>(hash >> 32) | 1;
  for (std::uint64_t i = hash & prefix_mask_;; i = (i + 1) & prefix_mask_) {
    Slot& s = prefixes_[i];
    if (s.tag == 0) {
      s = Slot{tag, static_cast<std::uint32_t>(prefix_bytes_.size()), static_cast<std::uint32_t>(p.size())};
      prefix_bytes_.append(p);
      ++prefix_count_;
      return;
    }
    if (s.tag == tag && std::string_view(prefix_bytes_).substr(s.offset, s.size) == p) return;
  }
}

void Unigram::missing_unk(std::string_view word) const {
  throw UsageError(shown_ + ": model.unk_id: the model has none, and the text needs it (for " + in_quotes(word) + ")",
                   {}, {TextSpan{0, shown_.size()}});
}

void Unigram::encode(std::string_view word, std::vector<std::int32_t>& ids) const {
  struct Node {
    double score = 0;
    std::int32_t id = 0;
    std::int64_t start = -1;  // -1: no path ends here yet
  };
  thread_local std::vector<Node> best;  // (word.size() + 1)
  best.assign(word.size() + 1, Node{});
  const double unk_score = min_score_ - kUnkPenalty;
  const std::size_t longest = vocab_.max_token_bytes();
  for (std::size_t start = 0; start < word.size();) {
    const double here = best[start].score;
    const unsigned char lead = static_cast<unsigned char>(word[start]);
    std::size_t mblen = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    mblen = std::min(mblen, word.size() - start);
    bool has_single = false;
    const std::size_t limit = std::min(longest, word.size() - start);
    for (std::size_t len = 1; len <= limit; ++len) {
      const std::int32_t id = find_prefix(word.substr(start, len));
      if (id == -1) break;
      if (id == -2) continue;
      Node& target = best[start + len];
      const double candidate = scores_[static_cast<std::size_t>(id)] + here;
      if (target.start < 0 || candidate > target.score) target = Node{candidate, id, static_cast<std::int64_t>(start)};
      if (len == mblen) has_single = true;
    }
    if (!has_single) {
      Node& target = best[start + mblen];
      const double candidate = unk_score + here;
      if (target.start < 0 || candidate > target.score) {
        if (unk_id_ < 0) missing_unk(word);
        target = Node{candidate, unk_id_, static_cast<std::int64_t>(start)};
      }
    }
    start += mblen;
  }
  // The pieces, from the end: runs of unknown-token nodes joined.
  thread_local std::vector<std::string_view> pieces;
  pieces.clear();
  std::size_t end = word.size();
  std::size_t unk_run_start = std::string_view::npos, unk_run_end = 0;
  while (end > 0) {
    const Node& node = best[end];
    const auto start = static_cast<std::size_t>(node.start);
    if (node.id == unk_id_) {
      if (unk_run_start == std::string_view::npos) unk_run_end = end;
      unk_run_start = start;
    } else {
      if (unk_run_start != std::string_view::npos) {
        pieces.push_back(word.substr(unk_run_start, unk_run_end - unk_run_start));
        unk_run_start = std::string_view::npos;
      }
      pieces.push_back(word.substr(start, end - start));
    }
    end = start;
  }
  if (unk_run_start != std::string_view::npos) pieces.push_back(word.substr(unk_run_start, unk_run_end - unk_run_start));
  for (auto it = pieces.rbegin(); it != pieces.rend(); ++it) {
    const std::string_view piece = *it;
    const std::int32_t id = vocab_.find(piece);
    if (id >= 0) {
      ids.push_back(id);
      continue;
    }
    if (byte_fallback_) {
      bool all = true;
      for (const char c : piece) all = all && byte_tokens_[static_cast<unsigned char>(c)] >= 0;
      if (all) {
        for (const char c : piece) ids.push_back(byte_tokens_[static_cast<unsigned char>(c)]);
        continue;
      }
    }
    if (unk_id_ < 0) missing_unk(word);
    ids.push_back(unk_id_);
  }
}

void Unigram::tokenize(std::string_view word, std::vector<std::int32_t>& ids) const {
  if (!word.empty()) cached(word, 0, hash_bytes(word), ids, [&] { encode(word, ids); });
}

std::unique_ptr<Model> Unigram::load(JsonReader& r) {
  auto model = std::make_unique<Unigram>();
  Unigram& m = *model;
  m.shown_ = r.shown();
  bool have_vocab = false;
  std::int64_t unk_id = -1;  // none
  read_fields(r, "Unigram", [&](const std::string& key) {
    if (key == "unk_id") {
      unk_id = -1;
      if (!r.at_null()) {
        if (r.peek() != JsonReader::Kind::number) r.fail("expected a non-negative integer or null");
        const std::string_view digits = r.raw_number();
        std::uint64_t v = 0;
        const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
        if (ec != std::errc() || end != digits.data() + digits.size())
          r.fail("expected a non-negative integer or null, not " + std::string(digits.substr(0, 30)));
        if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()))
          r.fail(std::string(digits) + " is beyond int32");
        unk_id = static_cast<std::int64_t>(v);
      }
    } else if (key == "byte_fallback") {
      if (r.peek() != JsonReader::Kind::boolean) r.fail("expected true or false");
      m.byte_fallback_ = r.boolean();
    } else if (key == "vocab") {
      if (have_vocab) r.fail("given twice");
      have_vocab = true;
      m.vocab_ = Vocab();
      m.scores_.clear();
      r.begin_array();
      const std::size_t at = r.path_size();
      for (std::size_t index = 0; r.next_element(); ++index) {
        r.push_index(index);
        r.begin_array();
        if (!r.next_element() || r.peek() != JsonReader::Kind::string) r.fail("expected a pair [\"token\", score]");
        m.vocab_.push(r.string());
        if (!r.next_element() || r.peek() != JsonReader::Kind::number) r.fail("expected a pair [\"token\", score]");
        m.scores_.push_back(r.serde_number());
        if (r.next_element()) r.fail("expected a pair [\"token\", score], not more");
        if (m.scores_.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
          r.fail("too many tokens");
        r.pop(at);
      }
    } else {
      return false;
    }
    return true;
  });
  if (!have_vocab) r.fail("no 'vocab'");
  if (unk_id >= 0) {
    if (m.scores_.empty()) r.fail("the vocabulary is empty, but unk_id needs it");
    if (static_cast<std::size_t>(unk_id) >= m.scores_.size()) {
      r.push(".unk_id");
      r.fail(std::to_string(unk_id) + " is beyond the vocabulary (" + std::to_string(m.scores_.size()) + " tokens)");
    }
  }
  m.unk_id_ = static_cast<std::int32_t>(unk_id);
  m.vocab_.index(true);  // a token given twice is its last id, as HF's token_to_ids
  for (const double s : m.scores_) m.min_score_ = std::min(m.min_score_, s);
  for (int b = 0; b < 256; ++b) {
    m.byte_tokens_[b] = m.vocab_.find(byte_piece::Piece(static_cast<unsigned char>(b)));
  }
  // The prefixes: every proper byte prefix of a token that is not a token.
  for (std::size_t id = 0; id < m.vocab_.size(); ++id) {
    const std::string_view token = m.vocab_.token(static_cast<std::int32_t>(id));
    for (std::size_t len = 1; len < token.size(); ++len) {
      const std::string_view p = token.substr(0, len);
      const std::uint64_t hash = hash_bytes(p);
      if (m.vocab_.find(p, hash) < 0) m.add_prefix(p, hash);
    }
  }
  if (m.prefix_bytes_.size() > std::numeric_limits<std::uint32_t>::max()) r.fail("the vocabulary is too large");
  return model;
}

}  // namespace

std::unique_ptr<Model> load_unigram(JsonReader& r) { return Unigram::load(r); }

}  // namespace embedpe::tj
