// Private: what a pretrained tokenizer behind embedpe::Tokenizer gives
// (load_pretrained_tokenizer): a text's ids and tokens, the template that adds
// special tokens (with type ids), the ids' tokens, its settings, and decode.
// Implemented by detail::HfTokenizer (a directory's slow SentencePiece class)
// and detail::TjPretrained (tokenizer.json, the fast tokenizer); one step of
// issue 46's single encoder interface.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace embedpe::detail {

class PretrainedEncoder {
 public:
  virtual ~PretrainedEncoder() = default;

  struct Sequence {
    std::vector<int> ids;
    std::vector<std::string> tokens;
  };
  // One text, no special tokens.
  virtual Sequence encode(std::string_view text) const = 0;
  // The same ids, the tokens left empty where that is cheaper (callers that write ids only).
  virtual Sequence encode_ids(std::string_view text) const { return encode(text); }
  struct Built {
    std::vector<int> ids;
    std::vector<int> types;
    std::vector<std::string> tokens;
  };
  // The template around `a` (and `b`); its tokens before/after the texts are
  // left out with add_prefix/add_suffix false.
  virtual Built build_sequences(const Sequence& a, const Sequence* b, bool add_prefix, bool add_suffix) const = 0;
  virtual std::size_t num_special_tokens_to_add(bool pair, bool add_prefix, bool add_suffix) const = 0;

  virtual const std::string& class_name() const = 0;
  // Every id below it may name a token (piece() of one that does not is "").
  virtual std::size_t size() const = 0;
  virtual std::string_view piece(int id) const = 0;
  std::optional<int> pad_id() const { return special_id("pad_token"); }
  virtual std::optional<int> special_id(const std::string& attribute) const = 0;  // "bos_token", ...
  virtual bool has_token_type_ids() const = 0;
  // Whether a pair's types are given though single texts' are not (PretrainedTokenizerInfo).
  virtual bool has_pair_token_type_ids() const { return false; }
  virtual int pad_token_type_id() const = 0;
  virtual bool padding_left() const = 0;
  virtual bool truncation_left() const = 0;
  virtual std::optional<std::size_t> model_max_length() const = 0;
  // The SHA-256 of the files that decide the ids (ModelFiles::digest).
  virtual const std::string& files_digest() const = 0;
  virtual std::string decode(const std::vector<int>& ids, bool skip_special_tokens) const = 0;
  // What info says of it ("tokenizer.json: model BPE, normalizer NFC, ..."); "" for nothing more.
  virtual std::string description() const { return ""; }
  // Whether a pair may leave the whole template out (add_special_tokens=False).
  virtual bool pairs_without_special_tokens() const { return false; }
  // Whether the template is added whole or not at all (add_bos and add_eos both, or neither).
  virtual bool template_whole() const { return false; }
  // Whose truncation to max_length this is.
  //   slow: transformers' slow classes (tokenization_utils_base.py truncate_sequences): a pair's
  //     longest_first takes one token at a time from the longer (the second on a tie); a single
  //     text that cannot be cut enough is left longer than max_length (an error is logged).
  //   core: HF tokenizers' core (tokenizers/src/utils/truncation.rs truncate_encodings): a pair is
  //     cut to halves, the longer keeping the odd one; a text may be cut to nothing, so a max_length
  //     equal to the template's size gives the template alone.
  enum class Truncation { slow, core };
  virtual Truncation truncation() const { return Truncation::slow; }
};

}  // namespace embedpe::detail
