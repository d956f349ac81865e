// Hugging Face slow SentencePiece tokenizers, from a model directory. The structure
// follows the upstream classes (tokenization_utils.py, tokenization_utils_base.py and
// models/*/tokenization_*.py of transformers v4.44.2), method by method; the names below are
// the upstream ones. This file reads the directory (the class, its added and special tokens),
// hf_classes.cpp holds the classes (one entry and one __init__ each), hf_impl.cpp
// PreTrainedTokenizer's methods. tools/make_hf_tokenizer_goldens.py runs transformers v4.44.2
// itself for the goldens it is checked against.
#include "hf_tokenizer.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include "embedpe/error.h"
#include "embedpe/message.h"
#include "embedpe/tokenizer.h"
#include "hf_impl.h"
#include "model_files.h"
#include "protobuf_fields.h"

namespace embedpe::detail {

namespace hf {

namespace fs = std::filesystem;

// ------------------------------------------------------------------ files

// A value of the directory's JSON of the wrong type or range: one line naming
// the file, the key, the value and what is expected.
[[noreturn]] void refuse_value(const std::string& file, const std::string& key, const json& value,
                               const std::string& expected) {
  throw UsageError(file + ": " + key + " is " + json_value_text(value) + ", not " + expected);
}

// An id the directory gives: an integer from 0 to 2^31-1 (never wrapped, truncated or rounded).
int id_value(const std::string& file, const std::string& key, const json& value) {
  if (value.is_number_unsigned() && value.get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<int>::max())) {
    return static_cast<int>(value.get<std::uint64_t>());
  }
  refuse_value(file, key, value, "an id (an integer from 0 to 2147483647)");
}

// added_tokens_decoder's keys: ids written as decimal text.
int id_key(const std::string& file, const std::string& key) {
  const bool digits = !key.empty() && key.size() <= 10 &&
                      std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || std::stoull(key) > std::uint64_t(std::numeric_limits<int>::max())) {
    throw UsageError(file + ": added_tokens_decoder's key " + json_value_text(json(key)) +
                     " is not an id (an integer from 0 to 2147483647)");
  }
  return static_cast<int>(std::stoull(key));
}

// vocab.json: {"piece": id, ...}, read straight into a map (a DOM of a 250k-entry
// vocabulary costs seconds).
std::unordered_map<std::string, int> read_vocab(std::string_view text, const std::string& shown) {
  struct Reader : nlohmann::json_sax<json> {
    std::unordered_map<std::string, int> out;
    std::string current;
    int depth = 0;
    bool bad = false, twice = false;
    bool number(std::int64_t v) {
      if (depth != 1 || v < 0 || v > std::numeric_limits<int>::max()) return bad = true, false;
      if (!out.emplace(current, static_cast<int>(v)).second) return twice = true, false;
      return true;
    }
    bool null() override { return bad = true, false; }
    bool boolean(bool) override { return bad = true, false; }
    bool number_integer(number_integer_t v) override { return number(v); }
    bool number_unsigned(number_unsigned_t v) override {
      return v <= static_cast<number_unsigned_t>(std::numeric_limits<int>::max()) ? number(static_cast<std::int64_t>(v))
                                                                                   : (bad = true, false);
    }
    bool number_float(number_float_t, const string_t&) override { return bad = true, false; }
    bool string(string_t&) override { return bad = true, false; }
    bool binary(binary_t&) override { return bad = true, false; }
    bool start_object(std::size_t) override { return ++depth == 1 || (bad = true, false); }
    bool key(string_t& k) override {
      current = std::move(k);
      return true;
    }
    bool end_object() override { return --depth, true; }
    bool start_array(std::size_t) override { return bad = true, false; }
    bool end_array() override { return bad = true, false; }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
      return bad = true, false;
    }
  } reader;
  const bool ok = json::sax_parse(text.begin(), text.end(), &reader);
  if (reader.twice) {
    throw UsageError(shown + " gives the key " + json_value_text(json(reader.current)) +
                     " twice in one object; each key must appear once");
  }
  if (!ok || reader.bad) throw UsageError(shown + " is not a JSON object of tokens and ids");
  return std::move(reader.out);
}

std::string listing(const std::string& dir) {
  const std::string text = ModelFiles(dir).names_text();
  return text.empty() ? "it is empty" : "it holds " + text;
}

std::optional<Special> special_from(const json& v, bool from_map) {
  if (v.is_null()) return std::nullopt;
  if (v.is_string()) return Special{AddedToken{v.get<std::string>()}, true};
  if (v.is_object() && v.contains("content")) {
    // A member of the wrong type is refused, never read as its default.
    auto flag = [&](const char* key, std::optional<bool> fallback) -> std::optional<bool> {
      if (!v.contains(key) || v.at(key).is_null()) return fallback;
      if (!v.at(key).is_boolean()) {
        throw UsageError("the special token " + json_value_text(v) + " in the directory gives " + key + " " +
                         json_value_text(v.at(key)) + ", not true or false");
      }
      return v.at(key).get<bool>();
    };
    if (!v.at("content").is_string()) {
      throw UsageError("the special token " + json_value_text(v) + " in the directory has a content that is not a string");
    }
    AddedToken t;
    t.content = v.at("content").get<std::string>();
    t.single_word = *flag("single_word", false);
    t.lstrip = *flag("lstrip", false);
    t.rstrip = *flag("rstrip", false);
    t.special = from_map ? true : *flag("special", false);
    t.normalized = flag("normalized", std::nullopt).value_or(!t.special);
    return Special{t, false};
  }
  throw UsageError("a special token in the directory is neither a string nor an AddedToken: " + json_value_text(v));
}

const json* Config::typed(const char* key, bool (json::*is)() const noexcept, const char* expected) const {
  if (!init.contains(key) || init[key].is_null()) return nullptr;
  if (!(init[key].*is)()) refuse_value(file, key, init[key], expected);
  return &init[key];
}

bool Config::flag(const char* key, bool fallback) const {
  const json* v = typed(key, &json::is_boolean, "true or false");
  return v ? v->get<bool>() : fallback;
}

std::optional<std::string> Config::text(const char* key) const {
  if (const json* v = typed(key, &json::is_string, "a string")) return v->get<std::string>();
  return std::nullopt;
}

int Config::count(const char* key, int fallback) const {
  const json* v = typed(key, &json::is_number, "an integer from 0 to 2147483647");
  return v ? id_value(file, key, *v) : fallback;
}

std::optional<Special> ClassInit::special_arg(const char* key, const char* fallback) const {
  std::optional<Special> s;
  const bool given = init.contains(key);
  if (given) {
    s = special_from(init[key], false);
  } else if (fallback) {
    s = Special{AddedToken{fallback}, true};
  }
  if (s && given && !added_tokens_map.empty()) {
    if (const auto it = added_tokens_map.find(s->token.content); it != added_tokens_map.end()) s = Special{it->second, false};
  }
  return s;
}

std::optional<Special> ClassInit::wrap(std::optional<Special> s, bool lstrip, bool rstrip,
                                       std::optional<bool> normalized, bool special) {
  if (s && s->is_string) {
    s->token.lstrip = lstrip;
    s->token.rstrip = rstrip;
    s->token.special = special;
    s->token.normalized = normalized.value_or(!special);
    s->is_string = false;
  }
  return s;
}

void ClassInit::load_sp(sentencepiece::SentencePieceProcessor& sp, const std::string& name, std::string bytes,
                        bool no_dummy_prefix) const {
  if (no_dummy_prefix) bytes = protobuf::without_dummy_prefix(bytes);
  const auto status = sp.LoadFromSerializedProto(bytes);
  if (!status.ok()) throw UsageError(files.path(name) + " is not a SentencePiece model (" + status.ToString() + ")");
}

std::optional<Special>& ClassInit::special(const char* attribute) { return m.specials[attribute]; }

namespace {

// " (... is WordPiece ...)" when the directory holds another kind of tokenizer.
std::string other_tokenizer(const fs::path& dir) {
  std::error_code ec;
  auto has = [&](const char* name) { return fs::is_regular_file(dir / name, ec); };
  if (has("vocab.txt")) return "its vocab.txt is a WordPiece tokenizer, not SentencePiece";
  if (has("merges.txt")) return "its merges.txt is a byte-level BPE tokenizer, not SentencePiece";
  if (has("tokenizer.json")) return "it has only a tokenizer.json (a fast tokenizer), not a SentencePiece model";
  return "";
}

// The class the directory names: tokenizer_config.json's tokenizer_class, else config.json's
// tokenizer_class or model_type (AutoTokenizer's TOKENIZER_MAPPING); a "Fast" class's slow one.
const ClassEntry& resolve_class(ModelFiles& files, const Config& tokenizer_config, const std::string& dir_name) {
  const fs::path dir(dir_name);
  std::string class_name;
  if (const json* c = tokenizer_config.typed("tokenizer_class", &json::is_string, "a class name (a string)")) {
    class_name = c->get<std::string>();
  }
  // config.json is read (checked, and so kept from any output) even where tokenizer_config.json
  // names the class; it is part of the tokenizer's identity only where it names it.
  const std::optional<json> config_json = files.json("config.json");
  if (!class_name.empty()) files.leave_out_of_digest("config.json");
  if (config_json && class_name.empty()) {
    const json& config = *config_json;
    const std::string config_path = files.path("config.json");
    for (const char* key : {"tokenizer_class", "model_type"}) {
      if (config.is_object() && config.contains(key) && !config[key].is_null() && !config[key].is_string()) {
        refuse_value(config_path, key, config[key], "a string");
      }
    }
    if (config.is_object() && config.contains("tokenizer_class") && config["tokenizer_class"].is_string()) {
      class_name = config["tokenizer_class"].get<std::string>();
    } else if (config.is_object() && config.contains("model_type") && config["model_type"].is_string()) {
      const std::string type = config["model_type"].get<std::string>();
      class_name = class_of_model_type(type).value_or("");
      if (class_name.empty()) {
        const std::string types = model_types();
        const std::string other = other_tokenizer(dir);
        throw UsageError("pretrained " + dir_name + ": model_type " + type + " has no SentencePiece tokenizer embedpe " +
                         "knows (model types: " + types + ")" + (other.empty() ? "" : "; " + other) +
                         "; --ids accepts ids made elsewhere");
      }
    }
  }
  if (class_name.empty()) {
    const std::string other = other_tokenizer(dir);
    throw UsageError("pretrained " + dir_name + " names no tokenizer (no tokenizer_class in tokenizer_config.json, "
                     "no model_type in config.json); " + listing(dir) +
                     (other.empty() ? "" : "; " + other + "; --ids accepts ids made elsewhere"));
  }
  if (class_name.size() > 4 && class_name.compare(class_name.size() - 4, 4, "Fast") == 0) {
    class_name.resize(class_name.size() - 4);
  }
  const ClassEntry* entry = find_class(class_name);
  if (!entry) {
    const std::string other = other_tokenizer(dir);
    throw UsageError("pretrained " + dir_name + ": tokenizer_class " + class_name +
                     " is not a SentencePiece tokenizer embedpe supports (" + supported_classes() + ")" +
                     (other.empty() ? "" : "; " + other) + "; --ids accepts ids made elsewhere");
  }
  return *entry;
}

// The SentencePiece file the class reads.
std::string read_model(ModelFiles& files, const ClassEntry& entry, const std::string& dir_name) {
  const std::optional<std::string> model =
      files.read(entry.vocab_file, Tokenizer::kMaxModelBytes, "a SentencePiece model");
  if (!model) {
    const std::string other = other_tokenizer(dir_name);
    throw UsageError("pretrained " + dir_name + ": " + entry.name + " reads " + entry.vocab_file +
                     ", which is missing; " + listing(dir_name) +
                     (other.empty() ? "" : "; " + other + "; --ids accepts ids made elsewhere"));
  }
  return *model;
}

// What _from_pretrained gives the class of the directory's added tokens, by id and by content.
struct DirectoryTokens {
  std::map<int, AddedToken> decoder;
  std::map<std::string, AddedToken> map;
};

// tokenizer_config.json's added_tokens_decoder, else special_tokens_map.json (merged into the
// config), added_tokens.json and tokenizer.json's added tokens.
DirectoryTokens read_added_tokens(ModelFiles& files, const Config& config) {
  json& init = config.init;
  const std::string& config_file = config.file;
  DirectoryTokens out;
  std::map<int, AddedToken>& added_tokens_decoder = out.decoder;
  std::map<std::string, AddedToken>& added_tokens_map = out.map;
  const bool has_decoder = config.typed("added_tokens_decoder", &json::is_object, "an object of ids and tokens") != nullptr;
  if (has_decoder) {
    for (const auto& [idx, value] : init["added_tokens_decoder"].items()) {
      const int id = id_key(config_file, idx);
      const auto s = special_from(value, false);
      if (!s) continue;
      AddedToken t = s->token;
      if (s->is_string) t = AddedToken{t.content, false, false, false, false, true};
      added_tokens_decoder[id] = t;
      added_tokens_map[t.content] = t;
    }
  } else {
    // _from_pretrained's own `token` parameter (None), rebound by the loop over the map's
    // additional_special_tokens: the key under which added_tokens.json's tokens are filed
    std::string token_variable = "None";
    if (const std::optional<json> map_json = files.json("special_tokens_map.json")) {
      const json& map = *map_json;
      if (!map.is_object()) throw UsageError(files.path("special_tokens_map.json") + " is not a JSON object");
      for (const auto& [key, value] : map.items()) {
        if (key == "additional_special_tokens" && value.is_array()) {
          json list = init.contains(key) && init[key].is_array() ? init[key] : json::array();
          for (const auto& t : value) {
            if (const auto s = special_from(t, true)) token_variable = s->token.content;
            json entry_value = t;
            if (t.is_object()) entry_value["special"] = true;
            bool present = false;
            // `token not in additional_special_tokens`: the list holds the config's strings and dicts
            // (converted later); an AddedToken equals neither, so only a string can be found
            for (const auto& have : list) present = present || (have.is_string() && t.is_string() && have == t);
            if (!present) list.push_back(entry_value);
          }
          init[key] = list;
        } else {
          json v = value;
          if (v.is_object()) v["special"] = true;
          init[key] = v;
        }
      }
    }
    if (const std::optional<json> added_json = files.json("added_tokens.json")) {
      const std::string added_path = files.path("added_tokens.json");
      if (!added_json->is_object()) throw UsageError(added_path + " is not a JSON object of tokens and ids");
      std::set<std::string> special_tokens;
      for (const char* key : HfTokenizer::Impl::kAttributes) {
        if (const auto s = init.contains(key) ? special_from(init[key], false) : std::nullopt) special_tokens.insert(s->token.content);
      }
      if (init.contains("additional_special_tokens") && init["additional_special_tokens"].is_array()) {
        for (const auto& t : init["additional_special_tokens"]) {
          if (const auto s = special_from(t, false)) special_tokens.insert(s->token.content);
        }
      }
      for (const auto& [content, index] : added_json->items()) {
        const int id = id_value(added_path, "the id of " + json_value_text(json(content)), index);
        const bool special = special_tokens.count(content) > 0;
        AddedToken t{content, false, false, false, special, !special};
        added_tokens_decoder[id] = t;
        added_tokens_map[token_variable] = t;  // upstream files them under str(token), not the content
      }
    }
    // fast -> slow: tokenizer.json's added tokens, with their own flags
    // tokenizer.json's "added_tokens" only: the rest (a whole vocabulary) is checked but not kept.
    if (const std::optional<json> fast = files.json("tokenizer.json", kMaxModelVocabBytes,
                                                    [](const std::string& key) { return key == "added_tokens"; })) {
      const std::string fast_path = files.path("tokenizer.json");
      const json list = fast->is_object() && fast->contains("added_tokens") ? (*fast)["added_tokens"] : json::array();
      if (!list.is_array()) refuse_value(fast_path, "added_tokens", list, "a list of tokens");
      for (const json& t : list) {
        if (!t.is_object() || !t.contains("id")) {
          throw UsageError(fast_path + ": an added token without an integer id: " + json_value_text(t));
        }
        const int id = id_value(fast_path, "the id of an added token", t["id"]);
        const auto s = special_from(t, false);
        if (!s) continue;
        added_tokens_decoder[id] = s->token;
        added_tokens_map[s->token.content] = s->token;
      }
    }
  }
  return out;
}

}  // namespace

}  // namespace hf

using namespace hf;

HfTokenizer::HfTokenizer() : impl_(std::make_unique<Impl>()) {}
HfTokenizer::~HfTokenizer() = default;

std::unique_ptr<HfTokenizer> HfTokenizer::load(const std::string& dir_name) {
  namespace fs = std::filesystem;
  const fs::path dir(dir_name);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw (Message() << "pretrained " << Verbatim{dir_name}
                     << " is not a directory; give a Hugging Face model directory, a tokenizer.json file (named *.json) "
                        "or a .gguf file")
        .usage_error({"pretrained"});
  }
  // Every file read goes through one reader (model_files.h): a regular file under a size cap,
  // noted as an input, hashed into the digest that identifies the tokenizer.
  ModelFiles files(dir_name);
  const std::string config_file = files.path("tokenizer_config.json");
  json init = files.json("tokenizer_config.json").value_or(json::object());
  if (!init.is_object()) throw UsageError(config_file + " is not a JSON object");
  const hf::Config config{init, config_file};
  const ClassEntry& entry = hf::resolve_class(files, config, dir_name);
  auto tok = std::unique_ptr<HfTokenizer>(new HfTokenizer());
  Impl& m = *tok->impl_;
  m.kind = entry.kind;
  m.entry = &entry;
  tok->class_name_ = entry.name;
  const std::string model = hf::read_model(files, entry, dir_name);
  tok->main_model_ = files.path(entry.vocab_file);

  // ---- _from_pretrained: added tokens and special tokens from the files
  hf::DirectoryTokens added = hf::read_added_tokens(files, config);
  std::vector<Special> additional;
  bool additional_given = false;
  if (config.typed("additional_special_tokens", &json::is_array, "a list of tokens")) {
    additional_given = true;
    for (const auto& t : init["additional_special_tokens"]) {
      if (auto s = hf::special_from(t, false)) additional.push_back(*s);
    }
  }
  m.clean_up_tokenization_spaces = config.flag("clean_up_tokenization_spaces", true);
  m.split_special_tokens = config.flag("split_special_tokens", false);
  hf::ClassInit c{m,     config,          init,       files,     dir_name, model, entry.vocab_file,
                  additional, additional_given, added.map, added.decoder};
  entry.init(c);
  m.additional_special_tokens = additional;
  // PreTrainedTokenizer.__init__: the directory's added tokens over the class's, then the
  // special tokens not yet added, at their vocabulary id or after it.
  for (const auto& [id, t] : added.decoder) m.added_tokens_decoder[id] = t;
  for (const auto& [id, t] : m.added_tokens_decoder) m.added_tokens_encoder[t.content] = id;
  m.add_special_tokens();
  m.update_trie();
  if (entry.languages) entry.languages(c);
  tok->set_ids_and_settings(config);
  tok->files_digest_ = files.digest();
  // The rest of the model is an input too, though the tokenizer does not read it: no output replaces it.
  files.note_model_files();
  return tok;
}

void HfTokenizer::set_ids_and_settings(const hf::Config& config) {
  const Impl& m = *impl_;
  // len(tokenizer) and each id's token
  int size = m.vocab_size();
  for (const auto& [id, t] : m.added_tokens_decoder) size = std::max(size, id + 1);
  if (m.kind == Kind::m2m100) {  // ids _convert_id_to_token knows: the language tokens, the made-up words
    size = std::max(size, static_cast<int>(m.encoder.size() + m.lang_token_to_id.size()) + m.num_madeup_words);
  }
  id_to_token_.resize(static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i) {
    try {
      id_to_token_[static_cast<std::size_t>(i)] = m.convert_ids_to_token(i);
    } catch (const Error&) {
      id_to_token_[static_cast<std::size_t>(i)] = m.special_string("unk_token");
    }
  }
  token_type_ids_ = m.entry->token_type_ids;
  pad_token_type_id_ = m.entry->pad_token_type_id;
  padding_left_ = m.entry->padding_left;
  // HF raises for a side other than these two.
  for (const auto& [key, left] : {std::pair{"padding_side", &padding_left_}, {"truncation_side", &truncation_left_}}) {
    if (const auto side = config.text(key)) {
      if (*side != "left" && *side != "right") hf::refuse_value(config.file, key, config.init[key], "\"right\" or \"left\"");
      *left = *side == "left";
    }
  }
  if (const json* v = config.typed("model_max_length", &json::is_number, "a number")) {
    const double d = v->get<double>();
    if (d > 0 && d < 1e18) model_max_length_ = static_cast<std::size_t>(d);
  }
}


const std::string& HfTokenizer::token(int id) const { return id_to_token_.at(static_cast<std::size_t>(id)); }

std::optional<int> HfTokenizer::special_id(const std::string& attribute) const {
  const std::string s = impl_->special_string(attribute.c_str());
  if (s.empty()) return std::nullopt;
  return impl_->convert_token_to_id_with_added_voc(s);
}

bool HfTokenizer::is_special(int id) const {
  for (const std::string& s : impl_->all_special_tokens()) {
    if (impl_->convert_token_to_id_with_added_voc(s) == id) return true;
  }
  return false;
}

HfTokenizer::Sequence HfTokenizer::encode(std::string_view text) const {
  Sequence out;
  out.tokens = impl_->tokenize(std::string(text));
  out.ids.reserve(out.tokens.size());
  for (const std::string& t : out.tokens) out.ids.push_back(impl_->convert_token_to_id_with_added_voc(t));
  return out;
}

HfTokenizer::Built HfTokenizer::build(const std::vector<int>& a, const std::vector<int>* b, bool add_prefix,
                                      bool add_suffix) const {
  return impl_->entry->build(*impl_, a, b, add_prefix, add_suffix);
}

std::size_t HfTokenizer::num_special_tokens_to_add(bool pair, bool add_prefix, bool add_suffix) const {
  if (impl_->kind == Kind::pegasus) return add_suffix ? 1 : 0;
  const std::vector<int> empty;
  return build(empty, pair ? &empty : nullptr, add_prefix, add_suffix).ids.size();
}

std::string HfTokenizer::decode(const std::vector<int>& ids, bool skip_special_tokens) const {
  const Impl& m = *impl_;
  const std::set<std::string> specials = m.all_special_tokens();
  std::set<int> special_ids;
  for (const std::string& s : specials) special_ids.insert(m.convert_token_to_id_with_added_voc(s));
  const sentencepiece::SentencePieceProcessor& sp = m.decoding_model();
  if (m.kind == Kind::gemma) {
    // GemmaTokenizer._decode: runs of ids to the model, added tokens as they are, joined without
    // spaces, no clean-up, ▁ as a space
    std::string text;
    std::vector<int> current;
    auto flush = [&] {
      if (current.empty()) return;
      std::string out;
      if (!sp.Decode(current, &out).ok()) throw Error("cannot decode ids");
      text += out;
      current.clear();
    };
    for (int id : ids) {
      if (skip_special_tokens && special_ids.count(id)) continue;
      if (const auto it = m.added_tokens_decoder.find(id); it != m.added_tokens_decoder.end()) {
        flush();
        text += it->second.content;
      } else {
        if (id < 0 || id >= sp.GetPieceSize()) throw Error("piece id " + std::to_string(id) + " is out of range");
        current.push_back(id);
      }
    }
    flush();
    return replace_all(text, kUnderline, " ");
  }
  std::vector<std::string> filtered;
  for (int id : ids) {
    if (skip_special_tokens && special_ids.count(id)) continue;
    filtered.push_back(id >= 0 && static_cast<std::size_t>(id) < id_to_token_.size() ? token(id) : m.convert_ids_to_token(id));
  }
  std::set<std::string> legacy_added;
  for (const auto& [content, id] : m.added_tokens_encoder) {
    if (!specials.count(content)) legacy_added.insert(content);
  }
  const int vocab_size = m.vocab_size();
  for (const Special& s : m.additional_special_tokens) {
    if (m.convert_token_to_id_with_added_voc(s.token.content) >= vocab_size) legacy_added.insert(s.token.content);
  }
  auto to_string = [&](std::vector<std::string> tokens) { return m.convert_tokens_to_string(std::move(tokens), specials); };
  // XLNetTokenizer._decode splits at every added token and joins the parts without spaces
  const bool xlnet = m.kind == Kind::xlnet;
  std::vector<std::string> sub_texts, current;
  for (const std::string& t : filtered) {
    // (upstream's `token in self.all_special_ids` compares a str with ints: never true)
    if (xlnet && m.added_tokens_encoder.count(t)) {
      if (!current.empty()) sub_texts.push_back(to_string(current));
      current.clear();
      sub_texts.push_back(t);
    } else if (!xlnet && legacy_added.count(t)) {
      if (!current.empty()) {
        std::string s = to_string(current);
        if (!s.empty()) sub_texts.push_back(s);
        current.clear();
      }
      sub_texts.push_back(t);
    } else {
      current.push_back(t);
    }
  }
  if (!current.empty()) sub_texts.push_back(to_string(current));
  std::string text;
  for (std::size_t i = 0; i < sub_texts.size(); ++i) text += (i && !xlnet ? " " : "") + sub_texts[i];
  if (m.clean_up_tokenization_spaces) {
    for (const auto& [from, to] : std::initializer_list<std::pair<const char*, const char*>>{
             {" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"}, {" n't", "n't"}, {" 'm", "'m"},
             {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}}) {
      text = replace_all(text, from, to);
    }
  }
  return text;
}

}  // namespace embedpe::detail