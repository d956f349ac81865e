// The GGUF source format (token_encoder.h): a GGUF file's tokenizer.ggml.* read by
// gguf_tokenizer.h, whose GgufVocab encodes as llama.cpp does; the vocabulary rebuilt as a
// SentencePiece model names and decodes the ids. A byte-level BPE vocabulary (`gpt2`) is
// the tokenizer.json it was converted from (gguf_bpe.h). load_gguf_encoder is the one place
// a GGUF file becomes a tokenizer.
#include "embedpe/error.h"
#include "embedpe/weights.h"
#include "gguf.h"
#include "gguf_bpe.h"
#include "pretrained_encoder.h"
#include "gguf_tokenizer.h"
#include "in_file.h"
#include "sha256.h"
#include "token_encoder.h"

namespace embedpe::detail {

namespace {

// llama.cpp's SPM tokenizer over the vocabulary; `names` (the SentencePiece model) for the rest.
class GgufSpmEncoder final : public TokenEncoder {
 public:
  GgufSpmEncoder(std::shared_ptr<const GgufVocab> vocab, std::unique_ptr<TokenEncoder> names, std::string path)
      : vocab_(std::move(vocab)), names_(std::move(names)), path_(std::move(path)) {}

  Encoding encode(std::string_view text, Pieces pieces) const override {
    Encoding e;
    e.ids = vocab_->encode(text);
    if (pieces != Pieces::drop) {
      e.pieces.reserve(e.ids.size());
      for (int id : e.ids) e.pieces.push_back(vocab_->piece(id));
    }
    return e;
  }
  std::string_view id_to_piece(int id) const override { return names_->id_to_piece(id); }
  int piece_to_id(std::string_view piece) const override { return names_->piece_to_id(piece); }
  std::string decode(const std::vector<int>& ids, bool skip_special_tokens) const override {
    return names_->decode(ids, skip_special_tokens);
  }
  // The file's own (sha256sum FILE).
  std::string digest() const override { return file_sha256(path_); }

 private:
  std::shared_ptr<const GgufVocab> vocab_;
  std::unique_ptr<TokenEncoder> names_;
  std::string path_;
};

void set_specials(const GgufSpecials& g, ModelInfo& info) {
  info.bos_id = g.bos_id;
  info.eos_id = g.eos_id;
  info.unk_id = g.unk_id;
  info.pad_id = g.pad_id;
  info.adds_bos = g.add_bos;
  info.adds_eos = g.add_eos;
}

// A byte-level BPE vocabulary: the tokenizer.json it was converted from, run by tj_tokenizer.h.
LoadedEncoder load_gguf_bpe(const gguf::File& file, const std::string& path) {
  GgufBpe g;
  std::unique_ptr<PretrainedEncoder> bpe = gguf_bpe_encoder(file, &g);
  LoadedEncoder out;
  ModelInfo& info = out.info;
  info.source = path;
  info.model_type = "bpe";
  info.vocab_size = static_cast<std::int64_t>(g.vocab_size);
  set_specials(g, info);
  info.gguf_model = "gpt2";
  info.pretrained = PretrainedTokenizerInfo{
      .directory = path,
      .tokenizer_class = bpe->class_name(),
      .pair_token_type_ids = bpe->has_pair_token_type_ids(),
      .description = bpe->description()};
  out.encoder = pretrained_token_encoder(std::move(bpe), path);
  return out;
}

}  // namespace

std::string file_sha256(const std::string& path) {
  const InFile file(path);
  Sha256 h;
  file.each_chunk(0, file.size(), [&h](std::string_view piece) { h.update(piece); });
  return h.hex();
}

LoadedEncoder load_gguf_encoder(const std::string& path) {
  // Its one mapping (WeightFile's: the one a ModelSource keeps for the layer too).
  const std::shared_ptr<const WeightFile> weights = WeightFile::open(path);
  const gguf::File& file = *weights->gguf();
  if (file.string_value("tokenizer.ggml.model") == "gpt2") return load_gguf_bpe(file, path);
  // The SentencePiece model its metadata was converted from.
  const GgufSentencePiece g = gguf_sentencepiece(file);
  std::optional<LoadedEncoder> loaded;
  try {
    loaded.emplace(load_model_proto(g.model_proto, {}, path));
  } catch (const UsageError&) {
    throw;
  } catch (const Error& e) {
    // The vocabulary is the file's: what SentencePiece cannot load is a bad file.
    std::string why = e.what();
    if (const std::size_t hint = why.find("; give a SentencePiece"); hint != std::string::npos) why.erase(hint);
    throw UsageError(path + ": its vocabulary (tokenizer.ggml.*) is not usable: " + why);
  }
  LoadedEncoder out;
  out.encoder = std::make_unique<GgufSpmEncoder>(g.vocab, std::move(loaded->encoder), path);
  out.info = std::move(loaded->info);
  ModelInfo& info = out.info;
  set_specials(g, info);
  info.gguf_model = g.model;
  return out;
}

}  // namespace embedpe::detail
