// A Hugging Face slow (SentencePiece) tokenizer as AutoTokenizer.from_pretrained(DIR,
// use_fast=False) builds it, read from the directory's files: the class's id mapping,
// its added tokens (split out of the text before SentencePiece), its normalisation and
// its template of special tokens. The classes are a table (hf_classes.cpp), one entry and one
// __init__ function each. Behind embedpe::Tokenizer (pretrained_tokenizer.h);
// it is checked against goldens that tools/make_hf_tokenizer_goldens.py writes by running
// transformers v4.44.2 itself (../shared/tools/hfenv/).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pretrained_encoder.h"

namespace embedpe::detail {

namespace hf {
struct Config;
struct Impl;  // hf_impl.h
}

class HfTokenizer final : public PretrainedEncoder {
 public:
  // Throws UsageError (one line) for a directory it cannot use.
  static std::unique_ptr<HfTokenizer> load(const std::string& dir);
  ~HfTokenizer() override;

  // tokenize + convert_tokens_to_ids: one text, no special tokens.
  Sequence encode(std::string_view text) const override;
  // build_inputs_with_special_tokens and create_token_type_ids_from_sequences.
  // prefix/suffix of the template are left out with add_prefix/add_suffix false.
  Built build(const std::vector<int>& a, const std::vector<int>* b, bool add_prefix, bool add_suffix) const;
  Built build_sequences(const Sequence& a, const Sequence* b, bool add_prefix, bool add_suffix) const override {
    Built built = build(a.ids, b ? &b->ids : nullptr, add_prefix, add_suffix);
    for (int id : built.ids) built.tokens.push_back(token(id));
    return built;
  }
  std::size_t num_special_tokens_to_add(bool pair, bool add_prefix, bool add_suffix) const override;

  const std::string& class_name() const override { return class_name_; }
  std::size_t size() const override { return id_to_token_.size(); }  // len(tokenizer): every id below it has a token
  const std::string& token(int id) const;                            // convert_ids_to_tokens
  std::string_view piece(int id) const override { return token(id); }
  std::optional<int> special_id(const std::string& attribute) const override;  // "bos_token", ...
  bool is_special(int id) const;
  bool has_token_type_ids() const override { return token_type_ids_; }
  int pad_token_type_id() const override { return pad_token_type_id_; }
  bool padding_left() const override { return padding_left_; }
  bool truncation_left() const override { return truncation_left_; }
  std::optional<std::size_t> model_max_length() const override { return model_max_length_; }
  std::string main_model_path() const { return main_model_; }
  // The SHA-256 of every file of the directory that load() read (ModelFiles::digest):
  // what decides the ids, so what a record of them names.
  const std::string& files_digest() const override { return files_digest_; }
  // decode(ids, skip_special_tokens)
  std::string decode(const std::vector<int>& ids, bool skip_special_tokens) const override;

  using Impl = hf::Impl;

 private:
  HfTokenizer();
  // len(tokenizer) and each id's token; token types, sides and model_max_length.
  void set_ids_and_settings(const hf::Config& config);
  std::unique_ptr<Impl> impl_;
  std::string class_name_, main_model_, files_digest_;
  std::vector<std::string> id_to_token_;
  bool token_type_ids_ = false, padding_left_ = false, truncation_left_ = false;
  int pad_token_type_id_ = 0;
  std::optional<std::size_t> model_max_length_;
};

}  // namespace embedpe::detail
