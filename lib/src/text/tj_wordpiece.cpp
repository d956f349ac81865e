// tokenizer.json's WordPiece model, as HF tokenizers 0.22.2 computes it
// (tokenizers/src/models/wordpiece/{mod.rs,serialization.rs}).
//
// A word of more than max_input_chars_per_word characters is unk_token. Else
// it is cut greedily from the left: the longest prefix that is a token, then
// the longest continuation that is continuing_subword_prefix + a token, and so
// on; if some position has no such piece, the whole word is unk_token. HF
// tries every end from the word's end down, one character at a time; ends
// past the longest token cannot match, so the search starts there (same
// result, linear in the word's length).
#include <algorithm>
#include <charconv>
#include <limits>
#include <system_error>

#include "embedpe/error.h"
#include "tj_models.h"
#include "tj_vocab.h"

namespace embedpe::tj {
namespace {

class WordPiece final : public VocabModel {
 public:
  void tokenize(std::string_view word, std::vector<std::int32_t>& ids) const override;
  const char* type() const override { return "WordPiece"; }

  static std::unique_ptr<Model> load(JsonReader& r);

 private:
  void encode(std::string_view word, std::vector<std::int32_t>& ids) const;
  std::int32_t unknown(std::string_view word) const;

  std::string unk_token_;
  std::string prefix_;
  std::uint64_t max_chars_ = 100;
};

std::int32_t WordPiece::unknown(std::string_view word) const {
  if (unk_id_ < 0) {
    throw UsageError(shown_ + ": model.unk_token: " + in_quotes(unk_token_) +
                         " is not in the vocabulary, and the text needs it (for " + in_quotes(word) + ")",
                     {}, {TextSpan{0, shown_.size()}});
  }
  return unk_id_;
}

void WordPiece::encode(std::string_view word, std::vector<std::int32_t>& ids) const {
  std::uint64_t chars = 0;
  for (const char c : word) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  if (chars > max_chars_) {
    ids.push_back(unknown(word));
    return;
  }
  const std::size_t before = ids.size();
  const std::size_t longest = vocab_.max_token_bytes();
  thread_local std::string piece;
  for (std::size_t start = 0; start < word.size();) {
    const std::size_t extra = start > 0 ? prefix_.size() : 0;
    // The first end to try: the word's end, or the last character boundary
    // that keeps the piece within the longest token.
    std::size_t end = word.size();
    if (longest < extra) {
      end = start;
    } else if (end - start > longest - extra) {
      end = start + (longest - extra);
      while (end > start && (static_cast<unsigned char>(word[end]) & 0xC0) == 0x80) --end;
    }
    std::int32_t id = -1;
    while (end > start) {
      std::string_view candidate = word.substr(start, end - start);
      if (start > 0) {
        piece.assign(prefix_);
        piece.append(candidate);
        candidate = piece;
      }
      id = vocab_.find(candidate);
      if (id >= 0) break;
      --end;  // one character less
      while (end > start && (static_cast<unsigned char>(word[end]) & 0xC0) == 0x80) --end;
    }
    if (id < 0) {
      ids.resize(before);
      ids.push_back(unknown(word));
      return;
    }
    ids.push_back(id);
    start = end;
  }
}

void WordPiece::tokenize(std::string_view word, std::vector<std::int32_t>& ids) const {
  if (!word.empty()) cached(word, 0, hash_bytes(word), ids, [&] { encode(word, ids); });
}

std::unique_ptr<Model> WordPiece::load(JsonReader& r) {
  auto model = std::make_unique<WordPiece>();
  WordPiece& m = *model;
  m.shown_ = r.shown();
  // HF requires all four (only "type" may be left out).
  bool have_unk = false, have_prefix = false, have_max = false, have_vocab = false;
  read_fields(r, "WordPiece", [&](const std::string& key) {
    if (key == "unk_token") {
      if (r.peek() != JsonReader::Kind::string) r.fail("expected a string");
      m.unk_token_ = r.string();
      have_unk = true;
    } else if (key == "continuing_subword_prefix") {
      if (r.peek() != JsonReader::Kind::string) r.fail("expected a string");
      m.prefix_ = r.string();
      have_prefix = true;
    } else if (key == "max_input_chars_per_word") {
      if (r.peek() != JsonReader::Kind::number) r.fail("expected a non-negative integer");
      const std::string_view digits = r.raw_number();
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), m.max_chars_);
      if (ec != std::errc() || end != digits.data() + digits.size())
        r.fail("expected a non-negative integer, not " + std::string(digits.substr(0, 30)));
      have_max = true;
    } else if (key == "vocab") {
      if (have_vocab) r.fail("given twice");
      m.vocab_ = read_vocab_object(r);
      have_vocab = true;
    } else {
      return false;
    }
    return true;
  });
  if (!have_unk) r.fail("no 'unk_token'");
  if (!have_prefix) r.fail("no 'continuing_subword_prefix'");
  if (!have_max) r.fail("no 'max_input_chars_per_word'");
  if (!have_vocab) r.fail("no 'vocab'");
  m.unk_id_ = m.vocab_.find(m.unk_token_);
  return model;
}

}  // namespace

std::unique_ptr<Model> load_wordpiece(JsonReader& r) { return WordPiece::load(r); }

}  // namespace embedpe::tj
