// What a tokenizer's model is (ModelInfo, and a Hugging Face directory's
// PretrainedTokenizerInfo) and what it gives for one text (Encoding): the
// types Tokenizer (tokenizer.h) shares with the encoders behind it
// (src/text/token_encoder.h), on their own so that the encoders need nothing
// of Tokenizer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace embedpe {

// What a Hugging Face directory's tokenizer is (load_pretrained_tokenizer).
struct PretrainedTokenizerInfo {
  std::string directory;
  std::string tokenizer_class;        // e.g. "XLMRobertaTokenizer"
  bool padding_left = false;          // the directory's (or class's) padding_side
  bool truncation_left = false;
  bool token_type_ids = false;        // whether the class returns token_type_ids
  // Whether a pair gives them though single texts do not: a GGUF file's BPE, which names no
  // class (the second text's type id 1, as embedpe's own pairs).
  bool pair_token_type_ids = false;
  std::optional<std::size_t> model_max_length;
  // A tokenizer.json's: "tokenizer.json (model BPE, normalizer NFC, pre_tokenizer ...)"; else "".
  std::string description;
};

// What a model file holds, read from its ModelProto.
struct ModelInfo {
  std::string source;            // path, or "embedded default"
  std::int64_t vocab_size = 0;   // number of pieces
  int pad_id = -1;               // -1: the model defines none
  int bos_id = -1;
  int eos_id = -1;
  int unk_id = -1;
  std::string model_type;        // "unigram", "bpe", "word", "char"
  std::string normalizer;        // normalizer_spec.name, e.g. "nmt_nfkc"
  bool byte_fallback = false;
  // Options that decide whether ids match another tool's (the proto's
  // defaults when a model does not set them).
  bool add_dummy_prefix = true;           // normalizer_spec: a ' ' before each text
  bool remove_extra_whitespaces = true;   // normalizer_spec: leading, trailing, repeated ' ' dropped
  bool split_digits = false;              // trainer_spec: no piece holds two digits
  std::size_t size_bytes = 0;    // of the serialized model
  // Whether encode_batch adds BOS / EOS (when options ask and the model has
  // them): a GGUF file's add_bos_token / add_eos_token; else both.
  bool adds_bos = true;
  bool adds_eos = true;
  // For a tokenizer rebuilt from a GGUF file (load_pretrained_tokenizer): its
  // tokenizer.ggml.model ("llama"); empty otherwise.
  std::string gguf_model;
  // encode() caches the encodings of segments no vocabulary piece spans, output identical to
  // SentencePiece's (BPE models with the identity normalizer, lib/src/text/segment_cache.h;
  // unigram models, segments starting at each U+2581, lib/src/text/segment_unigram.h).
  // Otherwise texts go to SentencePiece whole.
  bool segment_cache = false;
  // Set for a tokenizer from a Hugging Face directory; vocab_size is then len(tokenizer)
  // and the ids are the HF class's.
  std::optional<PretrainedTokenizerInfo> pretrained;
};

// One text as SentencePiece encodes it. pieces[i] is the piece of ids[i];
// for <unk> it is the unknown surface text, as Python's
// encode(out_type=str) reports it.
struct Encoding {
  std::vector<int> ids;
  std::vector<std::string> pieces;
};

// Whether an encoding holds its pieces, or only its ids (pieces left empty:
// cheaper, for callers that write ids only).
enum class Pieces { keep, drop };

}  // namespace embedpe
