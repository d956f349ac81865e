// tokenizer.ggml.* of a byte-level BPE GGUF file, rebuilt as the tokenizer.json
// it was converted from, so that the tokenizer.json engine gives that file's ids.
//
// What the keys mean follows llama.cpp at commit
// c392e5094deaf2d1a7c18683214f007fad3fe42b (convert_hf_to_gguf.py's
// _set_vocab_gpt2 and get_vocab_base, gguf-py's SpecialVocab, src/llama-vocab.cpp):
//  - tokens: the tokenizer's vocabulary by id (AutoTokenizer's vocab, added tokens
//    included), ids the model's table has beyond it as "[PADn]" fillers, UNUSED;
//    an added token is written as its content, CONTROL when it is special (or
//    looks it: "<|...|>"), USER_DEFINED otherwise; every other token NORMAL;
//  - merges: the tokenizer.json's model.merges, "a b" in rank order;
//  - pre: the name llama.cpp's converter found for the pre-tokenizer (it hashes
//    the ids of a check text); llama.cpp runs its own adaptation of the
//    tokenizer.json's regexes (tests/golden/gguf_llamacpp/BPE_PRE_TOKENIZERS.md).
// embedpe gives the ids of the model's tokenizer.json (issue 47 item 5), so a
// pre stands here for that tokenizer.json's normalizer and pre-tokenizer,
// exactly as HF writes them (kPres), and they run through the same engine as
// --pretrained tokenizer.json. Where the two readers part:
//  - special-token strings inside a text are matched as the tokenizer.json's
//    added tokens are (CONTROL and USER_DEFINED tokens, normalized false, as the
//    converter writes them); llama.cpp's llama_tokenize with parse_special false
//    reads them as text;
//  - Qwen's NFC: the tokenizer.json normalizes, llama.cpp does not;
//  - an added token the converter typed CONTROL because it looks special while
//    the tokenizer.json has it as not special (Qwen's <|fim_prefix|>) is skipped
//    by decode's skip_special_tokens; the file cannot tell the two apart.
// UNUSED fillers are in neither the tokenizer.json nor llama.cpp's text: decode
// gives them no text, and the model never yields them (no merge makes one).
#include "gguf_bpe.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <unordered_map>

#include "core/utf8.h"
#include "embedpe/error.h"
#include "gguf.h"
#include "gguf_tokenizer.h"
#include "pretrained_encoder.h"
#include "tj_model.h"
#include "tj_pretrained.h"
#include "tj_tokenizer.h"

namespace embedpe {

namespace {

// tokenizer.ggml.pre -> the model's tokenizer.json, one entry per name. The
// JSON is HF's own text of each model's tokenizer.json (GPT-2, Qwen2.5,
// Meta-Llama-3 / 3.1, DeepSeek-V3; tests/golden/tokenizer_json), the regexes
// for Oniguruma as HF runs them. ignore_merges: LLaMA-3's model has it. add_bos:
// llama.cpp's default when the file has no add_bos_token (LLAMA3: true).
constexpr const char* kGpt2 = R"json({"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":true})json";
constexpr const char* kQwen2 =
    R"json({"type":"Sequence","pretokenizers":[{"type":"Split","pattern":{"Regex":"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},"behavior":"Isolated","invert":false},{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":false,"use_regex":false}]})json";
constexpr const char* kLlama3 =
    R"json({"type":"Sequence","pretokenizers":[{"type":"Split","pattern":{"Regex":"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},"behavior":"Isolated","invert":false},{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":false}]})json";
constexpr const char* kDeepseek3 =
    R"json({"type":"Sequence","pretokenizers":[{"type":"Split","pattern":{"Regex":"\\p{N}{1,3}"},"behavior":"Isolated","invert":false},{"type":"Split","pattern":{"Regex":"[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+"},"behavior":"Isolated","invert":false},{"type":"Split","pattern":{"Regex":"[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"},"behavior":"Isolated","invert":false},{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":false}]})json";

struct Pre {
  const char* name;
  const char* normalizer;
  const char* pre_tokenizer;
  bool ignore_merges;
  bool add_bos;
  const char* components;
};
constexpr Pre kPres[] = {
    {"gpt-2", "null", kGpt2, false, false, "pre_tokenizer ByteLevel (GPT-2's regex)"},
    {"qwen2", R"json({"type":"NFC"})json", kQwen2, false, false,
     "normalizer NFC, pre_tokenizer Sequence[Split (Qwen2's regex), ByteLevel]"},
    {"llama-bpe", "null", kLlama3, true, true, "pre_tokenizer Sequence[Split (LLaMA-3's regex), ByteLevel], ignore_merges"},
    {"llama3", "null", kLlama3, true, true, "pre_tokenizer Sequence[Split (LLaMA-3's regex), ByteLevel], ignore_merges"},
    {"llama-v3", "null", kLlama3, true, true, "pre_tokenizer Sequence[Split (LLaMA-3's regex), ByteLevel], ignore_merges"},
    // Meta-Llama-3's first tokenizer.json (its ids hash to Smaug's in the converter's table).
    {"smaug-bpe", "null", kLlama3, true, false, "pre_tokenizer Sequence[Split (LLaMA-3's regex), ByteLevel], ignore_merges"},
    {"deepseek-v3", R"json({"type":"Sequence","normalizers":[]})json", kDeepseek3, false, false,
     "pre_tokenizer Sequence[Split (digits), Split (CJK), Split (DeepSeek-V3's regex), ByteLevel]"},
};

enum TokenType : std::int64_t { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\u%04x", u);
      out += esc;
    } else {
      out += c;
    }
  }
  out += '"';
}

const Pre& find_pre(const GgufKeys& keys, const std::string& path) {
  const gguf::Value* v = keys("tokenizer.ggml.pre");
  if (!v || v->type != gguf::ValueType::string) {
    throw UsageError(path + ": tokenizer.ggml.pre is missing or not a string: which pre-tokenizer the BPE vocabulary "
                            "needs is not known");
  }
  for (const Pre& p : kPres) {
    if (v->str == p.name) return p;
  }
  std::string known;
  for (const Pre& p : kPres) known += std::string(known.empty() ? "" : ", ") + p.name;
  throw UsageError(path + ": tokenizer.ggml.pre '" + std::string(v->str) +
                   "' is not a pre-tokenizer embedpe knows the tokenizer.json of (known: " + known + ")");
}

// The token texts (llama.cpp names an empty one "[EMPTY_k]"), checked to be
// UTF-8 and distinct, and their types.
struct Tokens {
  std::vector<std::string_view> text;
  std::vector<std::string> renamed;  // the "[EMPTY_k]" names text points at
  std::vector<std::int64_t> types;
  std::unordered_map<std::string_view, std::int32_t> ids;
};

Tokens read_tokens(const GgufKeys& keys, const std::string& path) {
  const auto refuse = [&path](const std::string& what) { throw UsageError(path + ": " + what); };
  const gguf::Value& tokens = gguf_token_array(keys, path);
  const std::size_t n = tokens.count;
  const gguf::Value* types = gguf_token_types(keys, path, n);
  Tokens t;
  t.text.resize(n);
  t.types.resize(n, kNormal);
  t.ids.reserve(n);
  std::size_t empties = 0;
  for (std::size_t k = 0; k < n; ++k) empties += tokens.strings[k].empty();
  t.renamed.reserve(empties);
  for (std::size_t k = 0; k < n; ++k) {
    std::string_view s = tokens.strings[k];
    if (s.empty()) s = t.renamed.emplace_back("[EMPTY_" + std::to_string(k) + "]");
    if (utf8::find_invalid(s)) refuse("token " + std::to_string(k) + " is not valid UTF-8 (tokenizer.ggml.tokens)");
    t.text[k] = s;
    if (const auto [it, fresh] = t.ids.emplace(s, static_cast<std::int32_t>(k)); !fresh) {
      refuse("token " + std::to_string(k) + " (" + std::string(s) + ") is token " + std::to_string(it->second) +
             "'s text again");
    }
    if (!types) continue;
    const std::int64_t type = types->element(k).i;
    if (type < kNormal || type > kByte) {
      refuse("token " + std::to_string(k) + " has type " + std::to_string(type) + " (1 to 6 expected; tokenizer.ggml.token_type)");
    }
    if (type == kByte) {
      refuse("token " + std::to_string(k) + " is typed BYTE, which a byte-level BPE vocabulary has no use for "
             "(tokenizer.ggml.token_type)");
    }
    t.types[k] = type;
  }
  // ByteLevel maps every byte to a character; one without a token would be dropped.
  for (int byte = 0; byte < 256; ++byte) {
    if (!t.ids.count(tj::byte_level_char(static_cast<unsigned char>(byte)))) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", byte);
      refuse(std::string("byte ") + hex + " has no token (its ByteLevel character " +
             std::string(tj::byte_level_char(static_cast<unsigned char>(byte))) + " is not in tokenizer.ggml.tokens)");
    }
  }
  return t;
}

// model.merges: each "a b", a, b and ab tokens (HF refuses the others).
void append_merges(const GgufKeys& keys, const std::string& path, const Tokens& t, std::string& json) {
  const gguf::Value* merges = keys("tokenizer.ggml.merges");
  if (!merges) throw UsageError(path + ": tokenizer.ggml.merges is missing (a BPE vocabulary needs its merges)");
  if (merges->type != gguf::ValueType::array || merges->element_type != gguf::ValueType::string) {
    throw UsageError(path + ": tokenizer.ggml.merges is not an array of strings");
  }
  std::string joined;
  for (std::size_t k = 0; k < merges->count; ++k) {
    const std::string_view m = merges->strings[k];
    const auto refuse = [&](const std::string& why) {
      throw UsageError(path + ": tokenizer.ggml.merges[" + std::to_string(k) + "] ('" + std::string(m) + "'): " + why);
    };
    const std::size_t space = m.find(' ');
    if (space == std::string_view::npos || space == 0 || space + 1 == m.size() || m.find(' ', space + 1) != m.npos) {
      refuse("not two tokens separated by one space");
    }
    const std::string_view a = m.substr(0, space), b = m.substr(space + 1);
    joined = m;  // "a b" less its space: the token the merge makes
    joined.erase(space, 1);
    for (const std::string_view part : {a, b, std::string_view(joined)}) {
      if (t.ids.count(part)) continue;
      std::string why(1, '\'');
      why.append(part).append("' is not a token");
      refuse(why);
    }
    json += k ? "," : "";
    append_json_string(json, m);
  }
}

std::string tokenizer_json(const GgufKeys& keys, const std::string& path, const Pre& pre, const Tokens& t) {
  std::string json = R"({"version":"1.0","truncation":null,"padding":null,"added_tokens":[)";
  bool first = true;
  for (std::size_t k = 0; k < t.text.size(); ++k) {
    const std::int64_t type = t.types[k];
    if (type != kControl && type != kUnknown && type != kUserDefined) continue;
    json += first ? "{\"id\":" : ",{\"id\":";
    first = false;
    json += std::to_string(k) + ",\"content\":";
    append_json_string(json, t.text[k]);
    json += R"(,"single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":)";
    json += type == kUserDefined ? "false}" : "true}";
  }
  json += std::string(R"(],"normalizer":)") + pre.normalizer + R"(,"pre_tokenizer":)" + pre.pre_tokenizer;
  json += R"(,"post_processor":null,"decoder":{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true})";
  json += R"(,"model":{"type":"BPE","dropout":null,"unk_token":null,"continuing_subword_prefix":null,)";
  json += R"("end_of_word_suffix":null,"fuse_unk":false,"byte_fallback":false,"ignore_merges":)";
  json += pre.ignore_merges ? "true" : "false";
  json += R"(,"vocab":{)";
  for (std::size_t k = 0; k < t.text.size(); ++k) {
    json += k ? "," : "";
    append_json_string(json, t.text[k]);
    json += ':' + std::to_string(k);
  }
  json += R"(},"merges":[)";
  append_merges(keys, path, t, json);
  json += "]}}";
  return json;
}

}  // namespace

std::optional<std::string> gguf_bpe_pre_components(std::string_view pre) {
  for (const Pre& p : kPres) {
    if (pre == p.name) return std::string(p.components);
  }
  return std::nullopt;
}

GgufBpe gguf_bpe(const GgufKeys& keys, const std::string& path) {
  const gguf::Value* model = keys("tokenizer.ggml.model");
  if (!model || model->type != gguf::ValueType::string || model->str != "gpt2") {
    throw UsageError(path + ": tokenizer.ggml.model is not 'gpt2' (a byte-level BPE vocabulary)");
  }
  const Pre& pre = find_pre(keys, path);
  const Tokens t = read_tokens(keys, path);
  GgufBpe out;
  out.pre = pre.name;
  out.shown = path + " (tokenizer.ggml.*)";
  out.components = pre.components;
  const std::size_t n = t.text.size();
  out.vocab_size = n;
  out.unused.resize(n);
  for (std::size_t k = 0; k < n; ++k) out.unused[k] = t.types[k] == kUnused;
  // No default ids: llama.cpp's (BOS and EOS 11) are no token of the tokenizer.json's.
  static_cast<GgufSpecials&>(out) = gguf_specials(keys, path, n, {.add_bos = pre.add_bos});
  if (out.add_bos && out.bos_id < 0) {
    throw UsageError(path + ": BOS is to be added (tokenizer.ggml.add_bos_token, or pre " + out.pre +
                     "'s default) but tokenizer.ggml.bos_token_id is missing");
  }
  if (out.add_eos && out.eos_id < 0) {
    throw UsageError(path + ": tokenizer.ggml.add_eos_token is true but tokenizer.ggml.eos_token_id is missing");
  }
  out.tokenizer_json = tokenizer_json(keys, path, pre, t);
  return out;
}

namespace {

// The rebuilt tokenizer.json behind embedpe::Tokenizer: the text through the
// engine, BOS/EOS as the file's add_bos_token/add_eos_token say (a pair: each
// text so, the second with type id 1, as LlamaTokenizerFast's template).
class GgufBpeEncoder final : public detail::TjEncoder {
 public:
  GgufBpeEncoder(GgufBpe g, std::unique_ptr<tj::Tokenizer> tok) : TjEncoder(std::move(tok)), g_(std::move(g)) {
    class_name_ = "GGUF BPE (pre " + g_.pre + ")";
  }
  Built build_sequences(const Sequence& a, const Sequence* b, bool add_prefix, bool add_suffix) const override {
    Built out;
    const auto add = [&](int id, int type) {
      out.ids.push_back(id);
      out.types.push_back(type);
      out.tokens.emplace_back(piece(id));
    };
    for (int type = 0; type < (b ? 2 : 1); ++type) {
      const Sequence& s = type == 0 ? a : *b;
      if (add_prefix && g_.add_bos) add(g_.bos_id, type);
      out.ids.insert(out.ids.end(), s.ids.begin(), s.ids.end());
      out.types.insert(out.types.end(), s.ids.size(), type);
      out.tokens.insert(out.tokens.end(), s.tokens.begin(), s.tokens.end());
      if (add_suffix && g_.add_eos) add(g_.eos_id, type);
    }
    return out;
  }
  std::size_t num_special_tokens_to_add(bool pair, bool add_prefix, bool add_suffix) const override {
    return ((add_prefix && g_.add_bos) + (add_suffix && g_.add_eos)) * (pair ? 2u : 1u);
  }
  const std::string& class_name() const override { return class_name_; }
  std::size_t size() const override { return g_.vocab_size; }
  std::optional<int> special_id(const std::string& attribute) const override {
    const int id = attribute == "bos_token"   ? g_.bos_id
                   : attribute == "eos_token" ? g_.eos_id
                   : attribute == "unk_token" ? g_.unk_id
                   : attribute == "pad_token" ? g_.pad_id
                                              : -1;
    return id >= 0 ? std::optional<int>(id) : std::nullopt;
  }
  bool has_token_type_ids() const override { return false; }
  bool has_pair_token_type_ids() const override { return true; }
  int pad_token_type_id() const override { return 0; }
  bool padding_left() const override { return false; }
  bool truncation_left() const override { return false; }
  std::optional<std::size_t> model_max_length() const override { return std::nullopt; }
  const std::string& files_digest() const override { return digest_; }  // the file's: Tokenizer::sha256
  std::string decode(const std::vector<int>& ids, bool skip_special_tokens) const override {
    std::vector<std::int32_t> kept;
    kept.reserve(ids.size());
    for (const int id : ids) {
      const bool unused = id >= 0 && static_cast<std::size_t>(id) < g_.unused.size() && g_.unused[static_cast<std::size_t>(id)];
      if (!unused) kept.push_back(id);
    }
    return tok_->decode(kept, skip_special_tokens);
  }
  std::string description() const override { return "GGUF BPE, pre " + g_.pre + " (" + g_.components + ")"; }

 private:
  GgufBpe g_;
  std::string class_name_, digest_;
};

}  // namespace

std::unique_ptr<detail::PretrainedEncoder> gguf_bpe_encoder(const gguf::File& file, GgufBpe* info) {
  GgufBpe g = gguf_bpe(gguf_keys(file), file.path());
  gguf_check_table_rows(file, g.vocab_size);
  std::unique_ptr<tj::Tokenizer> tok = tj::Tokenizer::load(g.tokenizer_json, g.shown);
  std::string().swap(g.tokenizer_json);  // the engine holds what it needs
  if (info) *info = g;
  return std::make_unique<GgufBpeEncoder>(std::move(g), std::move(tok));
}

}  // namespace embedpe
