// Private: a whole tokenizer.json pipeline, as HF tokenizers 0.22.2's
// Tokenizer::encode / decode compute it: added tokens split out (the
// non-normalized ones on the raw text, then the normalized ones on each
// normalized piece), the pre-tokenizer, the model on each piece, the
// post-processor (type ids included); decode through the decoder. The file's
// own truncation and padding are not applied (a plain transformers call
// switches them off).
//
//   auto tok = embedpe::tj::Tokenizer::load(text, "dir/tokenizer.json");
//   embedpe::tj::Encoded e = tok->encode("Hello", nullptr, true);   // ids, tokens, type ids
//   std::string s = tok->decode(e.ids, false);
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tj_added.h"
#include "tj_model.h"
#include "tj_normalizer.h"
#include "tj_post.h"
#include "tj_pre_tokenizer.h"

namespace embedpe::tj {

class Tokenizer {
 public:
  // `json`: the whole file; `shown` names it in messages. UsageError of one
  // line naming the field for anything HF would refuse or we do not support.
  static std::unique_ptr<Tokenizer> load(std::string_view json, const std::string& shown);

  // One text through added tokens, normalizer, pre-tokenizer and model, its type ids `type_id`;
  // without `tokens`, Encoded::tokens is left empty (cheaper, for ids alone).
  Encoded encode_one(std::string_view text, std::int32_t type_id, bool tokens = true) const;
  // The post-processor (or, without one, the default: the sequences as they are).
  Encoded post_process(Encoded a, std::optional<Encoded> b, bool add_special_tokens) const {
    return post_process_with(post_.get(), std::move(a), std::move(b), add_special_tokens);
  }
  // The same through another post-processor (nullptr: none).
  static Encoded post_process_with(const PostProcessor* post, Encoded a, std::optional<Encoded> b, bool add_special_tokens);
  Encoded encode(std::string_view text, const std::string_view* pair, bool add_special_tokens) const;
  std::size_t added_tokens(bool pair) const { return post_ ? post_->added_tokens(pair) : 0; }
  bool has_post_processor() const { return post_ != nullptr; }
  // transformers' update_post_processor (LlamaTokenizerFast, GemmaTokenizerFast).
  void set_post_processor(std::unique_ptr<PostProcessor> post) { post_ = std::move(post); }
  // transformers' PreTrainedTokenizerFast.__init__ adding tokens the file lacks
  // (its `_add_tokens`: AddedVocabulary::add_tokens after the file's own), and
  // BertTokenizerFast's normalizer replaced afterwards (`backend_tokenizer.normalizer
  // = ...`, which leaves the added tokens' patterns as they were).
  // `shown` names the tokens in messages.
  void add_tokens(const std::vector<AddedToken>& tokens, const std::string& shown);
  // HF's encode_special_tokens (transformers' split_special_tokens): special
  // added tokens are not matched, their text tokenized as any text.
  void set_encode_special_tokens(bool value);
  void set_normalizer(std::unique_ptr<Normalizer> normalizer) { normalizer_ = std::move(normalizer); }
  // The file's "normalizer" section as written ("" without one).
  const std::string& normalizer_text() const { return normalizer_text_; }
  // The pre_tokenizer section's own add_prefix_space (ByteLevel's), when it has one: what
  // GPT2TokenizerFast/RobertaTokenizerFast compare with their add_prefix_space argument.
  std::optional<bool> pre_tokenizer_add_prefix_space() const { return pre_add_prefix_space_; }
  bool has_pre_tokenizer() const { return pre_ != nullptr; }
  // Their rebuild of a ByteLevel pre_tokenizer with `on`; false (nothing changed) for any other.
  bool set_pre_tokenizer_add_prefix_space(bool on) {
    if (!pre_ || !pre_->set_add_prefix_space(on)) return false;
    pre_add_prefix_space_ = on;
    return true;
  }

  std::optional<std::string_view> id_to_token(std::int32_t id) const;
  std::optional<std::int32_t> token_to_id(std::string_view token) const;
  // One past the largest id (the model's and the added tokens'); ids below it
  // may name nothing (holes), which decode leaves out as HF does.
  std::size_t id_bound() const { return id_bound_; }
  bool is_special_id(std::int32_t id) const;
  std::string decode(const std::vector<std::int32_t>& ids, bool skip_special_tokens) const;

  const Model& model() const { return *model_; }
  const AddedVocabulary& added() const { return *added_; }
  // "normalizer NFC, pre_tokenizer Sequence[Split, ByteLevel], ..." for info.
  const std::string& components() const { return components_; }

 private:
  std::unique_ptr<Normalizer> normalizer_;
  std::unique_ptr<PreTokenizer> pre_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<PostProcessor> post_;
  std::unique_ptr<Decoder> decoder_;
  std::unique_ptr<AddedVocabulary> added_;
  // HF's AddedVocabulary as add_tokens leaves it (added_vocabulary.rs), from
  // which added_ is built (refresh_added_tokens) and a later add_tokens goes on.
  struct AddedState {
    std::unordered_map<std::string, std::int32_t> ids;  // added_tokens_map
    std::map<std::int32_t, AddedToken> by_id;           // added_tokens_map_r
    std::vector<AddedToken> specials, others;           // special_tokens, added_tokens
    std::set<std::string> special_set;
    // `fields[i]` names tokens[i] in messages.
    void add(const std::vector<AddedToken>& tokens, const Model& model, const std::vector<std::string>& fields);
    std::unique_ptr<AddedVocabulary> build(const Model& model, const Normalizer* normalizer, const std::string& shown) const;
  };
  AddedState added_state_;
  bool encode_special_tokens_ = false;
  void refresh_added(const std::string& shown);  // `shown`: the file, as messages name it
  void unknown_spans(std::string_view word, const std::vector<std::int32_t>& ids, std::vector<std::string>& tokens,
                     std::size_t first) const;
  std::optional<std::int32_t> unigram_unk_;  // a Unigram model's unk id: its tokens are the text they stand for
  bool model_maps_bytes_ = false;  // the pre-tokenizer leaves ByteLevel's mapping to the model
  std::size_t id_bound_ = 0;
  std::optional<bool> pre_add_prefix_space_;
  std::string components_;
  std::string normalizer_text_;  // the file's section, for what transformers changes
};

}  // namespace embedpe::tj
