// A GGUF file's tokenizer (tokenizer.ggml.*) rebuilt as the SentencePiece
// model it was converted from, for Tokenizer::from_bytes.
//
//   embedpe::GgufSentencePiece g = embedpe::gguf_sentencepiece(*gguf_file);
//   embedpe::Tokenizer t = embedpe::Tokenizer::from_bytes(g.model_proto, path);
#pragma once

#include <cstddef>
#include <string>

namespace embedpe {

namespace gguf {
class File;
}

struct GgufSentencePiece {
  std::string model;        // tokenizer.ggml.model
  std::string model_proto;  // a serialized sentencepiece ModelProto
  std::size_t vocab_size = 0;
  int bos_id = -1, eos_id = -1, unk_id = -1, pad_id = -1;  // -1: none
  bool add_bos = true, add_eos = false, add_space_prefix = true;  // llama.cpp's defaults for "llama"
  bool byte_fallback = false;
};

// Throws UsageError naming the file for a tokenizer model other than
// "llama" (pointing at ids), missing or mistyped tokenizer arrays, arrays of
// different lengths, special ids outside the vocabulary.
GgufSentencePiece gguf_sentencepiece(const gguf::File& file);

}  // namespace embedpe
