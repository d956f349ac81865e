#include "tj_tokenizer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "embedpe/error.h"
#include "model_files.h"
#include "tj_fields.h"
#include "tj_unicode.h"

namespace embedpe::tj {

namespace {

// "Sequence[Split, ByteLevel]": a component's type and, for a Sequence, its parts'.
std::string describe(const nlohmann::json& section, const char* list) {
  if (section.is_null()) return "none";
  std::string type = section.value("type", std::string("?"));
  if (type == "Sequence" && section.contains(list) && section[list].is_array()) {
    type += "[";
    for (std::size_t i = 0; i < section[list].size(); ++i) {
      if (i) type += ", ";
      type += describe(section[list][i], list);
    }
    type += "]";
  }
  return type;
}

// The file's added tokens, as HF reads them (serialization.rs): the ids
// written beside them are not used; each is given its id by
// AddedVocabulary::add_tokens (added_vocabulary.rs) like any added token.
std::vector<AddedToken> read_added(const nlohmann::json& list, const std::string& shown, std::vector<std::string>& fields) {
  const std::string field = shown + ": added_tokens";
  if (!list.is_array()) refuse(field, "is " + json_value_text(list) + ", not a list");
  std::vector<AddedToken> tokens;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string f = field + "[" + std::to_string(i) + "]";
    const nlohmann::json& e = list[i];
    AddedToken t;
    t.content = string(e, "content", f);
    t.single_word = boolean(e, "single_word", f);
    t.lstrip = boolean(e, "lstrip", f);
    t.rstrip = boolean(e, "rstrip", f);
    t.normalized = boolean(e, "normalized", f);
    t.special = boolean(e, "special", f);
    tokens.push_back(std::move(t));
    fields.push_back(f);
  }
  return tokens;
}

}  // namespace

// AddedVocabulary::add_tokens: each token, unless empty or equal (every flag)
// to one added before, takes the id its content has (an added token's, else
// the model's), else the next new id: one past the largest added id when that
// is at least the model's vocab_size (its number of tokens), else vocab_size.
// Where the model's ids leave holes, a new id may be a model token's too: HF
// then decodes that id as the added token and encodes the model's as it was,
// and so does this.
void Tokenizer::AddedState::add(const std::vector<AddedToken>& tokens, const Model& model,
                                const std::vector<std::string>& fields) {
  for (const AddedToken& t : tokens) {
    if (t.special && !t.content.empty() && special_set.insert(t.content).second) specials.push_back(t);
  }
  const auto vocab_size = static_cast<std::int64_t>(model.vocab_size());
  std::int64_t next_id = vocab_size;
  if (!by_id.empty()) {
    const std::int64_t max = by_id.rbegin()->first;
    next_id = max >= vocab_size || vocab_size == 0 ? max + 1 : vocab_size;
  }
  // `existing`: the tokens map_r holds when the call begins, and those it adds.
  std::unordered_multimap<std::string, AddedToken> existing;
  for (const auto& entry : by_id) existing.emplace(entry.second.content, entry.second);
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const AddedToken& t = tokens[i];
    const auto same = [&t](const AddedToken& x) {
      return x.content == t.content && x.single_word == t.single_word && x.lstrip == t.lstrip &&
             x.rstrip == t.rstrip && x.normalized == t.normalized && x.special == t.special;
    };
    const auto [first, last] = existing.equal_range(t.content);
    if (t.content.empty() || std::any_of(first, last, [&same](const auto& e) { return same(e.second); })) continue;
    std::int64_t new_id;
    if (const auto it = ids.find(t.content); it != ids.end()) {
      new_id = it->second;
    } else if (const auto m = model.token_to_id(t.content)) {
      new_id = *m;
    } else {
      new_id = next_id++;
    }
    if (new_id > 0x7fffffff) refuse(fields[i], "its id would be beyond int32");
    AddedToken added = t;
    added.id = static_cast<std::int32_t>(new_id);
    ids[t.content] = added.id;
    by_id[added.id] = added;
    if (!special_set.count(t.content)) others.push_back(added);
    existing.emplace(t.content, std::move(added));
  }
}

// refresh_added_tokens: special tokens then the others, each with its id and
// matched with the flags of the token that id now names.
std::unique_ptr<AddedVocabulary> Tokenizer::AddedState::build(const Model& model, const Normalizer* normalizer,
                                                               const std::string& shown) const {
  std::vector<AddedToken> order;
  for (const std::vector<AddedToken>* group : {&specials, &others}) {
    for (AddedToken t : *group) {
      const auto it = ids.find(t.content);
      t.id = it != ids.end() ? it->second : model.token_to_id(t.content).value_or(-1);
      order.push_back(std::move(t));
    }
  }
  return std::make_unique<AddedVocabulary>(std::move(order),
                                           std::unordered_map<std::int32_t, AddedToken>(by_id.begin(), by_id.end()),
                                           special_set, normalizer, shown + ": added_tokens");
}

namespace {

// The checks that need no model (a bad file is named before its vocabulary is read).
// The ids are checked as ids though HF does not use them (two tokens may give one).
void check_added(const nlohmann::json& list, const std::string& shown) {
  const std::string field = shown + ": added_tokens";
  if (!list.is_array()) refuse(field, "is " + json_value_text(list) + ", not a list");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string f = field + "[" + std::to_string(i) + "]";
    (void)id(member(list[i], "id", f), f + ".id");
  }
}

}  // namespace

std::unique_ptr<Tokenizer> Tokenizer::load(std::string_view json, const std::string& shown) {
  // One pass reads the model and every member's text (read_tokenizer_json).
  // Where it fails, the file is read again in the order faults are reported
  // (the file as JSON, the version, the sections, the added tokens, then the
  // model), so that a file with several is refused for the same one.
  TokenizerJson file;
  bool one_pass = false;
  try {
    file = read_tokenizer_json(json, shown);
    one_pass = true;
  } catch (const UsageError&) {
  }
  const auto members = one_pass ? std::move(file.members) : object_members(json, shown);
  auto section = [&](const char* key) -> nlohmann::json {
    const auto it = members.find(key);
    if (it == members.end()) return nullptr;
    return parse_model_json(it->second, shown + ": " + key);
  };
  if (const auto it = members.find("version"); it != members.end()) {
    const nlohmann::json v = section("version");
    if (v != "1.0") refuse(shown + ": version", "is " + json_value_text(v) + "; HF tokenizers reads only \"1.0\"");
  }
  // HF's TokenizerImpl reads these keys only (serialization.rs: any other
  // is an error), truncation and padding as null or their struct.
  for (const auto& [key, value] : members) {
    static const std::set<std::string, std::less<>> kKeys = {
        "version", "truncation", "padding", "added_tokens", "normalizer", "pre_tokenizer", "post_processor", "decoder", "model"};
    if (!kKeys.count(key)) refuse(shown + ": " + key, "is not a key of a tokenizer.json (HF tokenizers refuses the file)");
  }
  for (const char* key : {"truncation", "padding"}) {
    const nlohmann::json v = section(key);
    if (!v.is_null() && !v.is_object()) refuse(shown + ": " + key, "is " + json_value_text(v) + ", not an object or null");
  }
  const auto model_it = members.find("model");
  if (model_it == members.end()) refuse(shown, "has no \"model\"");
  auto tok = std::make_unique<Tokenizer>();
  const nlohmann::json normalizer = section("normalizer"), pre = section("pre_tokenizer"),
                       post = section("post_processor"), decoder = section("decoder");
  tok->normalizer_ = load_normalizer(normalizer, shown + ": normalizer");
  tok->pre_ = load_pre_tokenizer(pre, shown + ": pre_tokenizer");
  if (pre.is_object() && pre.contains("add_prefix_space") && pre["add_prefix_space"].is_boolean()) {
    tok->pre_add_prefix_space_ = pre["add_prefix_space"].get<bool>();
  }
  tok->post_ = load_post_processor(post, shown + ": post_processor");
  tok->decoder_ = load_decoder(decoder, shown + ": decoder");
  nlohmann::json added = section("added_tokens");
  if (added.is_null()) added = nlohmann::json::array();
  check_added(added, shown);
  tok->model_ = one_pass ? std::move(file.model) : load_model(model_it->second, shown);
  if (std::string_view(tok->model_->type()) == "Unigram") tok->unigram_unk_ = tok->model_->unk_id();
  std::vector<std::string> fields;
  const std::vector<AddedToken> file_tokens = read_added(added, shown, fields);
  tok->added_state_.add(file_tokens, *tok->model_, fields);
  tok->refresh_added(shown);
  if (const auto it = members.find("normalizer"); it != members.end()) tok->normalizer_text_ = it->second;
  if (tok->pre_ && tok->pre_->ends_with_byte_level()) {
    tok->pre_->leave_byte_mapping_to_model();
    tok->model_maps_bytes_ = true;
  }
  tok->components_ = std::string("model ") + tok->model_->type() + ", normalizer " + describe(normalizer, "normalizers") +
                     ", pre_tokenizer " + describe(pre, "pretokenizers") + ", post_processor " +
                     describe(post, "processors") + ", decoder " + describe(decoder, "decoders") + ", " +
                     std::to_string(tok->added_->size()) + " added tokens";
  return tok;
}

void Tokenizer::add_tokens(const std::vector<AddedToken>& tokens, const std::string& shown) {
  added_state_.add(tokens, *model_, std::vector<std::string>(tokens.size(), shown));
  refresh_added(shown);
  components_ = components_.substr(0, components_.rfind(", ") + 2) + std::to_string(added_->size()) + " added tokens";
}

void Tokenizer::refresh_added(const std::string& shown) {
  added_ = added_state_.build(*model_, normalizer_.get(), shown);
  added_->set_encode_special_tokens(encode_special_tokens_);
  id_bound_ = model_->id_bound();
  if (!added_state_.by_id.empty())
    id_bound_ = std::max(id_bound_, static_cast<std::size_t>(added_state_.by_id.rbegin()->first) + 1);
}

void Tokenizer::set_encode_special_tokens(bool value) {
  encode_special_tokens_ = value;
  added_->set_encode_special_tokens(value);
}

Encoded Tokenizer::encode_one(std::string_view text, std::int32_t type_id, bool tokens) const {
  std::vector<Piece> pieces = added_->extract_and_normalize(text, normalizer_.get(), pre_ && pre_->needs_lead());
  if (pre_) pre_->pre_tokenize(pieces);
  Encoded e;
  std::vector<std::int32_t> ids;
  for (const Piece& p : pieces) {
    if (p.id >= 0) {
      e.ids.push_back(p.id);
      if (tokens) e.tokens.push_back(p.text);
      continue;
    }
    if (!tokens) {  // the ids straight into e.ids
      if (p.bytes) {
        model_->tokenize_bytes(p.text, e.ids);
      } else {
        model_->tokenize(p.text, e.ids);
      }
      continue;
    }
    ids.clear();
    if (p.bytes) {
      model_->tokenize_bytes(p.text, ids);
    } else {
      model_->tokenize(p.text, ids);
    }
    const std::size_t first = e.tokens.size();
    for (std::int32_t id : ids) {
      e.ids.push_back(id);
      const auto token = model_->id_to_token(id);
      e.tokens.emplace_back(token ? *token : std::string_view());
    }
    if (unigram_unk_ && std::find(ids.begin(), ids.end(), *unigram_unk_) != ids.end()) {
      unknown_spans(p.bytes ? byte_level_map(p.text) : p.text, ids, e.tokens, first);
    }
  }
  e.types.assign(e.ids.size(), type_id);
  return e;
}

// Unigram's token for an unknown stretch is the stretch itself, not unk's
// string. The known pieces around it are exact substrings of the word, so the
// stretches are what they leave: from the left up to the first unknown one, from
// the right back to the last; between two unknown ones (rare), each takes the run
// of characters up to where the next known piece is found.
void Tokenizer::unknown_spans(std::string_view word, const std::vector<std::int32_t>& ids,
                              std::vector<std::string>& tokens, std::size_t first) const {
  const std::int32_t unk = *unigram_unk_;
  std::size_t begin = 0, end = word.size(), lo = 0, hi = ids.size();
  while (lo < hi && ids[lo] != unk) begin += tokens[first + lo++].size();
  while (hi > lo && ids[hi - 1] != unk) end -= tokens[first + --hi].size();
  // ids[lo] and ids[hi - 1] are unknown; the word's [begin, end) is theirs and what lies between.
  for (std::size_t i = lo; i < hi; ++i) {
    if (ids[i] != unk) {
      begin += tokens[first + i].size();
      continue;
    }
    std::size_t stop = end;
    if (i + 1 < hi) {
      const std::string& next = tokens[first + i + 1];
      std::size_t at = begin;
      do {
        next_char(word, at);
      } while (at < end && word.compare(at, next.size(), next) != 0);
      stop = at;
    }
    tokens[first + i] = std::string(word.substr(begin, stop - begin));
    begin = stop;
  }
}

Encoded Tokenizer::post_process_with(const PostProcessor* post, Encoded a, std::optional<Encoded> b,
                                     bool add_special_tokens) {
  std::vector<Encoded> parts;
  parts.push_back(std::move(a));
  if (b) parts.push_back(std::move(*b));
  if (post) {
    for (std::size_t i = 0; i < parts.size(); ++i) parts[i].types.assign(parts[i].ids.size(), static_cast<std::int32_t>(i));
    post->process(parts, add_special_tokens);
  }
  Encoded out;
  for (Encoded& p : parts) {
    out.ids.insert(out.ids.end(), p.ids.begin(), p.ids.end());
    out.tokens.insert(out.tokens.end(), std::make_move_iterator(p.tokens.begin()), std::make_move_iterator(p.tokens.end()));
    out.types.insert(out.types.end(), p.types.begin(), p.types.end());
  }
  return out;
}

Encoded Tokenizer::encode(std::string_view text, const std::string_view* pair, bool add_special_tokens) const {
  std::optional<Encoded> b;
  if (pair) b = encode_one(*pair, 1);
  return post_process(encode_one(text, 0), std::move(b), add_special_tokens);
}

std::optional<std::string_view> Tokenizer::id_to_token(std::int32_t id) const {
  if (const AddedToken* t = added_->by_id(id)) return std::string_view(t->content);
  return model_->id_to_token(id);
}

std::optional<std::int32_t> Tokenizer::token_to_id(std::string_view token) const {
  if (const auto id = added_->id_of(token)) return id;
  return model_->token_to_id(token);
}

bool Tokenizer::is_special_id(std::int32_t id) const {
  const auto token = id_to_token(id);
  return token && added_->is_special(*token);
}

std::string Tokenizer::decode(const std::vector<std::int32_t>& ids, bool skip_special_tokens) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (std::int32_t id : ids) {
    const auto token = id_to_token(id);
    if (!token) continue;
    if (skip_special_tokens && added_->is_special(*token)) continue;
    tokens.emplace_back(*token);
  }
  if (!decoder_) {
    std::string out;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if (i) out += ' ';
      out += tokens[i];
    }
    return out;
  }
  decoder_->decode_chain(tokens);
  std::string out;
  for (const std::string& t : tokens) out += t;
  return out;
}

}  // namespace embedpe::tj
