// A GGUF file's byte-level BPE tokenizer (tokenizer.ggml.model "gpt2", as
// llama.cpp's convert_hf_to_gguf.py _set_vocab_gpt2 writes LLaMA-3, Qwen,
// DeepSeek-V3 and GPT-2): rebuilt as the model's tokenizer.json and run by the
// tokenizer.json engine (tj_tokenizer.h), so that the ids are that file's.
//
//   auto file = embedpe::gguf::File::open("qwen2.5-0.5b.Q8_0.gguf");
//   embedpe::GgufBpe g = embedpe::gguf_bpe(embedpe::gguf_keys(*file), file->path());
//   auto tok = embedpe::tj::Tokenizer::load(g.tokenizer_json, g.shown);
//   std::unique_ptr<embedpe::detail::PretrainedEncoder> e = embedpe::gguf_bpe_encoder(*file);
//
// What the file holds and what the tokenizer.json gets (gguf_bpe.cpp says why):
//  - tokenizer.ggml.tokens: the BPE model's vocabulary, id = index;
//  - tokenizer.ggml.merges: its merges, in rank order, each "a b";
//  - tokenizer.ggml.token_type: CONTROL (and UNKNOWN) tokens become special added
//    tokens, USER_DEFINED ones added tokens that are not special, all matched in
//    the text before the model (normalized false, as the converter's files have
//    them); UNUSED ones ([PADn] fillers) are ids without text;
//  - tokenizer.ggml.pre: the normalizer and pre-tokenizer of the model's
//    tokenizer.json, from a table with one entry per name; a name not in the
//    table is refused by name;
//  - bos/eos/unk/pad ids and add_bos_token/add_eos_token: what encode adds.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gguf_tokenizer.h"

namespace embedpe {

namespace detail {
class PretrainedEncoder;
}

struct GgufBpe : GgufSpecials {
  std::string pre;             // tokenizer.ggml.pre
  std::string tokenizer_json;  // the tokenizer.json the file stands for (no post-processor: see bos/eos)
  std::string shown;           // "PATH (tokenizer.ggml.*)": names it in the engine's messages
  std::size_t vocab_size = 0;
  std::vector<std::uint8_t> unused;  // 1 for the ids typed UNUSED
  std::string components;      // "normalizer NFC, pre_tokenizer Sequence[Split, ByteLevel]" for info
};

// Throws UsageError naming `path` and the key for a tokenizer model other than
// "gpt2", a missing or unknown pre, missing or mistyped arrays, arrays of
// different lengths, a token type outside llama_token_type (or BYTE), a token
// that is not UTF-8 or is given twice, a merge that is not two tokens joining
// into a third, a byte ByteLevel maps to a character that is no token, special
// ids outside the vocabulary.
GgufBpe gguf_bpe(const GgufKeys& keys, const std::string& path);

// What a pre stands for ("normalizer NFC, pre_tokenizer Sequence[...]"), for
// info; nullopt for a name not in the table.
std::optional<std::string> gguf_bpe_pre_components(std::string_view pre);

// The tokenizer behind embedpe::Tokenizer for such a file (load_pretrained_tokenizer).
std::unique_ptr<detail::PretrainedEncoder> gguf_bpe_encoder(const gguf::File& file, GgufBpe* info);

}  // namespace embedpe
