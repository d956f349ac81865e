// A GGUF file's tokenizer (tokenizer.ggml.*): the ids llama.cpp gives for a
// text (GgufVocab::encode, its SPM tokenizer), and the vocabulary rebuilt as a
// SentencePiece model, which names and decodes the ids.
//
//   embedpe::GgufSentencePiece g = embedpe::gguf_sentencepiece(*gguf_file);
//   std::vector<int> ids = g.vocab->encode("Hello world");  // no BOS/EOS
//   embedpe::Tokenizer t = embedpe::Tokenizer::from_bytes(g.model_proto, path);
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace embedpe {

namespace gguf {
class File;
struct Value;
}  // namespace gguf
struct GgufSentencePiece;

// A file's metadata by key (null: absent); gguf_keys: a File's.
using GgufKeys = std::function<const gguf::Value*(std::string_view key)>;
GgufKeys gguf_keys(const gguf::File& file);

// tokenizer.ggml.* as both rebuilt tokenizers (SentencePiece, byte-level BPE)
// read them, each refusal a UsageError naming `path` and the key:
// tokens: an array of 1 to INT32_MAX strings;
const gguf::Value& gguf_token_array(const GgufKeys& keys, const std::string& path);
// token_type: absent (null), or an array of `n` int32s;
const gguf::Value* gguf_token_types(const GgufKeys& keys, const std::string& path, std::size_t n);
// an id key: `fallback` when absent, else an integer below `n`;
int gguf_special_id(const GgufKeys& keys, const std::string& path, const char* key, int fallback, std::size_t n);
// a bool key: `fallback` when absent;
bool gguf_flag(const GgufKeys& keys, const std::string& path, const char* key, bool fallback);
// The special ids (-1: none) and whether BOS / EOS are added, as both rebuilt tokenizers
// keep them (GgufSentencePiece, GgufBpe) and give them to ModelInfo.
struct GgufSpecials {
  int bos_id = -1, eos_id = -1, unk_id = -1, pad_id = -1;
  bool add_bos = false, add_eos = false;
};
// tokenizer.ggml.{bos,eos,unknown,padding}_token_id and add_{bos,eos}_token, each one of
// `fallback`'s when absent (llama.cpp's defaults differ by model), each id below `n`.
GgufSpecials gguf_specials(const GgufKeys& keys, const std::string& path, std::size_t n, const GgufSpecials& fallback);
// token_embd.weight, when there is one, has a row for each of the `n` tokens.
void gguf_check_table_rows(const gguf::File& file, std::size_t n);

// The vocabulary as llama.cpp's llama_vocab holds it for the SPM type
// ("llama"), and its tokenize(text, add_special = false, parse_special = false).
class GgufVocab {
 public:
  // The ids of `text`, without BOS/EOS. Throws UsageError naming the file when
  // a byte of the text has no piece (llama.cpp's byte_to_token fails there too).
  std::vector<int> encode(std::string_view text) const;

  const std::string& piece(int id) const { return pieces_[static_cast<std::size_t>(id)]; }
  std::size_t size() const { return pieces_.size(); }

 private:
  friend GgufSentencePiece gguf_sentencepiece(const gguf::File& file);
  std::string source_;
  std::vector<std::string> pieces_;
  std::vector<float> scores_;
  std::unordered_map<std::string_view, int> ids_;  // views of pieces_
  std::vector<int> user_defined_;                  // matched in text first, longest first
  std::array<int, 256> byte_ids_{};                // <0xNN> (else the byte as a piece), -1: none
  bool add_space_prefix_ = true;

  void add_fragment(std::string_view text, bool space_prefix, std::vector<int>& out) const;
  int byte_id(unsigned char byte) const;
};

struct GgufSentencePiece : GgufSpecials {
  std::string model;        // tokenizer.ggml.model
  std::string model_proto;  // a serialized sentencepiece ModelProto (names and decodes the ids)
  std::shared_ptr<const GgufVocab> vocab;  // encodes, as llama.cpp does
  std::size_t vocab_size = 0;
  std::string unk_piece;    // the piece unk_id names
  bool add_space_prefix = true;
  bool byte_fallback = false;
};

// Throws UsageError naming the file for a tokenizer model other than
// "llama" (pointing at ids), missing or mistyped tokenizer arrays, arrays of
// different lengths, special ids outside the vocabulary, a piece given twice,
// a token type outside llama_token_type, a byte piece that names no byte.
GgufSentencePiece gguf_sentencepiece(const gguf::File& file);

}  // namespace embedpe
