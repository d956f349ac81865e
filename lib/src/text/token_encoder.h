// Private: the one encoder interface behind embedpe::Tokenizer, as sentencepiece has one
// ModelInterface and a ModelFactory. A TokenEncoder turns one text into ids and pieces,
// names and decodes ids and says what identifies it; Tokenizer adds BOS/EOS, pads and
// truncates around it and holds nothing else.
//
// One implementation per algorithm:
//   sp_whole.cpp            SentencePiece itself, each text whole
//   sp_segment_bpe.cpp      a BPE model by segments (segment_cache.h, segment_bpe.h)
//   sp_segment_unigram.cpp  a unigram model by segments (segment_unigram.h)
//   pretrained_sources.cpp  a PretrainedEncoder (an HF slow class, tokenizer.json's pipeline)
//   gguf_encoder.cpp        llama.cpp's SPM tokenizer over a GGUF file's vocabulary
// and one factory per source format, each giving a LoadedEncoder:
//   load_model_proto / load_model_file   a SentencePiece .model (sp_model_file.cpp; it picks
//                                        one of the three SentencePiece algorithms)
//   load_hf_slow / load_tokenizer_json_encoder  an HF directory (pretrained_sources.cpp)
//   load_gguf_encoder                    a GGUF file's tokenizer.ggml.* (gguf_encoder.cpp)
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "embedpe/model_info.h"

namespace embedpe::detail {

class PretrainedEncoder;

class TokenEncoder {
 public:
  virtual ~TokenEncoder() = default;
  // One text, no special tokens (Pieces::drop: pieces left empty).
  virtual Encoding encode(std::string_view text, Pieces pieces) const = 0;
  // The piece of an id in 0 .. vocab_size - 1; the view lives as long as the encoder.
  virtual std::string_view id_to_piece(int id) const = 0;
  // The id of a piece, as SentencePiece's PieceToId (its unk id, or 0, when it has none):
  // callers check id_to_piece of the answer.
  virtual int piece_to_id(std::string_view piece) const = 0;
  // Ids already checked against the vocabulary; skip_special_tokens is a pretrained
  // tokenizer's (HF's decode), the others decode every id as SentencePiece's DecodeIds.
  virtual std::string decode(const std::vector<int>& ids, bool skip_special_tokens) const = 0;
  // What identifies it (Tokenizer::sha256); called once, when first asked for.
  virtual std::string digest() const = 0;
  // A pretrained tokenizer's template of special tokens and settings (hf_batch); null for
  // a model that adds BOS/EOS as ModelInfo says.
  virtual const PretrainedEncoder* pretrained() const { return nullptr; }
};

// What a source format's factory gives: the encoder and what info() reports of it.
struct LoadedEncoder {
  std::unique_ptr<TokenEncoder> encoder;
  ModelInfo info;
};

// A serialized SentencePiece ModelProto (`source` names it in messages and ModelInfo):
// SegmentUnigram, SegmentBpe or SentencePiece whole, whichever reproduces the model.
// `owned` keeps the bytes when `serialized` does not outlive the encoder (else empty).
LoadedEncoder load_model_proto(std::string owned, std::string_view serialized, const std::string& source);
// A .model file: a regular file of at most Tokenizer::kMaxModelBytes (tokenizer.h), noted as an input.
LoadedEncoder load_model_file(const std::string& path);
// A GGUF file's tokenizer.ggml.* (load_pretrained_tokenizer's one place for GGUF files).
LoadedEncoder load_gguf_encoder(const std::string& path);
// A PretrainedEncoder behind this interface (pretrained_sources.cpp). Its digest is that of
// the files it read, or, with `digest_file`, that file's own SHA-256 (a GGUF file's).
std::unique_ptr<TokenEncoder> pretrained_token_encoder(std::unique_ptr<PretrainedEncoder> encoder,
                                                       std::string digest_file = {});
// sha256sum FILE, read in chunks, not mapped: hashing a 7 GB file keeps 4 MiB resident.
std::string file_sha256(const std::string& path);

}  // namespace embedpe::detail
