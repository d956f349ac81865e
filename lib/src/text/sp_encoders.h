// Private: the three SentencePiece algorithms behind TokenEncoder (token_encoder.h), one
// file each, and what they share: the model's bytes, SentencePiece loaded when first needed,
// a text encoded by SentencePiece whole.
#pragma once

#include <sentencepiece_processor.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "segment_cache.h"
#include "segment_unigram.h"
#include "token_encoder.h"

namespace embedpe::detail {

// A failed load's status as a message; SentencePiece's own log lines are off
// (load_model_proto), so a failed self-test says what failed instead of "See LOG(INFO)".
std::string load_failure(const sentencepiece::util::Status& status);
// Segments are encoded without the dummy prefix: the prefix belongs to the text, not to each segment.
sentencepiece::util::Status load_without_dummy_prefix(sentencepiece::SentencePieceProcessor& sp,
                                                      std::string_view serialized);
// One text as SentencePiece's Encode gives it.
Encoding encode_whole(const sentencepiece::SentencePieceProcessor& sp, std::string_view text);

// A model's bytes the encoder keeps, on the heap so that views into them (`serialized`, and
// the segment models' pieces) stay where they are when the holder moves, whatever its size
// (a std::string's short bytes would move with it). Null: bytes that outlive the encoder.
using OwnedModel = std::unique_ptr<const std::string>;

// The model's bytes (its digest is theirs) and the name messages give it.
class SentencePieceEncoder : public TokenEncoder {
 public:
  SentencePieceEncoder(OwnedModel owned, std::string_view serialized, std::string source)
      : owned_(std::move(owned)), serialized_(owned_ ? std::string_view(*owned_) : serialized),
        source_(std::move(source)) {}
  std::string digest() const override;

 protected:
  // SentencePiece loaded on first use: the model as it is, or without its dummy prefix.
  const sentencepiece::SentencePieceProcessor& lazy(bool without_dummy_prefix) const;
  // SentencePiece's DecodeIds.
  static std::string decode_with(const sentencepiece::SentencePieceProcessor& sp, const std::vector<int>& ids);

  OwnedModel owned_;
  std::string_view serialized_;  // *owned_, or bytes that outlive the encoder (the embedded model)
  std::string source_;

 private:
  mutable std::once_flag lazy_once_;
  mutable sentencepiece::SentencePieceProcessor lazy_;
};

// SentencePiece itself, each text whole: sp_whole.cpp.
class WholeSentencePiece final : public SentencePieceEncoder {
 public:
  // `sp` holds the model, loaded.
  WholeSentencePiece(OwnedModel owned, std::string_view serialized, std::string source,
                     std::unique_ptr<sentencepiece::SentencePieceProcessor> sp)
      : SentencePieceEncoder(std::move(owned), serialized, std::move(source)), sp_(std::move(sp)) {}
  Encoding encode(std::string_view text, Pieces pieces) const override;
  std::string_view id_to_piece(int id) const override;
  int piece_to_id(std::string_view piece) const override;
  std::string decode(const std::vector<int>& ids, bool skip_special_tokens) const override;

 private:
  std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_;
};

// A BPE model by segments, its cache and SegmentBpe (segment_cache.h): sp_segment_bpe.cpp.
// With a SegmentBpe, SentencePiece (without the dummy prefix) is loaded only when a text
// needs it; without one, `sp` holds it, loaded.
class SegmentBpeEncoder final : public SentencePieceEncoder {
 public:
  SegmentBpeEncoder(OwnedModel owned, std::string_view serialized, std::string source,
                    std::unique_ptr<SegmentEncoder> segments,
                    std::unique_ptr<sentencepiece::SentencePieceProcessor> sp);
  Encoding encode(std::string_view text, Pieces pieces) const override;
  std::string_view id_to_piece(int id) const override;
  int piece_to_id(std::string_view piece) const override;
  std::string decode(const std::vector<int>& ids, bool skip_special_tokens) const override;

 private:
  const sentencepiece::SentencePieceProcessor& processor() const;
  std::unique_ptr<SegmentEncoder> segments_;
  std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_;  // null: lazy(true)
  // For decode (sp lacks the dummy prefix, which would leave the text's leading space): the model as it is.
  mutable std::once_flag decoder_once_;
  mutable sentencepiece::SentencePieceProcessor decoder_;
};

// A unigram model by segments (segment_unigram.h): sp_segment_unigram.cpp. SentencePiece
// (the model as it is) is loaded when a text SegmentUnigram leaves, or decode, needs it.
class SegmentUnigramEncoder final : public SentencePieceEncoder {
 public:
  SegmentUnigramEncoder(OwnedModel owned, std::string_view serialized, std::string source, SegmentUnigram unigram)
      : SentencePieceEncoder(std::move(owned), serialized, std::move(source)), unigram_(std::move(unigram)) {}
  Encoding encode(std::string_view text, Pieces pieces) const override;
  std::string_view id_to_piece(int id) const override { return unigram_.piece(id); }
  int piece_to_id(std::string_view piece) const override { return unigram_.piece_to_id(piece); }
  std::string decode(const std::vector<int>& ids, bool skip_special_tokens) const override;

 private:
  SegmentUnigram unigram_;
};

}  // namespace embedpe::detail
