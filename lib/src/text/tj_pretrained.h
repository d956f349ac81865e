// Private: a tokenizer.json behind embedpe::Tokenizer, as
// AutoTokenizer.from_pretrained(DIR) builds the fast tokenizer from it
// (transformers v4.44.2): the file through tj::Tokenizer, then what the
// directory's tokenizer_config.json adds: LlamaTokenizerFast's and
// GemmaTokenizerFast's template rebuilt from add_bos_token/add_eos_token, the
// special tokens (pad, bos, eos, unk, ...) and those PreTrainedTokenizerFast
// adds when the file lacks them, BertTokenizerFast's normalizer rebuilt from
// do_lower_case/strip_accents/tokenize_chinese_chars, the padding and truncation sides,
// model_max_length and the class's model_input_names. A bare tokenizer.json
// is Tokenizer.from_file(PATH): no settings beyond the file.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "pretrained_encoder.h"

namespace embedpe::tj {
class Tokenizer;
}

namespace embedpe::detail {

// What every encoder over a tj::Tokenizer shares (the tokenizer.json of a
// directory or file, and the one gguf_bpe.h rebuilds from a GGUF): a text's
// ids and tokens through the engine (added-token split, normalizer,
// pre-tokenizer, model; no template), the ids' tokens, and how a pair goes
// (HF tokenizers' core: the template may be left out, longest_first cuts halves).
class TjEncoder : public PretrainedEncoder {
 public:
  explicit TjEncoder(std::unique_ptr<tj::Tokenizer> tok);
  ~TjEncoder() override;
  Sequence encode(std::string_view text) const override;
  Sequence encode_ids(std::string_view text) const override;
  std::string_view piece(int id) const override;
  bool pairs_without_special_tokens() const override { return true; }
  Truncation truncation() const override { return Truncation::core; }

  std::unique_ptr<tj::Tokenizer> tok_;
};

// `path`: a directory holding tokenizer.json, or a tokenizer.json file.
std::unique_ptr<PretrainedEncoder> load_tokenizer_json(const std::string& path);

}  // namespace embedpe::detail
