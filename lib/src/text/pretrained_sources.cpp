// The Hugging Face source formats (token_encoder.h): a directory's tokenizer.json (the fast
// tokenizer, tj_pretrained.h) or its slow SentencePiece class (hf_tokenizer.h), both a
// PretrainedEncoder behind one TokenEncoder; and load_pretrained_tokenizer, which picks the
// source format of a path (a GGUF file: gguf_encoder.cpp).
#include <sys/stat.h>

#include <algorithm>

#include "embedpe/error.h"
#include "embedpe/message.h"
#include "embedpe/pretrained_tokenizer.h"
#include "embedpe/weights.h"
#include "file_name.h"
#include "hf_tokenizer.h"
#include "model_files.h"
#include "pretrained_encoder.h"
#include "tj_pretrained.h"
#include "tokenizer_impl.h"

namespace embedpe {

namespace detail {

namespace {

// A pretrained tokenizer: its ids, tokens, template (pretrained()) and decode.
class PretrainedTokenEncoder final : public TokenEncoder {
 public:
  PretrainedTokenEncoder(std::unique_ptr<PretrainedEncoder> encoder, std::string digest_file)
      : encoder_(std::move(encoder)), digest_file_(std::move(digest_file)) {}

  Encoding encode(std::string_view text, Pieces pieces) const override {
    PretrainedEncoder::Sequence seq = encoder_->encode(text);
    Encoding e{std::move(seq.ids), std::move(seq.tokens)};
    if (pieces == Pieces::drop) e.pieces.clear();
    return e;
  }
  std::string_view id_to_piece(int id) const override { return encoder_->piece(id); }
  // Pairs take the template (pretrained()), never a piece looked up by name.
  int piece_to_id(std::string_view) const override { return -1; }
  std::string decode(const std::vector<int>& ids, bool skip_special_tokens) const override {
    return encoder_->decode(ids, skip_special_tokens);
  }
  std::string digest() const override {
    return digest_file_.empty() ? encoder_->files_digest() : file_sha256(digest_file_);
  }
  const PretrainedEncoder* pretrained() const override { return encoder_.get(); }

 private:
  std::unique_ptr<PretrainedEncoder> encoder_;
  std::string digest_file_;
};

// What info() reports of a pretrained tokenizer, over what `info` holds already.
LoadedEncoder pretrained_encoder(std::unique_ptr<PretrainedEncoder> p, const std::string& dir, ModelInfo info,
                                 std::string description) {
  info.source = dir;
  info.vocab_size = static_cast<std::int64_t>(p->size());
  info.pad_id = p->pad_id().value_or(-1);
  info.bos_id = p->special_id("bos_token").value_or(-1);
  info.eos_id = p->special_id("eos_token").value_or(-1);
  info.unk_id = p->special_id("unk_token").value_or(-1);
  // What the template puts around one text (the config records what is done): BOS when the
  // BOS token comes before the text, EOS when the EOS token comes after it. The text is one
  // id the template itself does not hold.
  const std::vector<int> bare = p->build_sequences({}, nullptr, true, true).ids;
  int text_id = 0;
  while (std::find(bare.begin(), bare.end(), text_id) != bare.end()) ++text_id;
  const PretrainedEncoder::Built around =
      p->build_sequences({{text_id}, {std::string(p->piece(text_id))}}, nullptr, true, true);
  const auto text_at = std::find(around.ids.begin(), around.ids.end(), text_id);
  info.adds_bos = info.bos_id >= 0 && std::find(around.ids.begin(), text_at, info.bos_id) != text_at;
  info.adds_eos = info.eos_id >= 0 && text_at != around.ids.end() &&
                  std::find(text_at + 1, around.ids.end(), info.eos_id) != around.ids.end();
  info.pretrained = PretrainedTokenizerInfo{.directory = dir,
                                            .tokenizer_class = p->class_name(),
                                            .padding_left = p->padding_left(),
                                            .truncation_left = p->truncation_left(),
                                            .token_type_ids = p->has_token_type_ids(),
                                            .model_max_length = p->model_max_length(),
                                            .description = std::move(description)};
  return LoadedEncoder{pretrained_token_encoder(std::move(p)), std::move(info)};
}

// A tokenizer.json file, or a directory holding one: AutoTokenizer's fast tokenizer.
bool is_tokenizer_json(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return false;
  // Anything there, a link to nothing too: its reader names what is wrong with it.
  if (S_ISDIR(st.st_mode)) return ::lstat((path + "/tokenizer.json").c_str(), &st) == 0;
  return is_tokenizer_json_file(path);
}

// The fast tokenizer: AutoTokenizer.from_pretrained(DIR) with tokenizer.json there.
LoadedEncoder load_fast(const std::string& dir) {
  std::unique_ptr<PretrainedEncoder> fast = load_tokenizer_json(dir);
  ModelInfo info;
  info.model_type = "tokenizer.json";
  std::string description = fast->description();
  return pretrained_encoder(std::move(fast), dir, std::move(info), std::move(description));
}

// The slow class (AutoTokenizer's use_fast=False). The rest of info() is its SentencePiece
// file's; its identity is every file that decides the ids, not the SentencePiece file alone.
LoadedEncoder load_slow(const std::string& dir) {
  std::unique_ptr<HfTokenizer> hf = HfTokenizer::load(dir);
  LoadedEncoder model = load_model_file(hf->main_model_path());
  return pretrained_encoder(std::move(hf), dir, std::move(model.info), "");
}

}  // namespace

std::unique_ptr<TokenEncoder> pretrained_token_encoder(std::unique_ptr<PretrainedEncoder> encoder,
                                                       std::string digest_file) {
  return std::make_unique<PretrainedTokenEncoder>(std::move(encoder), std::move(digest_file));
}

}  // namespace detail

bool is_tokenizer_json_file(const std::string& path) {
  struct stat st;
  return lower_extension(path) == ".json" && !(::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode));
}

Tokenizer load_pretrained_tokenizer(const std::string& dir, PretrainedTokenizerKind kind) {
  refuse_missing_pretrained(dir);
  if (kind == PretrainedTokenizerKind::slow && is_tokenizer_json_file(dir)) {
    throw (Message() << "tokenizer"
                     << Verbatim{" slow reads a model directory's slow-tokenizer files; " + dir +
                                 " is a tokenizer.json file (the fast class reads it: leave the default)"})
        .usage_error({"tokenizer"});
  }
  detail::LoadedEncoder loaded = is_gguf_file(dir) ? detail::load_gguf_encoder(dir)
                                 : kind == PretrainedTokenizerKind::fast_if_any && detail::is_tokenizer_json(dir)
                                     ? detail::load_fast(dir)
                                     : detail::load_slow(dir);
  return Tokenizer(std::make_unique<Tokenizer::Impl>(std::move(loaded)));
}

EncodeOptions pretrained_encode_options(const Tokenizer& tokenizer) {
  EncodeOptions options;
  if (const auto& p = tokenizer.info().pretrained) {
    options.padding_side = p->padding_left ? Side::left : Side::right;
    options.truncation_side = p->truncation_left ? Side::left : Side::right;
  }
  return options;
}

EncodeOptions pretrained_encode_options(const Tokenizer& tokenizer, EncodeOptions given,
                                        std::optional<Side> padding_side, std::optional<Side> truncation_side) {
  const EncodeOptions defaults = pretrained_encode_options(tokenizer);
  given.padding_side = padding_side.value_or(defaults.padding_side);
  given.truncation_side = truncation_side.value_or(defaults.truncation_side);
  check_padding(given);
  return given;
}

}  // namespace embedpe
