// Private: the "model" of a tokenizer.json (BPE, WordPiece, Unigram), as HF
// tokenizers 0.22.2 computes it.
//
//   std::string text = ...;                                  // the whole tokenizer.json
//   tj::TokenizerJson file = tj::read_tokenizer_json(text, "tokenizer.json");
//   auto normalizer = nlohmann::json::parse(file.members.at("normalizer"));  // the small parts
//   std::vector<std::int32_t> ids;
//   file.model->tokenize("Ġhello", ids);                         // one pre-token
//
// The pipeline around the model (normalizers, pre-tokenizers, added tokens,
// templates, decoders) is tj_tokenizer's; the model sees one pre-token at a
// time, already normalized and, for byte-level BPE, already mapped to
// ByteLevel's printable characters (or raw, through tokenize_bytes).
//
// Loading reads the model section's JSON text itself (no DOM): LLaMA-3's has
// 128K tokens and 280K merges, and a DOM of them costs more than everything
// else the tool does at start. Anything HF would refuse, and anything we do not
// reproduce (dropout other than null or 0, an unknown model type), is a
// UsageError of one line naming the field:
//   "tokenizer.json: model.merges[12]: 'a' is not in the vocabulary"
// A vocabulary with holes (ids no token has: GPT-4o's) is read as HF reads it;
// beyond HF, an id given to two tokens (HF decodes it as either, from run to
// run) and an id beyond int32 are refused rather than guessed about.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace embedpe::tj {

// One tokenizer.json "model": maps one pre-tokenized, normalized word to ids.
class Model {
 public:
  virtual ~Model() = default;
  // Appends the ids of `word` (a pre-token, already normalized and, for
  // byte-level BPE, already mapped to ByteLevel's printable characters) to
  // `ids`. Thread-safe (const; any cache is each thread's own). An empty word
  // appends nothing.
  virtual void tokenize(std::string_view word, std::vector<std::int32_t>& ids) const = 0;
  // The same ids as tokenize(ByteLevel-mapped `raw`), for a word of raw bytes
  // (any bytes, not necessarily UTF-8): the engine calls it when ByteLevel is
  // the last pre-tokenizer step, so that the word need not be mapped. The
  // default maps and calls tokenize; byte-level BPE does better.
  virtual void tokenize_bytes(std::string_view raw, std::vector<std::int32_t>& ids) const;
  virtual std::optional<std::int32_t> token_to_id(std::string_view token) const = 0;
  // The token of an id of the model's vocabulary; nullopt outside it.
  virtual std::optional<std::string_view> id_to_token(std::int32_t id) const = 0;
  // The number of tokens: HF's get_vocab_size, from which AddedVocabulary
  // numbers new tokens. Below id_bound() where the ids leave holes.
  virtual std::size_t vocab_size() const = 0;
  // One past the largest id.
  virtual std::size_t id_bound() const = 0;
  virtual const char* type() const = 0;  // "BPE", "WordPiece", "Unigram"
  // The unknown token's id (BPE/WordPiece: unk_token's; Unigram: unk_id), if any.
  virtual std::optional<std::int32_t> unk_id() const = 0;
};

// The "model" section of tokenizer.json, as its JSON text (`model_json` is the
// value of the top-level "model" member). `shown` names the file in messages.
std::unique_ptr<Model> load_model(std::string_view model_json, const std::string& shown);
// The same from a DOM (small models; named apart so that a std::string argument is not ambiguous).
std::unique_ptr<Model> load_model_dom(const nlohmann::json& model, const std::string& shown);

// The whole tokenizer.json in one pass, without a DOM: its model, read as
// load_model reads it, and every top-level member (the model's too) as the raw
// JSON text of its value, checked to be well-formed JSON (RFC 8259, as nlohmann
// reads it: UTF-8, escapes, numbers), so that the engine parses the small
// sections with nlohmann. A malformed text, a key given twice or no "model" is
// a UsageError of one line naming `shown` (and the byte offset or the field).
struct TokenizerJson {
  std::map<std::string, std::string_view, std::less<>> members;  // views into the text
  std::unique_ptr<Model> model;
};
TokenizerJson read_tokenizer_json(std::string_view json, const std::string& shown);

// The members of the JSON object `json` only (checked as above; no model read).
std::map<std::string, std::string_view, std::less<>> object_members(std::string_view json, const std::string& shown);

// Each model's reader (tj_bpe.cpp, tj_wordpiece.cpp, tj_unigram.cpp), which
// load_model picks by "type": `r` stands before the model object.
class JsonReader;  // tj_json.h
std::unique_ptr<Model> load_bpe(JsonReader& r);
std::unique_ptr<Model> load_wordpiece(JsonReader& r);
std::unique_ptr<Model> load_unigram(JsonReader& r);

// ByteLevel's byte -> printable character map (GPT-2's bytes_to_unicode), as UTF-8.
std::string_view byte_level_char(unsigned char byte);

}  // namespace embedpe::tj
