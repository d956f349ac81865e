// Private: the parts of the HF slow tokenizers (hf_tokenizer.h) that hf_tokenizer.cpp (the
// directory's files, added tokens, decode), hf_impl.cpp (PreTrainedTokenizer's methods and
// each Kind's ids, tokenize and convert_tokens_to_string) and hf_classes.cpp (the table of
// classes, each with its __init__, template and language codes) share.
#pragma once

#include <sentencepiece_processor.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "hf_text.h"
#include "pretrained_encoder.h"

namespace embedpe {
class ModelFiles;
}

namespace embedpe::detail::hf {

using nlohmann::json;

// tokenization_utils_base.AddedToken
struct AddedToken {
  std::string content;
  bool single_word = false, lstrip = false, rstrip = false, special = false, normalized = true;
};

struct Impl;  // HfTokenizer's (HfTokenizer::Impl), below

enum class Kind { t5, llama, gemma, albert, xlnet, xlmr, camembert, mbart, mbart50, nllb, m2m100, marian, deberta, pegasus,
                  barthez, codellama };

// A special-token value: a string or an AddedToken, as the classes receive them.
struct Special {
  AddedToken token;
  bool is_string = true;
};
// A special token as the directory's files give it (from_map: special_tokens_map.json's,
// special whatever it says); nullopt for null.
std::optional<Special> special_from(const json& v, bool from_map);

// A value of the directory's JSON of the wrong type or range: one line naming
// the file, the key, the value and what is expected.
[[noreturn]] void refuse_value(const std::string& file, const std::string& key, const json& value,
                               const std::string& expected);
// An id the directory gives: an integer from 0 to 2^31-1 (never wrapped, truncated or rounded).
int id_value(const std::string& file, const std::string& key, const json& value);
// vocab.json: {"piece": id, ...}, read straight into a map (a DOM of a 250k-entry
// vocabulary costs seconds).
std::unordered_map<std::string, int> read_vocab(std::string_view text, const std::string& shown);
// "it holds a, b, c" (or "it is empty"): the directory's files, for messages.
std::string listing(const std::string& dir);

// tokenizer_config.json's settings, each of the type its class reads, or absent (null: absent, as
// the classes' None defaults); any other type is refused, never replaced by the default.
struct Config {
  json& init;
  const std::string& file;  // its path, for messages
  const json* typed(const char* key, bool (json::*is)() const noexcept, const char* expected) const;
  bool flag(const char* key, bool fallback) const;
  std::optional<std::string> text(const char* key) const;
  // A count the class reads (extra_ids, offset, ...): an integer from 0 to 2^31-1.
  int count(const char* key, int fallback) const;
};

struct ClassEntry;

// What a class's own functions get from HfTokenizer::load (hf_tokenizer.h): the tokenizer being built, the
// directory's settings and files, its SentencePiece file, the additional_special_tokens given
// (to change in place) and the added tokens the directory's files give.
struct ClassInit {
  Impl& m;
  const Config& config;
  json& init;  // config.init
  ModelFiles& files;
  const std::string& dir;    // as given, for messages
  const std::string& model;  // the SentencePiece file's bytes
  const char* vocab_file;    // its name
  std::vector<Special>& additional;
  bool additional_given;
  const std::map<std::string, AddedToken>& added_tokens_map;  // the directory's, by content
  std::map<int, AddedToken>& added_tokens_decoder;            // the directory's, by id (a class's own may win)

  // The key's value, else `fallback` (nullptr: None); a directory's added token of that content wins.
  std::optional<Special> special_arg(const char* key, const char* fallback) const;
  // AddedToken(x, lstrip=, rstrip=, normalized=, special=) if isinstance(x, str) else x
  static std::optional<Special> wrap(std::optional<Special> s, bool lstrip, bool rstrip,
                                     std::optional<bool> normalized, bool special);
  bool flag(const char* key, bool fallback) const { return config.flag(key, fallback); }
  // The SentencePiece file `name` (bytes given), without its dummy prefix if asked.
  void load_sp(sentencepiece::SentencePieceProcessor& sp, const std::string& name, std::string bytes,
               bool no_dummy_prefix) const;
  std::optional<Special>& special(const char* attribute);
};

// One HF slow class (hf_classes.cpp's kClasses).
struct ClassEntry {
  const char* name;
  Kind kind;                // its ids, tokenize and convert_tokens_to_string (hf_impl.cpp)
  const char* vocab_file;   // the SentencePiece file the class reads
  void (*init)(ClassInit&);  // its __init__: special tokens and flags from tokenizer_config.json
  // build_inputs_with_special_tokens and create_token_type_ids_from_sequences
  PretrainedEncoder::Built (*build)(const Impl&, const std::vector<int>& a, const std::vector<int>* b,
                                    bool add_prefix, bool add_suffix);
  void (*languages)(ClassInit&) = nullptr;  // its src_lang: prefix_tokens and suffix_tokens, once tokens are added
  bool token_type_ids = false;              // whether it returns token_type_ids
  int pad_token_type_id = 0;
  bool padding_left = false;
};

const ClassEntry* find_class(const std::string& name);
std::string supported_classes();  // "T5Tokenizer, MT5Tokenizer, ..."
// AutoTokenizer's class for a config.json model_type; nullopt for one it has no slow class for.
std::optional<std::string> class_of_model_type(const std::string& type);
std::string model_types();  // "t5, mt5, ..."
const std::vector<std::string>& mbart_codes();
const std::vector<std::string>& mbart50_codes();

}  // namespace embedpe::detail::hf

namespace embedpe::detail {

using hf::AddedToken;
using hf::ClassEntry;
using hf::Kind;
using hf::Special;

struct hf::Impl {
  Kind kind{};
  const ClassEntry* entry = nullptr;
  sentencepiece::SentencePieceProcessor sp;      // encodes (Marian: source.spm); legacy=false: no dummy prefix
  sentencepiece::SentencePieceProcessor target;  // Marian's target.spm, which decodes
  // class attributes
  bool legacy = true, add_prefix_space = true, add_bos_token = true, add_eos_token = false;
  bool has_do_lower_case = false, do_lower_case = false, remove_space = true, keep_accents = false;
  bool clean_up_tokenization_spaces = true, legacy_behaviour = false, split_special_tokens = false;
  bool split_by_punct = false;  // DeBERTa-v2's SPMTokenizer
  std::string fill_token, prefix_token, middle_token, suffix_token;  // CodeLlama's; empty: None
  int fairseq_offset = 0, offset = 0, num_madeup_words = 0;
  std::unordered_map<std::string, int> fairseq_tokens_to_ids, encoder, lang_token_to_id, vocab;
  std::unordered_map<int, std::string> fairseq_ids_to_tokens, decoder, id_to_lang_token;
  std::vector<int> prefix_tokens, suffix_tokens;          // mBART, NLLB, M2M100
  // PreTrainedTokenizer
  std::map<int, AddedToken> added_tokens_decoder;
  std::unordered_map<std::string, int> added_tokens_encoder;
  std::map<std::string, std::optional<Special>> specials;  // SPECIAL_TOKENS_ATTRIBUTES but the list
  std::vector<Special> additional_special_tokens;
  std::vector<std::string> trie_tokens;  // longest first

  static constexpr const char* kAttributes[] = {"bos_token", "eos_token", "unk_token", "sep_token",
                                                 "pad_token", "cls_token", "mask_token"};
  std::string special_string(const char* attribute) const;

  std::vector<const Special*> all_special_tokens_extended() const;

  std::set<std::string> all_special_tokens() const;

  int vocab_size() const;

  const std::vector<std::string>& lang_codes() const { return kind == Kind::mbart ? hf::mbart_codes() : hf::mbart50_codes(); }

  int unk_token_id() const { return convert_token_to_id_with_added_voc(special_string("unk_token")); }

  // _convert_token_to_id
  int convert_token_to_id(const std::string& token) const;

  // _convert_id_to_token
  std::string convert_id_to_token(int index) const;

  std::string sp_piece(int id) const;

  std::string convert_ids_to_token(int index) const;

  int convert_token_to_id_with_added_voc(const std::string& token) const;

  // get_vocab(): {convert_ids_to_tokens(i): i}, the last id of a repeated token winning,
  // then the class's own updates and the added tokens.
  std::unordered_map<std::string, int> get_vocab() const;

  // _add_tokens(new_tokens, special_tokens=True)
  void add_special_tokens();

  void update_trie();

  // Trie.split: the leftmost added token, the longest one there, and so on.
  std::vector<std::string> split(const std::string& text) const;

  std::vector<std::string> sp_encode(const std::string& text) const;

  // PreTrainedTokenizer.tokenize
  std::vector<std::string> base_tokenize(std::string text) const;

  // T5Tokenizer.tokenize / LlamaTokenizer.tokenize (legacy=false adds the prefix itself)
  std::vector<std::string> tokenize(const std::string& text) const;

  // CodeLlamaTokenizer.tokenize: prefix<FILL_ME>suffix is an infilling prompt,
  // <PRE> prefix <SUF> suffix <MID> (each part through _tokenize alone); otherwise LLaMA's
  // legacy=false tokenize.
  std::vector<std::string> codellama_tokenize(const std::string& text) const;

  std::string preprocess_text(const std::string& inputs) const;

  // _tokenize
  std::vector<std::string> tokenize_segment(const std::string& text) const;

  // What decodes: Marian's target.spm, else the model.
  const sentencepiece::SentencePieceProcessor& decoding_model() const { return kind == Kind::marian ? target : sp; }
  // convert_tokens_to_string of each class; `specials` all_special_tokens().
  std::string convert_tokens_to_string(std::vector<std::string> tokens, const std::set<std::string>& specials) const;

};

}  // namespace embedpe::detail
