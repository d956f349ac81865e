#include "tj_pretrained.h"

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <vector>

#include "embedpe/error.h"
#include "hf_text.h"
#include "model_files.h"
#include "tj_auto_class.h"
#include "tj_fields.h"
#include "tj_normalizer.h"
#include "tj_tokenizer.h"

namespace embedpe::detail {

namespace {

using nlohmann::json;

// The content of a special token as tokenizer_config.json gives it: a string, or an AddedToken's {"content": ...}.
std::optional<std::string> token_content(const json& config, const char* key, const std::string& shown) {
  const auto it = config.find(key);
  if (it == config.end() || it->is_null()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_object() && it->contains("content") && (*it)["content"].is_string()) return (*it)["content"].get<std::string>();
  throw UsageError(shown + ": " + key + " is " + json_value_text(*it) + ", not a token (a string or {\"content\": ...})");
}

// The special tokens a transformers v4.44.2 fast class's __init__ defaults
// to (models/*/tokenization_*_fast.py), for a key the directory's files leave
// out; nullopt where the default is None or the class is not listed.
std::optional<std::string> class_default_token(const std::string& class_name, const std::string& key) {
  struct Defaults {
    const char* class_name;
    std::map<std::string, std::string> tokens;
  };
  static const Defaults kDefaults[] = {
      {"LlamaTokenizerFast", {{"unk_token", "<unk>"}, {"bos_token", "<s>"}, {"eos_token", "</s>"}}},
      {"CodeLlamaTokenizerFast", {{"unk_token", "<unk>"}, {"bos_token", "<s>"}, {"eos_token", "</s>"}}},
      {"GemmaTokenizerFast",
       {{"unk_token", "<unk>"}, {"bos_token", "<bos>"}, {"eos_token", "<eos>"}, {"pad_token", "<pad>"}}},
      {"GPT2TokenizerFast",
       {{"unk_token", "<|endoftext|>"}, {"bos_token", "<|endoftext|>"}, {"eos_token", "<|endoftext|>"}}},
      {"BertTokenizerFast",
       {{"unk_token", "[UNK]"}, {"sep_token", "[SEP]"}, {"pad_token", "[PAD]"}, {"cls_token", "[CLS]"},
        {"mask_token", "[MASK]"}}},
      {"DistilBertTokenizerFast",
       {{"unk_token", "[UNK]"}, {"sep_token", "[SEP]"}, {"pad_token", "[PAD]"}, {"cls_token", "[CLS]"},
        {"mask_token", "[MASK]"}}},
      {"RobertaTokenizerFast",
       {{"bos_token", "<s>"}, {"eos_token", "</s>"}, {"sep_token", "</s>"}, {"cls_token", "<s>"},
        {"unk_token", "<unk>"}, {"pad_token", "<pad>"}, {"mask_token", "<mask>"}}},
      {"XLMRobertaTokenizerFast",
       {{"bos_token", "<s>"}, {"eos_token", "</s>"}, {"sep_token", "</s>"}, {"cls_token", "<s>"},
        {"unk_token", "<unk>"}, {"pad_token", "<pad>"}, {"mask_token", "<mask>"}}},
      {"MPNetTokenizerFast",
       {{"bos_token", "<s>"}, {"eos_token", "</s>"}, {"sep_token", "</s>"}, {"cls_token", "<s>"},
        {"unk_token", "[UNK]"}, {"pad_token", "<pad>"}, {"mask_token", "<mask>"}}},
      {"Qwen2TokenizerFast",
       {{"unk_token", "<|endoftext|>"}, {"eos_token", "<|endoftext|>"}, {"pad_token", "<|endoftext|>"}}},
  };
  for (const Defaults& d : kDefaults) {
    if (class_name != d.class_name) continue;
    const auto it = d.tokens.find(key);
    if (it != d.tokens.end()) return it->second;
  }
  return std::nullopt;
}

// An AddedToken of tokenizer_config.json ({"content": ..., "lstrip": ..., ...});
// a flag it leaves out takes tokenizers' default (normalized = not special,
// as special is when the core reads it: true once add_special_tokens set it).
tj::AddedToken config_token(const json& entry, const std::string& field, bool made_special = false) {
  if (!entry.is_object() || !entry.contains("content") || !entry["content"].is_string()) {
    throw UsageError(field + " is " + json_value_text(entry) + ", not an AddedToken {\"content\": ...}");
  }
  tj::AddedToken t;
  t.content = entry["content"].get<std::string>();
  const auto flag = [&](const char* key, bool fallback) {
    if (!entry.contains(key) || entry[key].is_null()) return fallback;
    if (!entry[key].is_boolean()) throw UsageError(field + "." + key + " is " + json_value_text(entry[key]) + ", not true or false");
    return entry[key].get<bool>();
  };
  t.special = flag("special", false);
  t.single_word = flag("single_word", false);
  t.lstrip = flag("lstrip", false);
  t.rstrip = flag("rstrip", false);
  t.normalized = flag("normalized", !(t.special || made_special));
  return t;
}

bool same_token(const tj::AddedToken& a, const tj::AddedToken& b) {
  return a.content == b.content && a.single_word == b.single_word && a.lstrip == b.lstrip && a.rstrip == b.rstrip &&
         a.normalized == b.normalized && a.special == b.special;
}

// A special token as PreTrainedTokenizerBase._from_pretrained hands it to
// __init__: a string, or an AddedToken (tokenizer_config.json's
// {"content": ...}, or the added token of that content that
// `added_tokens_map` holds: added_tokens_decoder's, else tokenizer.json's).
struct SpecialToken {
  std::string content;
  std::optional<tj::AddedToken> token;
  bool mapped = false;  // bos .. mask given by the files (not a class default): looked up in added_tokens_map
};

// PreTrainedTokenizerFast.__init__ (tokenization_utils_fast.py:173-212 of
// transformers v4.44.2): the tokens of tokenizer_config.json's
// added_tokens_decoder that the backend lacks (an AddedToken equal in content
// and every flag, `hash(repr(token))`), by id; then each special token
// (all_special_tokens_extended) not yet there: a string whose content is not
// an added token, an AddedToken unless it is one of those already listed.
// Each is added by `_add_tokens`: special when `token.special or str(token)
// in all_special_tokens` (add_special_tokens then sets special = true; a
// plain string becomes AddedToken::from(content, special): normalized = not
// special), and the core's add_tokens ignores a token equal to one it has.
std::vector<tj::AddedToken> tokens_transformers_adds(const tj::Tokenizer& tok, std::vector<SpecialToken> specials,
                                                     const json& config, const std::string& config_shown) {
  std::set<std::string> special_set;
  for (const SpecialToken& s : specials) special_set.insert(s.content);
  std::vector<tj::AddedToken> add;
  const auto backend_has = [&](const tj::AddedToken& t) {
    const auto id = tok.added().id_of(t.content);
    const tj::AddedToken* have = id ? tok.added().by_id(*id) : nullptr;
    return have && same_token(*have, t);
  };
  std::map<std::string, tj::AddedToken> map;  // added_tokens_map
  const auto it = config.find("added_tokens_decoder");
  if (it != config.end() && !it->is_null()) {
    if (!it->is_object()) throw UsageError(config_shown + ": added_tokens_decoder is not an object");
    std::vector<std::pair<std::int64_t, tj::AddedToken>> by_id;
    for (const auto& [key, entry] : it->items()) {
      std::size_t used = 0;
      std::int64_t id = -1;
      try {
        id = std::stoll(key, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != key.size() || id < 0 || id > 0x7fffffff) {
        throw UsageError(config_shown + ": added_tokens_decoder key '" + key + "' is not an id from 0 to 2^31-1");
      }
      by_id.emplace_back(id, config_token(entry, config_shown + ": added_tokens_decoder[" + key + "]"));
      map[by_id.back().second.content] = by_id.back().second;
    }
    std::sort(by_id.begin(), by_id.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (auto& [id, t] : by_id) {
      if (backend_has(t)) continue;
      if (special_set.count(t.content)) t.special = true;
      add.push_back(std::move(t));
    }
  } else {
    // The legacy branch: tokenizer.json's own added tokens.
    for (const SpecialToken& s : specials) {
      const auto id = tok.added().id_of(s.content);
      if (const tj::AddedToken* t = id ? tok.added().by_id(*id) : nullptr) map[s.content] = *t;
    }
  }
  std::set<std::string> seen;
  for (SpecialToken& s : specials) {
    if (!seen.insert(s.content).second) continue;
    if (const auto m = map.find(s.content); s.mapped && m != map.end()) s.token = m->second;
    if (s.token) {
      // `token not in tokens_to_add`: the map's AddedToken is the very object listed from added_tokens_decoder.
      tj::AddedToken t = *s.token;
      const bool listed = s.mapped && map.count(s.content) && std::any_of(add.begin(), add.end(), [&](const tj::AddedToken& a) {
                            return a.content == s.content;
                          });
      t.special = true;
      if (listed || backend_has(t)) continue;
      add.push_back(std::move(t));
      continue;
    }
    const bool known = tok.added().id_of(s.content) ||
                       std::any_of(add.begin(), add.end(), [&](const tj::AddedToken& t) { return t.content == s.content; });
    if (known) continue;
    tj::AddedToken t;
    t.content = s.content;
    t.special = true;
    t.normalized = false;
    add.push_back(std::move(t));
  }
  return add;
}

// BertTokenizerFast.__init__ (models/bert/tokenization_bert_fast.py:103-113,
// and DistilBertTokenizerFast's, the same): the backend's normalizer rebuilt
// with do_lower_case, strip_accents and tokenize_chinese_chars when its state
// disagrees with them (`normalizer_state.get("lowercase", do_lower_case) !=
// do_lower_case or ...`). MPNetTokenizerFast's (models/mpnet/tokenization_mpnet_fast.py)
// compares and sets lowercase and strip_accents only: `chinese` false.
void rebuild_bert_normalizer(tj::Tokenizer& tok, const json& config, const std::string& shown,
                             const std::string& config_shown, bool chinese_too = true) {
  json state = tok.normalizer_text().empty() ? json() : parse_model_json(tok.normalizer_text(), shown + ": normalizer");
  if (state.is_null()) {
    throw UsageError(shown + " has no normalizer; transformers' BertTokenizerFast reads the normalizer's state and fails "
                     "without one");
  }
  if (!state.is_object()) return;
  const auto want = [&](const char* key, const json& fallback) { return config.contains(key) ? config[key] : fallback; };
  const json lower = want("do_lower_case", true), accents = want("strip_accents", nullptr),
             chinese = want("tokenize_chinese_chars", true);
  const auto differs = [&](const char* key, const json& value) { return state.contains(key) && state[key] != value; };
  if (!differs("lowercase", lower) && !differs("strip_accents", accents) &&
      !(chinese_too && differs("handle_chinese_chars", chinese))) {
    return;
  }
  state["lowercase"] = lower;
  state["strip_accents"] = accents;
  if (chinese_too) state["handle_chinese_chars"] = chinese;
  tok.set_normalizer(tj::load_normalizer(state, config_shown + " (do_lower_case, strip_accents, tokenize_chinese_chars)"));
}

// The classes whose __init__ rebuilds a BERT normalizer.
void rebuild_class_normalizer(const std::string& class_name, tj::Tokenizer& tok, const json& config,
                              const std::string& shown, const std::string& config_shown) {
  if (class_name == "BertTokenizerFast" || class_name == "DistilBertTokenizerFast") {
    rebuild_bert_normalizer(tok, config, shown, config_shown);
  } else if (class_name == "MPNetTokenizerFast") {
    rebuild_bert_normalizer(tok, config, shown, config_shown, false);
  }
}

// The legacy branch of PreTrainedTokenizerBase._from_pretrained
// (tokenization_utils_base.py:2548-2569 of transformers v4.44.2), taken when
// tokenizer_config.json has no added_tokens_decoder: every key of
// special_tokens_map.json replaces tokenizer_config.json's (`init_kwargs[key]
// = value`), an object becoming AddedToken(**value) with special = True; its
// additional_special_tokens are appended to the config's list, each unless
// already there (`if token not in additional_special_tokens`: tokenizers'
// AddedToken equals another AddedToken of the same content, never a string).
// With added_tokens_decoder the file is not read at all.
void merge_special_tokens_map(json& config, const std::optional<json>& map, const std::string& map_shown) {
  if (!map) return;
  if (!map->is_object()) throw UsageError(map_shown + " is not a JSON object");
  const auto as_token = [](json value) {
    if (value.is_object()) value["special"] = true;
    return value;
  };
  for (const auto& [key, value] : map->items()) {
    if (key == "additional_special_tokens" && value.is_array()) {
      json list = config.contains(key) && config[key].is_array() ? config[key] : json::array();
      for (const json& token : value) {
        const json t = as_token(token);
        const bool there = std::any_of(list.begin(), list.end(), [&](const json& have) {
          if (t.is_object() != have.is_object()) return false;
          return t.is_object() ? have.contains("content") && t.contains("content") && have["content"] == t["content"] : have == t;
        });
        if (!there) list.push_back(t);
      }
      config[key] = std::move(list);
    } else {
      config[key] = as_token(value);
    }
  }
}

// The rest of the legacy branch (tokenization_utils_base.py:2571-2602 of
// transformers v4.44.2): added_tokens.json's tokens (AddedToken(content,
// normalized = not special, special = content is one of the special tokens
// the config names), by their index), then tokenizer.json's own added tokens
// by id over them, become the added_tokens_decoder that
// PreTrainedTokenizerFast.__init__ adds from (tokens_transformers_adds).
void legacy_added_tokens(json& config, ModelFiles& files, const tj::Tokenizer& tok) {
  json decoder = json::object();
  const std::string shown = files.path("added_tokens.json");
  if (const std::optional<json> file = files.json("added_tokens.json")) {
    if (!file->is_object()) throw UsageError(shown + " is not a JSON object of token: id");
    std::set<std::string> specials;
    for (const char* key : {"bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"}) {
      if (const auto c = token_content(config, key, files.path("tokenizer_config.json"))) specials.insert(*c);
    }
    if (config.contains("additional_special_tokens") && config["additional_special_tokens"].is_array()) {
      for (const json& t : config["additional_special_tokens"]) {
        if (t.is_string()) specials.insert(t.get<std::string>());
        if (t.is_object() && t.contains("content") && t["content"].is_string()) specials.insert(t["content"].get<std::string>());
      }
    }
    for (const auto& [content, index] : file->items()) {
      if (!index.is_number_unsigned() || index.get<std::uint64_t>() > 0x7fffffff) {
        throw UsageError(shown + ": '" + content + "' is " + json_value_text(index) + ", not an id from 0 to 2^31-1");
      }
      const bool special = specials.count(content) > 0;
      decoder[std::to_string(index.get<std::uint64_t>())] = {{"content", content}, {"lstrip", false}, {"rstrip", false},
                                                             {"single_word", false}, {"normalized", !special},
                                                             {"special", special}};
    }
  }
  if (decoder.empty()) return;
  for (const auto& [id, token] : tok.added().tokens_by_id()) {
    const tj::AddedToken* t = &token;
    decoder[std::to_string(id)] = {{"content", t->content}, {"lstrip", t->lstrip}, {"rstrip", t->rstrip},
                                   {"single_word", t->single_word}, {"normalized", t->normalized}, {"special", t->special}};
  }
  config["added_tokens_decoder"] = std::move(decoder);
}

class TjPretrained final : public TjEncoder {
 public:
  using TjEncoder::TjEncoder;
  Built build_sequences(const Sequence& a, const Sequence* b, bool add_prefix, bool add_suffix) const override {
    const tj::PostProcessor* post = template_for(add_prefix, add_suffix);
    auto encoded = [](const Sequence& s, int type) {
      return tj::Encoded{std::vector<std::int32_t>(s.ids.begin(), s.ids.end()), s.tokens,
                         std::vector<std::int32_t>(s.ids.size(), type)};
    };
    std::optional<tj::Encoded> second;
    if (b) second = encoded(*b, 1);
    tj::Encoded e = post ? tj::Tokenizer::post_process_with(post, encoded(a, 0), std::move(second), true)
                         : tok_->post_process(encoded(a, 0), std::move(second), add_prefix);
    return Built{std::vector<int>(e.ids.begin(), e.ids.end()), std::vector<int>(e.types.begin(), e.types.end()),
                 std::move(e.tokens)};
  }
  std::size_t num_special_tokens_to_add(bool pair, bool add_prefix, bool add_suffix) const override {
    if (const tj::PostProcessor* post = template_for(add_prefix, add_suffix)) return post->added_tokens(pair);
    return add_prefix ? tok_->added_tokens(pair) : 0;
  }
  const std::string& class_name() const override { return class_name_; }
  std::size_t size() const override { return tok_->id_bound(); }
  std::optional<int> special_id(const std::string& attribute) const override {
    const auto it = specials_.find(attribute);
    if (it == specials_.end()) return std::nullopt;
    return tok_->token_to_id(it->second);
  }
  bool has_token_type_ids() const override { return token_type_ids_; }
  int pad_token_type_id() const override { return 0; }
  bool padding_left() const override { return padding_left_; }
  bool truncation_left() const override { return truncation_left_; }
  std::optional<std::size_t> model_max_length() const override { return model_max_length_; }
  const std::string& files_digest() const override { return digest_; }
  std::string decode(const std::vector<int>& ids, bool skip_special_tokens) const override {
    std::string text = tok_->decode(std::vector<std::int32_t>(ids.begin(), ids.end()), skip_special_tokens);
    if (clean_up_) {
      // PreTrainedTokenizerFast._decode then clean_up_tokenization (tokenization_utils_fast.py:651-660,
      // tokenization_utils_base.py:4175-4195 of transformers v4.44.2).
      for (const auto& [from, to] : std::initializer_list<std::pair<const char*, const char*>>{
               {" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"}, {" n't", "n't"}, {" 'm", "'m"},
               {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}}) {
        text = hf::replace_all(text, from, to);
      }
    }
    return text;
  }
  bool template_whole() const override { return !llama_templates_[1][0]; }
  std::string description() const override { return "tokenizer.json (" + tok_->components() + ")"; }

  std::string class_name_ = "PreTrainedTokenizerFast", digest_;
  std::map<std::string, std::string> specials_;  // "bos_token" -> its content
  bool token_type_ids_ = true, padding_left_ = false, truncation_left_ = false;
  bool clean_up_ = false;  // a directory's clean_up_tokenization_spaces (a bare file: the core's decode only)
  std::optional<std::size_t> model_max_length_;
  // LlamaTokenizerFast/GemmaTokenizerFast: update_post_processor's template for each
  // [add_bos_token][add_eos_token] a call leaves (add_bos=false/add_eos=false clear one, as
  // from_pretrained(..., add_bos_token=False) does); empty for the other classes.
  std::unique_ptr<tj::PostProcessor> llama_templates_[2][2];

 private:
  // The template of a call that leaves out only BOS or only EOS (LlamaTokenizerFast/
  // GemmaTokenizerFast), else nullptr: the file's template, whole or not at all.
  const tj::PostProcessor* template_for(bool add_prefix, bool add_suffix) const {
    if (add_prefix == add_suffix) return nullptr;
    if (const tj::PostProcessor* post = llama_templates_[add_prefix][add_suffix].get()) return post;
    throw UsageError("add_bos=false/add_eos=false: a tokenizer.json's template (" + class_name_ +
                         ") is added whole or not at all; give both or neither",
                     {"add_bos=false", "add_eos=false"});
  }
};

// The fast classes whose transformers v4.44.2 __init__ embedpe follows (the
// rules of tools/make_tokenizer_json_goldens_transformers.mjs). Any other name
// is refused: AutoTokenizer raises for a class transformers does not have
// (tokenization_auto.py, tokenizer_class_from_name -> "Tokenizer class ... does
// not exist"), and the other classes it has change the file in their __init__
// (RobertaTokenizerFast's mask token and add_prefix_space, T5TokenizerFast's
// extra ids, CodeLlamaTokenizerFast's and GPTNeoXTokenizerFast's template, ...).
constexpr const char* kFastClasses[] = {
    "PreTrainedTokenizerFast", "GPT2TokenizerFast",    "LlamaTokenizerFast",      "GemmaTokenizerFast",
    "Qwen2TokenizerFast",      "BertTokenizerFast",    "DistilBertTokenizerFast", "RobertaTokenizerFast",
    "XLMRobertaTokenizerFast", "MPNetTokenizerFast"};

// GPT2TokenizerFast.__init__ and RobertaTokenizerFast.__init__ (v4.44.2,
// models/gpt2/tokenization_gpt2_fast.py:112-116, models/roberta/tokenization_roberta_fast.py:157-161):
// `pre_tok_state = json.loads(backend_tokenizer.pre_tokenizer.__getstate__())`, and when its
// add_prefix_space differs from their argument (default False) the pre-tokenizer is made again
// with it: only a ByteLevel pre-tokenizer has one in its state (a Sequence or Split has none,
// Metaspace's state has prepend_scheme instead), and a file without a pre-tokenizer fails there
// (None has no __getstate__). RoBERTa's post-processor is made again too
// (tokenization_roberta_fast.py:165-189: add_prefix_space, trim_offsets), which changes only offsets.
void rebuild_prefix_space(const std::string& class_name, const json& config, tj::Tokenizer& tok,
                          const std::string& shown, const std::string& config_shown) {
  if (class_name != "GPT2TokenizerFast" && class_name != "RobertaTokenizerFast") return;
  bool add_prefix_space = false;
  if (config.contains("add_prefix_space") && !config["add_prefix_space"].is_null()) {
    const json& v = config["add_prefix_space"];
    if (!v.is_boolean()) throw UsageError(config_shown + ": add_prefix_space is " + json_value_text(v) + ", not true or false");
    add_prefix_space = v.get<bool>();
  }
  if (!tok.has_pre_tokenizer()) {
    throw UsageError(shown + " has no pre_tokenizer; transformers' " + class_name +
                     " reads the pre-tokenizer's state (add_prefix_space) and fails without one");
  }
  const std::optional<bool> file = tok.pre_tokenizer_add_prefix_space();
  if (file && *file != add_prefix_space) tok.set_pre_tokenizer_add_prefix_space(add_prefix_space);
}

// RobertaTokenizerFast, XLMRobertaTokenizerFast and MPNetTokenizerFast make a
// mask_token given as a string AddedToken(lstrip=True, rstrip=False); it
// matters only when the file lacks it (tokens the file has are not added
// again), and is refused then. null is None: no mask token at all.
void check_lstrip_mask(const std::string& class_name, const json& config, const tj::Tokenizer& tok,
                       const std::string& config_shown) {
  if (class_name != "RobertaTokenizerFast" && class_name != "XLMRobertaTokenizerFast" &&
      class_name != "MPNetTokenizerFast") {
    return;
  }
  if (config.contains("mask_token") && config["mask_token"].is_null()) return;
  const json mask = config.contains("mask_token") ? config["mask_token"] : json("<mask>");
  if (mask.is_string() && !tok.added().id_of(mask.get<std::string>())) {
    throw UsageError(config_shown + ": mask_token " + json_value_text(mask) + " is not one of tokenizer.json's added tokens: " +
                     class_name + " adds it with lstrip, which embedpe does not follow");
  }
}

// LlamaTokenizerFast.__init__ (models/llama/tokenization_llama_fast.py:154-155)
// sets from_slow when add_prefix_space is given, and from_slow (from any
// class) makes PreTrainedTokenizerFast.__init__ convert the slow tokenizer
// instead of reading tokenizer.json (tokenization_utils_fast.py:115-131): not
// the file's ids, so refused by name (the slow class is embedpe's slow path).
void refuse_from_slow(const std::string& class_name, const json& config, const std::string& config_shown) {
  const auto given = [&](const char* key) { return config.contains(key) && !config[key].is_null(); };
  const bool from_slow = given("from_slow") && config["from_slow"] != false;
  const bool llama_prefix = class_name == "LlamaTokenizerFast" && given("add_prefix_space");
  if (!from_slow && !llama_prefix) return;
  throw UsageError(config_shown + ": " + (from_slow ? "from_slow" : "add_prefix_space") + " is " +
                   json_value_text(config[from_slow ? "from_slow" : "add_prefix_space"]) +
                   ": transformers then converts the slow tokenizer instead of reading tokenizer.json, which embedpe "
                   "does not follow (the slow tokenizer class reads the SentencePiece file)");
}

// tokenizer_config.json's tokenizer_class as AutoTokenizer reads it with
// use_fast: the name, or name + "Fast" when it does not end in "Fast".
std::string fast_class(const json& value, const std::string& config_shown) {
  std::string known;
  for (const char* c : kFastClasses) known += std::string(known.empty() ? "" : ", ") + c;
  if (!value.is_string()) {
    throw UsageError(config_shown + ": tokenizer_class is " + json_value_text(value) +
                     ", not a class name (a string; the fast classes embedpe follows: " + known + ")");
  }
  std::string name = value.get<std::string>();
  if (name.size() < 4 || name.compare(name.size() - 4, 4, "Fast") != 0) name += "Fast";
  for (const char* c : kFastClasses) {
    if (name == c) return name;
  }
  throw UsageError(config_shown + ": tokenizer_class " + json_value_text(value) + " (" + name +
                   ") is not a fast class embedpe follows: " + known +
                   " (transformers raises for a class it does not have; the others change the file in their __init__)");
}

// The class AutoTokenizer.from_pretrained(DIR) of transformers v4.44.2 takes
// when tokenizer_config.json names none (tokenization_auto.py:846-931):
// AutoConfig.from_pretrained(DIR) reads config.json (it raises without one,
// and for a model_type it does not know; without model_type it guesses the
// model type from the directory's name, which embedpe does not follow), then
// config.json's tokenizer_class, else the tokenizer of the model type
// (TOKENIZER_MAPPING, tj_auto_class.cpp): the fast class where there is one.
std::string class_from_config_json(ModelFiles& files, const std::string& dir_shown) {
  const std::string shown = files.path("config.json");
  const std::optional<json> config = files.json("config.json");
  const std::string none = "pretrained " + dir_shown + ": " +
                           (files.has("tokenizer_config.json") ? "tokenizer_config.json names no tokenizer_class"
                                                                : "no tokenizer_config.json names a tokenizer_class") +
                           " and ";
  if (!config) {
    throw UsageError(none + "there is no config.json to take it from (AutoTokenizer.from_pretrained raises there); "
                     "give the tokenizer.json file itself for the file alone, or a tokenizer_class");
  }
  if (!config->is_object()) throw UsageError(shown + " is not a JSON object");
  const auto type = config->find("model_type");
  if (type == config->end() || !type->is_string()) {
    throw UsageError(shown + ": model_type is " + (type == config->end() ? std::string("absent") : json_value_text(*type)) +
                     ": transformers then guesses the model type from the directory's name (or raises), which embedpe "
                     "does not follow; give tokenizer_config.json a tokenizer_class");
  }
  const std::string model_type = type->get<std::string>();
  const tj::AutoClass* auto_class = tj::auto_class_of_model_type(model_type);
  if (!auto_class) {
    throw UsageError(shown + ": model_type " + json_value_text(*type) +
                     " is not one transformers v4.44.2 knows (AutoConfig raises); give tokenizer_config.json a "
                     "tokenizer_class");
  }
  const auto named = config->find("tokenizer_class");
  if (named != config->end() && !named->is_null()) return fast_class(*named, shown);
  if (model_type == "encoder-decoder") {
    throw UsageError(shown + ": model_type \"encoder-decoder\": transformers takes the tokenizer of its encoder's "
                     "config, which embedpe does not follow; give tokenizer_config.json a tokenizer_class");
  }
  if (auto_class->tokenizer_class.empty()) {
    throw UsageError(shown + ": model_type " + json_value_text(*type) +
                     " has no tokenizer in transformers v4.44.2 (AutoTokenizer raises); give tokenizer_config.json a "
                     "tokenizer_class");
  }
  const std::string name(auto_class->tokenizer_class);
  if (name.size() < 4 || name.compare(name.size() - 4, 4, "Fast") != 0) {
    throw UsageError(shown + ": model_type " + json_value_text(*type) + " has only the slow " + name +
                     " in transformers v4.44.2, which does not read tokenizer.json; give tokenizer_config.json a "
                     "tokenizer_class");
  }
  return fast_class(json(name), shown + " (model_type " + model_type + ")");
}

// PreTrainedTokenizerFast.__init__ sets the core's encode_special_tokens
// from split_special_tokens (tokenization_utils_base.py:1612, default False;
// tokenization_utils_fast.py:173), and every encode passes it on (:525-526):
// special added tokens are not matched, their text tokenized as text.
bool split_special_tokens(const json& config, const std::string& config_shown) {
  if (!config.contains("split_special_tokens") || config["split_special_tokens"].is_null()) return false;
  const json& v = config["split_special_tokens"];
  if (!v.is_boolean()) throw UsageError(config_shown + ": split_special_tokens is " + json_value_text(v) + ", not true or false");
  return v.get<bool>();
}

// What the class's __init__ does to the file that embedpe checks before reading it.
void check_class_init(const std::string& class_name, const json& config, const tj::Tokenizer& tok,
                      const std::string& config_shown) {
  check_lstrip_mask(class_name, config, tok, config_shown);
  refuse_from_slow(class_name, config, config_shown);
}

// transformers' fast classes that leave token_type_ids out (model_input_names).
bool class_has_token_type_ids(const std::string& name) {
  static const char* const kWithout[] = {"GPT2TokenizerFast",  "LlamaTokenizerFast",   "GemmaTokenizerFast",
                                         "Qwen2TokenizerFast", "RobertaTokenizerFast", "CodeLlamaTokenizerFast",
                                         "DistilBertTokenizerFast", "XLMRobertaTokenizerFast", "MPNetTokenizerFast",
                                         "GPTNeoXTokenizerFast", "BloomTokenizerFast", "T5TokenizerFast"};
  for (const char* c : kWithout) {
    if (name == c) return false;
  }
  return true;
}

// LlamaTokenizerFast/GemmaTokenizerFast: update_post_processor from add_bos_token/add_eos_token,
// and the templates of a call that leaves out BOS or EOS.
void rebuild_llama_template(TjPretrained& tok, const json& config, const std::string& config_shown) {
  // update_post_processor: "<bos>:0 $A:0 <eos>:0" and "... <bos>:1 $B:1 <eos>:1".
  const auto flag = [&](const char* key, bool fallback) {
    if (!config.contains(key) || config[key].is_null()) return fallback;
    if (!config[key].is_boolean()) throw UsageError(config_shown + ": " + key + " is not true or false");
    return config[key].get<bool>();
  };
  const bool bos = flag("add_bos_token", true), eos = flag("add_eos_token", false);
  const auto make = [&](bool with_bos, bool with_eos) {
    json single = json::array(), pair = json::array(), specials = json::object();
    auto special = [&](const char* key, int type) {
      const auto it = tok.specials_.find(key);
      if (it == tok.specials_.end()) {
        throw UsageError(config_shown + ": add_" + std::string(key) + " = True but " + key + " = None");
      }
      const auto id = tok.tok_->token_to_id(it->second);
      specials[it->second] = {{"id", it->second}, {"ids", json::array({id ? json(*id) : json(nullptr)})}, {"tokens", {it->second}}};
      if (!id) throw UsageError(config_shown + ": " + key + " " + it->second + " is not in the vocabulary");
      return json{{"SpecialToken", {{"id", it->second}, {"type_id", type}}}};
    };
    for (int type = 0; type < 2; ++type) {
      json& t = type == 0 ? single : pair;
      if (type == 1) t = single;
      if (with_bos) t.push_back(special("bos_token", type));
      t.push_back({{"Sequence", {{"id", type == 0 ? "A" : "B"}, {"type_id", type}}}});
      if (with_eos) t.push_back(special("eos_token", type));
    }
    return tj::load_post_processor(
        json{{"type", "TemplateProcessing"}, {"single", single}, {"pair", pair}, {"special_tokens", specials}},
        config_shown + " (add_bos_token/add_eos_token)");
  };
  tok.tok_->set_post_processor(make(bos, eos));
  for (int b = 0; b < 2; ++b) {
    for (int e = 0; e < 2; ++e) tok.llama_templates_[b][e] = make(bos && b, eos && e);
  }
}

}  // namespace

TjEncoder::TjEncoder(std::unique_ptr<tj::Tokenizer> tok) : tok_(std::move(tok)) {}
TjEncoder::~TjEncoder() = default;

PretrainedEncoder::Sequence TjEncoder::encode(std::string_view text) const {
  tj::Encoded e = tok_->encode_one(text, 0);
  return Sequence{std::vector<int>(e.ids.begin(), e.ids.end()), std::move(e.tokens)};
}

PretrainedEncoder::Sequence TjEncoder::encode_ids(std::string_view text) const {
  tj::Encoded e = tok_->encode_one(text, 0, false);
  return Sequence{std::vector<int>(e.ids.begin(), e.ids.end()), {}};
}

std::string_view TjEncoder::piece(int id) const { return tok_->id_to_token(id).value_or(std::string_view()); }

std::unique_ptr<PretrainedEncoder> load_tokenizer_json(const std::string& path) {
  struct stat st;
  const bool directory = ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  std::string dir = path, name = "tokenizer.json";
  if (!directory) {
    const std::size_t slash = path.rfind('/');
    dir = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
    name = slash == std::string::npos ? path : path.substr(slash + 1);
  }
  ModelFiles files(dir);
  const std::string shown = directory ? files.path(name) : path;
  const std::optional<std::string> text = files.read(name, kMaxModelVocabBytes, "a tokenizer.json");
  if (!text) throw UsageError("pretrained " + path + " has no tokenizer.json");
  auto out = std::make_unique<TjPretrained>(tj::Tokenizer::load(*text, shown));
  if (directory) {
    files.note_model_files();  // config.json, the weights: no output replaces them either
    const std::string config_shown = files.path("tokenizer_config.json");
    json config = files.json("tokenizer_config.json").value_or(json::object());
    if (!config.is_object()) throw UsageError(config_shown + " is not a JSON object");
    if (!config.contains("added_tokens_decoder")) {
      merge_special_tokens_map(config, files.json("special_tokens_map.json"), files.path("special_tokens_map.json"));
    }
    const auto cls = config.find("tokenizer_class");
    out->class_name_ = cls != config.end() && !cls->is_null() ? fast_class(*cls, config_shown)
                                                               : class_from_config_json(files, path);
    check_class_init(out->class_name_, config, *out->tok_, config_shown);
    out->tok_->set_encode_special_tokens(split_special_tokens(config, config_shown));
    if (!config.contains("added_tokens_decoder")) legacy_added_tokens(config, files, *out->tok_);
    // The special tokens in SPECIAL_TOKENS_ATTRIBUTES order, then additional_special_tokens; an
    // AddedToken ({"content": ...}) keeps its flags.
    std::vector<SpecialToken> all_specials;
    for (const char* key : {"bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"}) {
      std::optional<std::string> content = token_content(config, key, config_shown);
      const json* form = content ? &config[key] : nullptr;
      // A key the files do not name (null names None): the class's __init__ default.
      if (!content && !config.contains(key)) content = class_default_token(out->class_name_, key);
      if (!content) continue;
      out->specials_[key] = *content;
      SpecialToken special{*content, std::nullopt, form != nullptr};
      if (form && form->is_object()) special.token = config_token(*form, config_shown + ": " + key, true);
      all_specials.push_back(std::move(special));
    }
    if (const auto it = config.find("additional_special_tokens"); it != config.end() && !it->is_null()) {
      if (!it->is_array()) throw UsageError(config_shown + ": additional_special_tokens is not a list");
      for (const json& t : *it) {
        if (t.is_string()) {
          all_specials.push_back({t.get<std::string>(), std::nullopt, false});
        } else {
          tj::AddedToken token = config_token(t, config_shown + ": additional_special_tokens", true);
          all_specials.push_back({token.content, token, false});
        }
      }
    }
    const std::vector<tj::AddedToken> added = tokens_transformers_adds(*out->tok_, all_specials, config, config_shown);
    if (!added.empty()) out->tok_->add_tokens(added, shown);
    rebuild_class_normalizer(out->class_name_, *out->tok_, config, shown, config_shown);
    rebuild_prefix_space(out->class_name_, config, *out->tok_, shown, config_shown);
    out->token_type_ids_ = class_has_token_type_ids(out->class_name_);
    if (config.contains("model_input_names") && config["model_input_names"].is_array()) {
      out->token_type_ids_ = false;
      for (const json& n : config["model_input_names"]) out->token_type_ids_ |= n == "token_type_ids";
    }
    const bool llama_like = out->class_name_ == "LlamaTokenizerFast" || out->class_name_ == "GemmaTokenizerFast";
    out->padding_left_ = llama_like;
    // clean_up_tokenization_spaces: True by default (tokenization_utils_base.py:1720), False in
    // LlamaTokenizerFast's and GemmaTokenizerFast's __init__ (llama_fast.py:131, gemma_fast.py:94).
    out->clean_up_ = !llama_like;
    if (config.contains("clean_up_tokenization_spaces") && !config["clean_up_tokenization_spaces"].is_null()) {
      if (!config["clean_up_tokenization_spaces"].is_boolean()) {
        throw UsageError(config_shown + ": clean_up_tokenization_spaces is " +
                         json_value_text(config["clean_up_tokenization_spaces"]) + ", not true or false");
      }
      out->clean_up_ = config["clean_up_tokenization_spaces"].get<bool>();
    }
    for (const auto& [key, flag] : {std::pair{"padding_side", &out->padding_left_}, std::pair{"truncation_side", &out->truncation_left_}}) {
      if (!config.contains(key) || config[key].is_null()) continue;
      if (config[key] != "left" && config[key] != "right") {
        throw UsageError(config_shown + ": " + key + " is " + json_value_text(config[key]) + ", not \"left\" or \"right\"");
      }
      *flag = config[key] == "left";
    }
    if (config.contains("model_max_length") && config["model_max_length"].is_number_unsigned()) {
      const auto m = config["model_max_length"].get<std::uint64_t>();
      if (m < (std::uint64_t(1) << 40)) out->model_max_length_ = static_cast<std::size_t>(m);
    }
    if (llama_like) rebuild_llama_template(*out, config, config_shown);
  }
  out->digest_ = files.digest();
  return out;
}

}  // namespace embedpe::detail
