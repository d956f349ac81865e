#include "tj_pretrained.h"

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include <map>

#include "embedpe/error.h"
#include "model_files.h"
#include "tj_fields.h"
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
      {"RobertaTokenizerFast",
       {{"bos_token", "<s>"}, {"eos_token", "</s>"}, {"sep_token", "</s>"}, {"cls_token", "<s>"},
        {"unk_token", "<unk>"}, {"pad_token", "<pad>"}, {"mask_token", "<mask>"}}},
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

// What transformers v4.44.2 would change in a directory that embedpe does not
// do yet, refused by name rather than answered differently:
// - PreTrainedTokenizerFast.__init__ (tokenization_utils_fast.py) adds each
//   special token the config names (bos_token .. mask_token,
//   additional_special_tokens, added_tokens_decoder) that is not one of the
//   file's added tokens, as a new special added token: new ids, or a token of
//   the vocabulary now split out of the text first;
// - BertTokenizerFast.__init__ rebuilds the BertNormalizer from do_lower_case,
//   strip_accents and tokenize_chinese_chars when they differ from the file's.
void refuse_what_transformers_adds(const tj::Tokenizer& tok, const std::map<std::string, std::string>& specials,
                                   const json& config, const std::string& class_name, std::string_view text,
                                   const std::string& shown, const std::string& config_shown) {
  const auto need_added = [&](const std::string& what, const std::string& content) {
    if (tok.added().id_of(content)) return;
    throw UsageError(config_shown + ": " + what + " " + content +
                     " is not one of tokenizer.json's added tokens; transformers would add it as a new special "
                     "token, which embedpe does not do yet");
  };
  for (const auto& [key, content] : specials) need_added(key, content);
  if (const auto it = config.find("additional_special_tokens"); it != config.end() && it->is_array()) {
    for (const json& t : *it) {
      if (t.is_string()) need_added("additional_special_tokens", t.get<std::string>());
      if (t.is_object() && t.contains("content") && t["content"].is_string()) {
        need_added("additional_special_tokens", t["content"].get<std::string>());
      }
    }
  }
  if (const auto it = config.find("added_tokens_decoder"); it != config.end() && it->is_object()) {
    for (const auto& [id, t] : it->items()) {
      if (t.is_object() && t.contains("content") && t["content"].is_string()) {
        need_added("added_tokens_decoder[" + id + "]", t["content"].get<std::string>());
      }
    }
  }
  if (class_name != "BertTokenizerFast") return;
  const json file = parse_model_json(text, shown, [](const std::string& key) { return key == "normalizer"; });
  const json& n = file.contains("normalizer") ? file["normalizer"] : json();
  if (!n.is_object() || n.value("type", "") != "BertNormalizer") return;
  const auto differs = [&](const char* config_key, const char* state_key, const json& fallback) {
    const json want = config.contains(config_key) ? config[config_key] : fallback;
    const json have = n.contains(state_key) ? n[state_key] : json();
    return want != have;
  };
  if (differs("do_lower_case", "lowercase", true) || differs("strip_accents", "strip_accents", nullptr) ||
      differs("tokenize_chinese_chars", "handle_chinese_chars", true)) {
    throw UsageError(config_shown + ": do_lower_case, strip_accents or tokenize_chinese_chars differ from "
                     "tokenizer.json's BertNormalizer; BertTokenizerFast would rebuild it, which embedpe does not "
                     "do yet");
  }
}

class TjPretrained final : public PretrainedEncoder {
 public:
  Sequence encode(std::string_view text) const override {
    tj::Encoded e = tok_->encode_one(text, 0);
    return Sequence{std::vector<int>(e.ids.begin(), e.ids.end()), std::move(e.tokens)};
  }
  Built build_sequences(const Sequence& a, const Sequence* b, bool add_prefix, bool add_suffix) const override {
    check_all_or_nothing(add_prefix, add_suffix);
    auto encoded = [](const Sequence& s, int type) {
      return tj::Encoded{std::vector<std::int32_t>(s.ids.begin(), s.ids.end()), s.tokens,
                         std::vector<std::int32_t>(s.ids.size(), type)};
    };
    std::optional<tj::Encoded> second;
    if (b) second = encoded(*b, 1);
    tj::Encoded e = tok_->post_process(encoded(a, 0), std::move(second), add_prefix);
    return Built{std::vector<int>(e.ids.begin(), e.ids.end()), std::vector<int>(e.types.begin(), e.types.end()),
                 std::move(e.tokens)};
  }
  std::size_t num_special_tokens_to_add(bool pair, bool add_prefix, bool add_suffix) const override {
    check_all_or_nothing(add_prefix, add_suffix);
    return add_prefix ? tok_->added_tokens(pair) : 0;
  }
  const std::string& class_name() const override { return class_name_; }
  std::size_t size() const override { return tok_->id_bound(); }
  std::string_view piece(int id) const override { return tok_->id_to_token(id).value_or(std::string_view()); }
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
    return tok_->decode(std::vector<std::int32_t>(ids.begin(), ids.end()), skip_special_tokens);
  }
  bool pairs_without_special_tokens() const override { return true; }
  std::string description() const override { return "tokenizer.json (" + tok_->components() + ")"; }

  std::unique_ptr<tj::Tokenizer> tok_;
  std::string class_name_ = "PreTrainedTokenizerFast", digest_;
  std::map<std::string, std::string> specials_;  // "bos_token" -> its content
  bool token_type_ids_ = true, padding_left_ = false, truncation_left_ = false;
  std::optional<std::size_t> model_max_length_;

 private:
  void check_all_or_nothing(bool add_prefix, bool add_suffix) const {
    if (add_prefix != add_suffix) {
      throw UsageError("add_bos=false/add_eos=false: a tokenizer.json's template (" + class_name_ +
                           ") is added whole or not at all; give both or neither",
                       {"add_bos=false", "add_eos=false"});
    }
  }
};

// transformers' fast classes that leave token_type_ids out (model_input_names).
bool class_has_token_type_ids(const std::string& name) {
  static const char* const kWithout[] = {"GPT2TokenizerFast",  "LlamaTokenizerFast",   "GemmaTokenizerFast",
                                         "Qwen2TokenizerFast", "RobertaTokenizerFast", "CodeLlamaTokenizerFast",
                                         "GPTNeoXTokenizerFast", "BloomTokenizerFast", "T5TokenizerFast"};
  for (const char* c : kWithout) {
    if (name == c) return false;
  }
  return true;
}

}  // namespace

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
  auto out = std::make_unique<TjPretrained>();
  out->tok_ = tj::Tokenizer::load(*text, shown);
  if (directory) {
    const std::string config_shown = files.path("tokenizer_config.json");
    const json config = files.json("tokenizer_config.json").value_or(json::object());
    if (!config.is_object()) throw UsageError(config_shown + " is not a JSON object");
    std::optional<json> special_map = files.json("special_tokens_map.json");
    if (config.contains("tokenizer_class") && config["tokenizer_class"].is_string()) {
      out->class_name_ = config["tokenizer_class"].get<std::string>();
      if (out->class_name_.size() < 4 || out->class_name_.compare(out->class_name_.size() - 4, 4, "Fast") != 0) {
        out->class_name_ += "Fast";
      }
    }
    for (const char* key : {"bos_token", "eos_token", "unk_token", "pad_token", "sep_token", "cls_token", "mask_token"}) {
      std::optional<std::string> content = token_content(config, key, config_shown);
      const bool in_map = special_map && special_map->is_object() && special_map->contains(key);
      if (!content && in_map) content = token_content(*special_map, key, files.path("special_tokens_map.json"));
      // A key neither file names (null names None): the class's __init__ default.
      if (!content && !config.contains(key) && !in_map) content = class_default_token(out->class_name_, key);
      if (content) out->specials_[key] = *content;
    }
    refuse_what_transformers_adds(*out->tok_, out->specials_, config, out->class_name_, *text, shown, config_shown);
    out->token_type_ids_ = class_has_token_type_ids(out->class_name_);
    if (config.contains("model_input_names") && config["model_input_names"].is_array()) {
      out->token_type_ids_ = false;
      for (const json& n : config["model_input_names"]) out->token_type_ids_ |= n == "token_type_ids";
    }
    const bool llama_like = out->class_name_ == "LlamaTokenizerFast" || out->class_name_ == "GemmaTokenizerFast";
    out->padding_left_ = llama_like;
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
    if (llama_like) {
      // update_post_processor: "<bos>:0 $A:0 <eos>:0" and "... <bos>:1 $B:1 <eos>:1".
      const auto flag = [&](const char* key, bool fallback) {
        if (!config.contains(key) || config[key].is_null()) return fallback;
        if (!config[key].is_boolean()) throw UsageError(config_shown + ": " + key + " is not true or false");
        return config[key].get<bool>();
      };
      const bool bos = flag("add_bos_token", true), eos = flag("add_eos_token", false);
      json single = json::array(), pair = json::array(), specials = json::object();
      auto special = [&](const char* key, int type) {
        const auto it = out->specials_.find(key);
        if (it == out->specials_.end()) {
          throw UsageError(config_shown + ": add_" + std::string(key) + " = True but " + key + " = None");
        }
        const auto id = out->tok_->token_to_id(it->second);
        specials[it->second] = {{"id", it->second}, {"ids", json::array({id ? json(*id) : json(nullptr)})}, {"tokens", {it->second}}};
        if (!id) throw UsageError(config_shown + ": " + key + " " + it->second + " is not in the vocabulary");
        return json{{"SpecialToken", {{"id", it->second}, {"type_id", type}}}};
      };
      for (int type = 0; type < 2; ++type) {
        json& t = type == 0 ? single : pair;
        if (type == 1) t = single;
        if (bos) t.push_back(special("bos_token", type));
        t.push_back({{"Sequence", {{"id", type == 0 ? "A" : "B"}, {"type_id", type}}}});
        if (eos) t.push_back(special("eos_token", type));
      }
      out->tok_->set_post_processor(tj::load_post_processor(
          json{{"type", "TemplateProcessing"}, {"single", single}, {"pair", pair}, {"special_tokens", specials}},
          config_shown + " (add_bos_token/add_eos_token)"));
    }
  }
  out->digest_ = files.digest();
  return out;
}

}  // namespace embedpe::detail
