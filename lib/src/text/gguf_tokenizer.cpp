// tokenizer.ggml.* → a SentencePiece ModelProto. What the pieces mean follows
// llama.cpp (commit eb6a99c6fab2e530114a5fc996629ba17ec85096):
// convert_hf_to_gguf.py's _create_vocab_sentencepiece writes every piece of
// the original model with its score and its type (llama_token_type, numbered
// as sentencepiece's ModelProto.SentencePiece.Type), and src/llama-vocab.cpp
// reads "llama" as an SPM vocabulary (llm_tokenizer_spm: pairs of symbols
// merged highest score first, bytes <0xNN> for what no piece covers), with
// BOS 1, EOS 2, UNK 0, no PAD, add_bos true, add_eos false and
// add_space_prefix true unless the file's keys say otherwise. That is
// SentencePiece's BPE model over the same pieces and scores, with the identity
// normalizer (LLaMA's), a dummy prefix when add_space_prefix, whitespace kept
// as it is, and byte fallback when the vocabulary has byte pieces.
#include "gguf_tokenizer.h"

#include <cstdint>
#include <cstring>

#include "embedpe/error.h"
#include "gguf.h"
#include "protobuf_fields.h"

namespace embedpe {

namespace {

using protobuf::Field;

void put_varint(std::string& m, std::uint32_t number, std::uint64_t v) {
  protobuf::append(m, Field{number, protobuf::kVarint, v, {}});
}
void put_int(std::string& m, std::uint32_t number, std::int64_t v) {
  put_varint(m, number, static_cast<std::uint64_t>(v));  // int32: negative values sign-extended, as protobuf does
}
void put_bytes(std::string& m, std::uint32_t number, std::string_view bytes) {
  protobuf::append(m, Field{number, protobuf::kLengthDelimited, 0, bytes});
}
void put_float(std::string& m, std::uint32_t number, float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, 4);
  protobuf::append(m, Field{number, protobuf::kFixed32, bits, {}});
}

// TrainerSpec's special ids and pieces (sentencepiece_model.proto).
constexpr std::uint32_t kVocabSize = 4, kUnkId = 40, kBosId = 41, kEosId = 42, kPadId = 43, kBosPiece = 46,
                        kEosPiece = 47, kUnkPieceField = 45;

}  // namespace

GgufSentencePiece gguf_sentencepiece(const gguf::File& file) {
  const std::string& path = file.path();
  const auto refuse = [&path](const std::string& what) { throw UsageError(path + ": " + what); };
  GgufSentencePiece out;
  const std::optional<std::string> model = file.string_value("tokenizer.ggml.model");
  if (!model) throw UsageError(path + ": it holds no tokenizer (tokenizer.ggml.model): read ids with ids and the table with weights",
                     {"ids", "weights"});
  out.model = *model;
  if (out.model != "llama") {
    throw UsageError(path + ": its tokenizer is '" + out.model +
                         "' (tokenizer.ggml.model); embedpe rebuilds only SentencePiece ('llama') tokenizers: read ids "
                         "with ids and the file's table with weights",
                     {"ids", "weights"});
  }
  const gguf::Value* tokens = file.find("tokenizer.ggml.tokens");
  if (!tokens || tokens->type != gguf::ValueType::array || tokens->element_type != gguf::ValueType::string) {
    refuse("tokenizer.ggml.tokens is missing or not an array of strings");
  }
  const std::size_t n = tokens->count;
  if (n == 0) refuse("tokenizer.ggml.tokens is empty");
  const gguf::Value* scores = file.find("tokenizer.ggml.scores");
  if (scores && (scores->type != gguf::ValueType::array || scores->element_type != gguf::ValueType::float32 ||
                 scores->count != n)) {
    refuse("tokenizer.ggml.scores is not an array of " + std::to_string(n) + " float32s, one per token");
  }
  const gguf::Value* types = file.find("tokenizer.ggml.token_type");
  if (types && (types->type != gguf::ValueType::array || types->element_type != gguf::ValueType::int32 ||
                types->count != n)) {
    refuse("tokenizer.ggml.token_type is not an array of " + std::to_string(n) + " int32s, one per token");
  }
  const auto special = [&](const char* key, int fallback) -> int {
    const gguf::Value* v = file.find(key);
    if (!v) return fallback;
    const auto id = v->integer();
    if (!id || v->type == gguf::ValueType::boolean) refuse(std::string(key) + " is not an integer");
    if (*id < 0 || static_cast<std::uint64_t>(*id) >= n) {
      refuse(std::string(key) + " " + std::to_string(*id) + " is outside the " + std::to_string(n) + " tokens");
    }
    return static_cast<int>(*id);
  };
  out.vocab_size = n;
  out.bos_id = special("tokenizer.ggml.bos_token_id", 1 < n ? 1 : -1);
  out.eos_id = special("tokenizer.ggml.eos_token_id", 2 < n ? 2 : -1);
  out.unk_id = special("tokenizer.ggml.unknown_token_id", 0);
  out.pad_id = special("tokenizer.ggml.padding_token_id", -1);
  const auto flag = [&](const char* key, bool fallback) {
    const gguf::Value* v = file.find(key);
    if (!v) return fallback;
    if (v->type != gguf::ValueType::boolean) refuse(std::string(key) + " is not a bool");
    return v->i != 0;
  };
  out.add_bos = flag("tokenizer.ggml.add_bos_token", true);
  out.add_eos = flag("tokenizer.ggml.add_eos_token", false);
  out.add_space_prefix = flag("tokenizer.ggml.add_space_prefix", true);
  const bool remove_extra_whitespaces = flag("tokenizer.ggml.remove_extra_whitespaces", false);

  std::string proto;
  std::string piece;
  for (std::size_t k = 0; k < n; ++k) {
    piece.clear();
    put_bytes(piece, model_proto::kPiece, tokens->strings[k]);
    put_float(piece, model_proto::kScore, scores ? static_cast<float>(scores->element(k).f) : 0.0f);
    const std::int64_t type = types ? types->element(k).i : std::int64_t{model_proto::kNormal};
    if (type < model_proto::kNormal || type > model_proto::kByte) {
      refuse("token " + std::to_string(k) + " has type " + std::to_string(type) + " (1 to 6 expected)");
    }
    if (type == model_proto::kByte) out.byte_fallback = true;
    put_varint(piece, model_proto::kType, static_cast<std::uint64_t>(type));
    put_bytes(proto, model_proto::kPieces, piece);
  }
  std::string trainer;
  put_varint(trainer, model_proto::kModelType, model_proto::kModelBpe);
  put_int(trainer, kVocabSize, static_cast<std::int64_t>(n));
  if (out.byte_fallback) put_varint(trainer, model_proto::kByteFallback, 1);
  put_int(trainer, kUnkId, out.unk_id);
  put_int(trainer, kBosId, out.bos_id);
  put_int(trainer, kEosId, out.eos_id);
  put_int(trainer, kPadId, out.pad_id);
  put_bytes(trainer, kUnkPieceField, tokens->strings[static_cast<std::size_t>(out.unk_id)]);
  if (out.bos_id >= 0) put_bytes(trainer, kBosPiece, tokens->strings[static_cast<std::size_t>(out.bos_id)]);
  if (out.eos_id >= 0) put_bytes(trainer, kEosPiece, tokens->strings[static_cast<std::size_t>(out.eos_id)]);
  put_bytes(proto, model_proto::kTrainerSpec, trainer);
  std::string normalizer;
  put_bytes(normalizer, model_proto::kName, "identity");
  put_varint(normalizer, model_proto::kAddDummyPrefix, out.add_space_prefix ? 1 : 0);
  put_varint(normalizer, model_proto::kRemoveExtraWhitespaces, remove_extra_whitespaces ? 1 : 0);
  put_varint(normalizer, model_proto::kEscapeWhitespaces, 1);
  put_bytes(proto, model_proto::kNormalizerSpec, normalizer);
  out.model_proto = std::move(proto);
  return out;
}

}  // namespace embedpe
