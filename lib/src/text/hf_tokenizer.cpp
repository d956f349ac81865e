// Hugging Face slow SentencePiece tokenizers, from a model directory. The structure
// follows the upstream classes (tokenization_utils.py, tokenization_utils_base.py and
// models/*/tokenization_*.py of transformers v4.44.2), method by method; the names below are
// the upstream ones. tools/make_hf_tokenizer_goldens.py runs transformers v4.44.2 itself for
// the goldens it is checked against.
#include "hf_tokenizer.h"

#include <sentencepiece_processor.h>
#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "embedpe/error.h"
#include "embedpe/tokenizer.h"
#include "model_files.h"
#include "protobuf_fields.h"
#include "utf8.h"

namespace embedpe::detail {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr std::string_view kUnderline = "\xE2\x96\x81";  // U+2581

enum class Kind { t5, llama, gemma, albert, xlnet, xlmr, camembert, mbart, mbart50, nllb, m2m100, marian, deberta, pegasus,
                  barthez, codellama };

// A class's own setup (its special tokens and their flags), called by HfTokenizer::load with
// the directory's values; defined after HfTokenizer::Impl.
struct ClassInit;
void init_barthez(ClassInit& c);
void init_codellama(ClassInit& c);

struct ClassEntry {
  const char* name;
  Kind kind;
  const char* vocab_file;  // the SentencePiece file the class reads
  void (*init)(ClassInit&) = nullptr;  // the class's own setup; null: HfTokenizer::load's switch
};

constexpr ClassEntry kClasses[] = {
    {"T5Tokenizer", Kind::t5, "spiece.model"},
    {"MT5Tokenizer", Kind::t5, "spiece.model"},
    {"LlamaTokenizer", Kind::llama, "tokenizer.model"},
    {"CodeLlamaTokenizer", Kind::codellama, "tokenizer.model", init_codellama},
    {"GemmaTokenizer", Kind::gemma, "tokenizer.model"},
    {"AlbertTokenizer", Kind::albert, "spiece.model"},
    {"XLNetTokenizer", Kind::xlnet, "spiece.model"},
    {"XLMRobertaTokenizer", Kind::xlmr, "sentencepiece.bpe.model"},
    {"CamembertTokenizer", Kind::camembert, "sentencepiece.bpe.model"},
    {"MBartTokenizer", Kind::mbart, "sentencepiece.bpe.model"},
    {"MBart50Tokenizer", Kind::mbart50, "sentencepiece.bpe.model"},
    {"NllbTokenizer", Kind::nllb, "sentencepiece.bpe.model"},
    {"M2M100Tokenizer", Kind::m2m100, "sentencepiece.bpe.model"},
    {"MarianTokenizer", Kind::marian, "source.spm"},
    {"DebertaV2Tokenizer", Kind::deberta, "spm.model"},
    {"PegasusTokenizer", Kind::pegasus, "spiece.model"},
    {"BarthezTokenizer", Kind::barthez, "sentencepiece.bpe.model", init_barthez},
};

// AutoTokenizer's TOKENIZER_MAPPING, for directories whose tokenizer_config.json names no class.
constexpr std::pair<const char*, const char*> kModelTypes[] = {
    {"t5", "T5Tokenizer"},          {"mt5", "MT5Tokenizer"},           {"llama", "LlamaTokenizer"},
    {"mistral", "LlamaTokenizer"},  {"mixtral", "LlamaTokenizer"},     {"gemma", "GemmaTokenizer"},
    {"albert", "AlbertTokenizer"},  {"xlnet", "XLNetTokenizer"},       {"xlm-roberta", "XLMRobertaTokenizer"},
    {"camembert", "CamembertTokenizer"}, {"mbart", "MBartTokenizer"},  {"m2m_100", "M2M100Tokenizer"},
    {"marian", "MarianTokenizer"},  {"deberta-v2", "DebertaV2Tokenizer"}, {"pegasus", "PegasusTokenizer"},
};

// The language codes the classes hold (mbart's FAIRSEQ_LANGUAGE_CODES, mbart50's, m2m_100's "m2m100").
const std::vector<std::string>& mbart_codes() {
  static const std::vector<std::string> codes = {"ar_AR", "cs_CZ", "de_DE", "en_XX", "es_XX", "et_EE", "fi_FI",
                                                 "fr_XX", "gu_IN", "hi_IN", "it_IT", "ja_XX", "kk_KZ", "ko_KR",
                                                 "lt_LT", "lv_LV", "my_MM", "ne_NP", "nl_XX", "ro_RO", "ru_RU",
                                                 "si_LK", "tr_TR", "vi_VN", "zh_CN"};
  return codes;
}
const std::vector<std::string>& mbart50_codes() {
  static const std::vector<std::string> codes = [] {
    std::vector<std::string> c = mbart_codes();
    for (const char* x : {"af_ZA", "az_AZ", "bn_IN", "fa_IR", "he_IL", "hr_HR", "id_ID", "ka_GE", "km_KH",
                          "mk_MK", "ml_IN", "mn_MN", "mr_IN", "pl_PL", "ps_AF", "pt_XX", "sv_SE", "sw_KE",
                          "ta_IN", "te_IN", "th_TH", "tl_XX", "uk_UA", "ur_PK", "xh_ZA", "gl_ES", "sl_SI"}) {
      c.emplace_back(x);
    }
    return c;
  }();
  return codes;
}
const std::vector<std::string>& m2m100_codes() {
  static const std::vector<std::string> codes = [] {
    std::vector<std::string> c;
    std::stringstream s(
        "af,am,ar,ast,az,ba,be,bg,bn,br,bs,ca,ceb,cs,cy,da,de,el,en,es,et,fa,ff,fi,fr,fy,ga,gd,gl,gu,ha,he,hi,hr,ht,"
        "hu,hy,id,ig,ilo,is,it,ja,jv,ka,kk,km,kn,ko,lb,lg,ln,lo,lt,lv,mg,mk,ml,mn,mr,ms,my,ne,nl,no,ns,oc,or,pa,pl,ps,"
        "pt,ro,ru,sd,si,sk,sl,so,sq,sr,ss,su,sv,sw,ta,th,tl,tn,tr,uk,ur,uz,vi,wo,xh,yi,yo,zh,zu");
    for (std::string x; std::getline(s, x, ',');) c.push_back(x);
    return c;
  }();
  return codes;
}

// ------------------------------------------------------------------ UTF-8 and Python str helpers

// str.isspace(): bidirectional class WS, B or S, or category Zs.
bool py_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

std::vector<char32_t> chars(std::string_view s) {
  std::vector<char32_t> out;
  for (std::size_t i = 0; i < s.size();) out.push_back(utf8::next(s, i));
  return out;
}

std::string utf8(const std::vector<char32_t>& cs, std::size_t from = 0, std::size_t to = std::string::npos) {
  std::string out;
  for (std::size_t i = from; i < std::min(to, cs.size()); ++i) utf8::append(out, cs[i]);
  return out;
}

std::string py_lstrip(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t j = i;
    if (!py_space(utf8::next(s, j))) break;
    i = j;
  }
  return std::string(s.substr(i));
}

std::string py_rstrip(std::string_view s) {
  auto cs = chars(s);
  std::size_t n = cs.size();
  while (n > 0 && py_space(cs[n - 1])) --n;
  return utf8(cs, 0, n);
}

std::string py_strip(std::string_view s) { return py_rstrip(py_lstrip(s)); }

// " ".join(s.split())
std::string py_join_split(std::string_view s) {
  std::string out, word;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t start = i;
    const char32_t c = utf8::next(s, i);
    if (py_space(c)) {
      if (!word.empty()) {
        if (!out.empty()) out += ' ';
        out += word;
        word.clear();
      }
    } else {
      word.append(s.substr(start, i - start));
    }
  }
  if (!word.empty()) {
    if (!out.empty()) out += ' ';
    out += word;
  }
  return out;
}

// str.replace(from, to)
std::string replace_all(std::string_view s, std::string_view from, std::string_view to) {
  std::string out;
  std::size_t i = 0;
  for (std::size_t p = s.find(from); p != std::string_view::npos; p = s.find(from, i)) {
    out.append(s.substr(i, p - i));
    out.append(to);
    i = p + from.size();
  }
  out.append(s.substr(i));
  return out;
}

std::string icu_lower(std::string_view s) {
  icu::UnicodeString u = icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), static_cast<int32_t>(s.size())));
  u.toLower(icu::Locale::getRoot());
  std::string out;
  u.toUTF8String(out);
  return out;
}

// What re.sub(r"(.+?)", lambda m: m.group(1).lower(), text) does: each character
// (but a newline, which "." does not match) lowered on its own.
std::string lower_each_char(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t start = i;
    const char32_t c = utf8::next(s, i);
    if (c == '\n') {
      out += '\n';
    } else {
      out += icu_lower(s.substr(start, i - start));
    }
  }
  return out;
}

std::string nfkd_without_combining(std::string_view s) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfkd = icu::Normalizer2::getNFKDInstance(status);
  if (U_FAILURE(status)) throw Error("ICU has no NFKD normalizer");
  icu::UnicodeString u = icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), static_cast<int32_t>(s.size())));
  icu::UnicodeString d = nfkd->normalize(u, status);
  if (U_FAILURE(status)) throw Error("ICU could not normalize a text");
  std::string decomposed;
  d.toUTF8String(decomposed);
  std::string out;
  for (std::size_t i = 0; i < decomposed.size();) {
    const char32_t c = utf8::next(decomposed, i);
    if (u_getCombiningClass(static_cast<UChar32>(c)) == 0) utf8::append(out, c);
  }
  return out;
}

bool py_isdigit(char32_t c) {
  const int type = u_getIntPropertyValue(static_cast<UChar32>(c), UCHAR_NUMERIC_TYPE);
  return type == U_NT_DECIMAL || type == U_NT_DIGIT;
}

// deberta_v2's _is_punctuation: non-letter/number ASCII, or a Unicode category P*.
bool is_punctuation(char32_t c) {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126) ||
         u_ispunct(static_cast<UChar32>(c));
}

// SPMTokenizer._run_split_on_punc: each punctuation character a word, the runs between them words
// (spaces kept inside them).
std::vector<std::string> run_split_on_punc(std::string_view text) {
  std::vector<std::string> output;
  bool start_new_word = true;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t from = i;
    const char32_t c = utf8::next(text, i);
    if (is_punctuation(c)) {
      output.emplace_back(text.substr(from, i - from));
      start_new_word = true;
    } else {
      if (start_new_word) output.emplace_back();
      start_new_word = false;
      output.back() += text.substr(from, i - from);
    }
  }
  return output;
}

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

std::string listing(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  if (names.empty()) return "it is empty";
  std::string out = "it holds ";
  for (std::size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out;
}

// " (... is WordPiece ...)" when the directory holds another kind of tokenizer.
std::string other_tokenizer(const fs::path& dir) {
  std::error_code ec;
  auto has = [&](const char* name) { return fs::is_regular_file(dir / name, ec); };
  if (has("vocab.txt")) return "its vocab.txt is a WordPiece tokenizer, not SentencePiece";
  if (has("merges.txt")) return "its merges.txt is a byte-level BPE tokenizer, not SentencePiece";
  if (has("tokenizer.json")) return "it has only a tokenizer.json (a fast tokenizer), not a SentencePiece model";
  return "";
}

std::string supported_classes() {
  std::string out;
  for (const auto& c : kClasses) out += (out.empty() ? "" : ", ") + std::string(c.name);
  return out;
}

// A special-token value: a string or an AddedToken, as the classes receive them.
struct Special {
  AddedToken token;
  bool is_string = true;
};

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

}  // namespace

// ------------------------------------------------------------------ the tokenizer

struct HfTokenizer::Impl {
  Kind kind{};
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

  std::string special_string(const char* attribute) const {
    const auto it = specials.find(attribute);
    return it == specials.end() || !it->second ? std::string() : it->second->token.content;
  }

  std::vector<const Special*> all_special_tokens_extended() const {
    std::vector<const Special*> out;
    std::set<std::string> seen;
    for (const char* a : kAttributes) {
      const auto it = specials.find(a);
      if (it == specials.end() || !it->second || it->second->token.content.empty()) continue;
      if (seen.insert(it->second->token.content).second) out.push_back(&*it->second);
    }
    for (const Special& s : additional_special_tokens) {
      if (seen.insert(s.token.content).second) out.push_back(&s);
    }
    return out;
  }

  std::set<std::string> all_special_tokens() const {
    std::set<std::string> out;
    for (const Special* s : all_special_tokens_extended()) out.insert(s->token.content);
    return out;
  }

  int vocab_size() const {
    const int n = sp.GetPieceSize();
    switch (kind) {
      case Kind::xlmr: return n + fairseq_offset + 1;
      case Kind::mbart:
      case Kind::mbart50: return n + static_cast<int>(lang_codes().size()) + fairseq_offset + 1;
      case Kind::nllb: return n + fairseq_offset;
      case Kind::m2m100:  // since v4.34 (its get_vocab is PreTrainedTokenizer's)
      case Kind::marian: return static_cast<int>(encoder.size());
      case Kind::deberta: return static_cast<int>(vocab.size());
      case Kind::pegasus: return n + offset;
      default: return n;
    }
  }

  const std::vector<std::string>& lang_codes() const { return kind == Kind::mbart ? mbart_codes() : mbart50_codes(); }

  int unk_token_id() const { return convert_token_to_id_with_added_voc(special_string("unk_token")); }

  // _convert_token_to_id
  int convert_token_to_id(const std::string& token) const {
    switch (kind) {
      case Kind::xlmr:
      case Kind::mbart:
      case Kind::mbart50: {
        if (const auto it = fairseq_tokens_to_ids.find(token); it != fairseq_tokens_to_ids.end()) return it->second;
        const int spm_id = sp.PieceToId(token);
        return spm_id ? spm_id + fairseq_offset : unk_token_id();
      }
      case Kind::nllb: {
        const int spm_id = sp.PieceToId(token);
        return spm_id ? spm_id + fairseq_offset : unk_token_id();
      }
      case Kind::camembert: {
        const int spm_id = sp.PieceToId(token);
        return spm_id == 0 ? unk_token_id() : fairseq_offset + spm_id;
      }
      case Kind::pegasus: return sp.PieceToId(token) + offset;
      case Kind::m2m100: {
        if (const auto it = lang_token_to_id.find(token); it != lang_token_to_id.end()) return it->second;
        [[fallthrough]];
      }
      case Kind::marian: {
        if (const auto it = encoder.find(token); it != encoder.end()) return it->second;
        return encoder.at(special_string("unk_token"));
      }
      default: return sp.PieceToId(token);
    }
  }

  // _convert_id_to_token
  std::string convert_id_to_token(int index) const {
    switch (kind) {
      case Kind::xlmr:
      case Kind::mbart:
      case Kind::mbart50:
        if (const auto it = fairseq_ids_to_tokens.find(index); it != fairseq_ids_to_tokens.end()) return it->second;
        return sp_piece(index - fairseq_offset);
      case Kind::nllb:
      case Kind::camembert: return sp_piece(index - fairseq_offset);
      case Kind::pegasus: return sp_piece(index < offset ? index : index - offset);
      case Kind::m2m100:
        if (const auto it = id_to_lang_token.find(index); it != id_to_lang_token.end()) return it->second;
        [[fallthrough]];
      case Kind::marian: {
        const auto it = decoder.find(index);
        return it != decoder.end() ? it->second : special_string("unk_token");
      }
      case Kind::deberta: return index < vocab_size() ? sp_piece(index) : special_string("unk_token");
      default: return sp_piece(index);
    }
  }

  std::string sp_piece(int id) const {
    if (id < 0 || id >= sp.GetPieceSize()) throw Error("piece id " + std::to_string(id) + " is out of range");
    return sp.IdToPiece(id);
  }

  std::string convert_ids_to_token(int index) const {
    if (const auto it = added_tokens_decoder.find(index); it != added_tokens_decoder.end()) return it->second.content;
    return convert_id_to_token(index);
  }

  int convert_token_to_id_with_added_voc(const std::string& token) const {
    if (const auto it = added_tokens_encoder.find(token); it != added_tokens_encoder.end()) return it->second;
    return convert_token_to_id(token);
  }

  // get_vocab(): {convert_ids_to_tokens(i): i}, the last id of a repeated token winning,
  // then the class's own updates and the added tokens.
  std::unordered_map<std::string, int> get_vocab() const {
    std::unordered_map<std::string, int> v;
    switch (kind) {
      case Kind::marian: v = encoder; break;
      case Kind::deberta: v = vocab; break;
      default: {
        const int n = kind == Kind::camembert ? vocab_size() + fairseq_offset : vocab_size();
        v.reserve(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) v[convert_ids_to_token(i)] = i;
      }
    }
    for (const auto& [id, token] : added_tokens_decoder) v[token.content] = id;
    return v;
  }

  // _add_tokens(new_tokens, special_tokens=True)
  void add_special_tokens() {
    std::vector<Special> new_tokens;
    // `token not in self._added_tokens_encoder`: an AddedToken (tokenizers') never equals a str, so
    // every AddedToken special token is added again, at its index, replacing what was there.
    for (const Special* s : all_special_tokens_extended()) {
      if (!s->is_string || !added_tokens_encoder.count(s->token.content)) new_tokens.push_back(*s);
    }
    if (new_tokens.empty()) return;
    std::unordered_map<std::string, int> current_vocab = get_vocab();
    const int new_idx = static_cast<int>(current_vocab.size());
    int added = 0;
    const std::set<std::string> specials_now = all_special_tokens();
    for (Special s : new_tokens) {
      AddedToken token = s.token;
      if (token.content.empty()) continue;
      if (s.is_string) {
        if (added_tokens_encoder.count(token.content)) continue;
        token = AddedToken{token.content, false, false, false, true, false};
      } else {
        token.special = true;
      }
      int index;
      if (const auto it = current_vocab.find(token.content); it == current_vocab.end()) {
        index = new_idx + added++;
        current_vocab[token.content] = index;
      } else {
        index = it->second;
      }
      added_tokens_decoder[index] = token;
      added_tokens_encoder[token.content] = index;
    }
    (void)specials_now;
  }

  void update_trie() {
    trie_tokens.clear();
    for (const auto& [id, t] : added_tokens_decoder) trie_tokens.push_back(t.content);
    std::sort(trie_tokens.begin(), trie_tokens.end(),
              [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
    trie_tokens.erase(std::unique(trie_tokens.begin(), trie_tokens.end()), trie_tokens.end());
  }

  // Trie.split: the leftmost added token, the longest one there, and so on.
  std::vector<std::string> split(const std::string& text) const {
    std::vector<std::string> out;
    std::size_t start = 0, i = 0;
    while (i < text.size()) {
      const std::string* hit = nullptr;
      for (const std::string& t : trie_tokens) {
        if (!t.empty() && text.compare(i, t.size(), t) == 0) {
          hit = &t;
          break;
        }
      }
      if (!hit) {
        ++i;
        continue;
      }
      if (i > start) out.push_back(text.substr(start, i - start));
      out.push_back(*hit);
      i += hit->size();
      start = i;
    }
    if (start < text.size()) out.push_back(text.substr(start));
    return out;
  }

  std::vector<std::string> sp_encode(const std::string& text) const {
    std::vector<std::string> pieces;
    const auto status = sp.Encode(text, &pieces);
    if (!status.ok()) throw Error("SentencePiece could not encode a text: " + status.ToString());
    return pieces;
  }

  // PreTrainedTokenizer.tokenize
  std::vector<std::string> base_tokenize(std::string text) const {
    if (has_do_lower_case && do_lower_case) {
      // specials (and normalized non-special added tokens) kept, the rest lowered char by char
      std::vector<std::string> keep;
      for (const std::string& s : all_special_tokens()) keep.push_back(s);
      for (const auto& [id, t] : added_tokens_decoder) {
        if (!t.special && t.normalized) keep.push_back(t.content);
      }
      std::string out;
      for (std::size_t i = 0; i < text.size();) {
        const std::string* hit = nullptr;
        for (const std::string& k : keep) {  // re alternation: the first listed that matches
          if (!k.empty() && text.compare(i, k.size(), k) == 0) {
            hit = &k;
            break;
          }
        }
        if (hit) {
          out += *hit;
          i += hit->size();
          continue;
        }
        const std::size_t from = i;
        utf8::next(text, i);
        out += lower_each_char(std::string_view(text).substr(from, i - from));
      }
      text = std::move(out);
    }
    // split_special_tokens: no added token is split out (no_split_token is empty)
    std::vector<std::string> tokens = split_special_tokens ? std::vector<std::string>{text} : split(text);
    // as upstream's loop: the token as it is when reached (an earlier one may have emptied or
    // stripped it), left and right as they were before this token strips them
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if (split_special_tokens || !added_tokens_encoder.count(tokens[i])) continue;
      const std::string token = tokens[i];
      const AddedToken& t = added_tokens_decoder.at(added_tokens_encoder.at(token));
      const std::optional<std::string> left = i > 0 ? std::optional(tokens[i - 1]) : std::nullopt;
      const std::optional<std::string> right = i + 1 < tokens.size() ? std::optional(tokens[i + 1]) : std::nullopt;
      const bool has_left = left && !left->empty(), has_right = right && !right->empty();
      if (t.rstrip && has_right) tokens[i + 1] = py_lstrip(*right);
      if (t.lstrip && has_left) tokens[i - 1] = py_rstrip(*left);
      if (t.single_word && has_left && left->back() != ' ') {
        tokens[i - 1] += token;
        tokens[i].clear();
      } else if (t.single_word && has_right && right->front() != ' ') {
        tokens[i] += *right;
        tokens[i + 1].clear();
      }
    }
    std::vector<std::string> out;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if (tokens[i].empty()) continue;
      if (!split_special_tokens && added_tokens_encoder.count(tokens[i])) {
        out.push_back(tokens[i]);
      } else {
        for (std::string& p : tokenize_segment(tokens[i])) out.push_back(std::move(p));
      }
    }
    return out;
  }

  // T5Tokenizer.tokenize / LlamaTokenizer.tokenize (legacy=false adds the prefix itself)
  std::vector<std::string> tokenize(const std::string& text) const {
    if (kind == Kind::codellama) return codellama_tokenize(text);
    if ((kind != Kind::t5 && kind != Kind::llama) || legacy || text.empty()) return base_tokenize(text);
    std::string t = replace_all(text, kUnderline, " ");
    if (add_prefix_space) t = std::string(kUnderline) + t;
    std::vector<std::string> tokens = base_tokenize(t);
    if (tokens.size() > 1 && tokens[0] == kUnderline && all_special_tokens().count(tokens[1])) {
      tokens.erase(tokens.begin());
    }
    return tokens;
  }

  // CodeLlamaTokenizer.tokenize: prefix<FILL_ME>suffix is an infilling prompt,
  // <PRE> prefix <SUF> suffix <MID> (each part through _tokenize alone); otherwise LLaMA's
  // legacy=false tokenize.
  std::vector<std::string> codellama_tokenize(const std::string& text) const {
    std::string prefix = text;
    std::optional<std::string> suffix;
    if (const std::size_t at = fill_token.empty() ? std::string::npos : text.find(fill_token); at != std::string::npos) {
      if (text.find(fill_token, at + fill_token.size()) != std::string::npos) {
        throw UsageError("a text holds " + fill_token + " more than once; CodeLlamaTokenizer takes prefix" + fill_token +
                         "suffix");
      }
      prefix = text.substr(0, at);
      suffix = text.substr(at + fill_token.size());
    }
    if (!prefix.empty()) prefix = std::string(kUnderline) + replace_all(prefix, kUnderline, " ");
    if (!suffix || suffix->empty()) {
      std::vector<std::string> tokens = base_tokenize(prefix);
      if (tokens.size() > 1 && tokens[0] == kUnderline && all_special_tokens().count(tokens[1])) tokens.erase(tokens.begin());
      return tokens;
    }
    if (prefix_token.empty() || middle_token.empty() || suffix_token.empty()) {
      throw UsageError("a text holds " + fill_token + " (an infilling prompt), but this CodeLlamaTokenizer has no "
                  "prefix, middle and suffix tokens");
    }
    std::vector<std::string> out{prefix_token};
    for (std::string& t : tokenize_segment(prefix)) out.push_back(std::move(t));
    out.push_back(suffix_token);
    for (std::string& t : tokenize_segment(*suffix)) out.push_back(std::move(t));
    out.push_back(middle_token);
    return out;
  }

  std::string preprocess_text(const std::string& inputs) const {
    std::string outputs = remove_space ? py_join_split(py_strip(inputs)) : inputs;
    outputs = replace_all(replace_all(outputs, "``", "\""), "''", "\"");
    if (!keep_accents) outputs = nfkd_without_combining(outputs);
    if (do_lower_case) outputs = icu_lower(outputs);
    return outputs;
  }

  // _tokenize
  std::vector<std::string> tokenize_segment(const std::string& text) const {
    switch (kind) {
      case Kind::t5:
      case Kind::llama:
      case Kind::codellama: {
        if (legacy || !(text.rfind(kUnderline, 0) == 0 || text.rfind(" ", 0) == 0)) return sp_encode(text);
        const std::string unk = special_string("unk_token");
        std::vector<std::string> tokens = sp_encode(unk + text);
        const std::size_t unk_token_length = sp_encode(unk).size();
        if (tokens.size() >= unk_token_length) tokens.erase(tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(unk_token_length));
        return tokens;
      }
      case Kind::albert:
      case Kind::xlnet: {
        const std::vector<std::string> pieces = sp_encode(preprocess_text(text));
        std::vector<std::string> new_pieces;
        for (const std::string& piece : pieces) {
          const auto cs = chars(piece);
          if (cs.size() > 1 && cs.back() == U',' && py_isdigit(cs[cs.size() - 2])) {
            std::vector<std::string> cur = sp_encode(replace_all(utf8(cs, 0, cs.size() - 1), kUnderline, ""));
            if (piece.rfind(kUnderline, 0) != 0 && !cur.empty() && cur[0].rfind(kUnderline, 0) == 0) {
              if (cur[0] == kUnderline) {
                cur.erase(cur.begin());
              } else {
                cur[0] = cur[0].substr(kUnderline.size());
              }
            }
            cur.emplace_back(",");
            for (auto& c : cur) new_pieces.push_back(std::move(c));
          } else {
            new_pieces.push_back(piece);
          }
        }
        return new_pieces;
      }
      case Kind::deberta: {
        const std::string lowered = do_lower_case ? icu_lower(text) : text;
        if (!split_by_punct) return sp_encode(lowered);
        std::vector<std::string> pieces;  // SPMTokenizer._encode_as_pieces: each word alone
        for (const std::string& word : run_split_on_punc(lowered)) {
          for (std::string& p : sp_encode(word)) pieces.push_back(std::move(p));
        }
        return pieces;
      }
      case Kind::marian: {
        // remove_language_code: re ">>.+<<" (greedy, no newline), the first match at the
        // start kept as a token, every match removed from the text.
        std::vector<std::string> code;
        std::string rest;
        std::size_t i = 0;
        bool first = true;
        while (i < text.size()) {
          const std::size_t open = text.find(">>", i);
          if (open == std::string::npos) break;
          const std::size_t line_end = std::min(text.find('\n', open), text.size());
          const std::size_t close = line_end >= open + 5 ? text.rfind("<<", line_end - 2) : std::string::npos;
          if (close == std::string::npos || close < open + 3) {
            rest += text.substr(i, open + 1 - i);
            i = open + 1;
            first = false;
            continue;
          }
          if (first && open == 0) code.push_back(text.substr(0, close + 2));
          first = false;
          rest += text.substr(i, open - i);
          i = close + 2;
        }
        rest += text.substr(std::min(i, text.size()));
        std::vector<std::string> pieces = sp_encode(rest);
        code.insert(code.end(), pieces.begin(), pieces.end());
        return code;
      }
      default: return sp_encode(text);
    }
  }
};

namespace {

// What a class's own function gets from HfTokenizer::load: the tokenizer being built, its
// SentencePiece file, the additional_special_tokens given (to change in place) and load's
// readers of tokenizer_config.json (special_arg(key, default), wrap(token, lstrip, rstrip,
// normalized, special) for AddedToken(x, ...) if isinstance(x, str), flag(key, default)).
struct ClassInit {
  std::function<std::optional<Special>(const char*, const char*)> special_arg;
  std::function<std::optional<Special>(std::optional<Special>, bool, bool, std::optional<bool>, bool)> wrap;
  std::function<bool(const char*, bool)> flag;
  // (processor, the file's name in the directory, its bytes, no dummy prefix)
  std::function<void(sentencepiece::SentencePieceProcessor&, const std::string&, std::string, bool)> load_sp;
  HfTokenizer::Impl& m;
  const std::string& model;  // the SentencePiece file's bytes
  const char* vocab_file;    // its name
  std::vector<Special>& additional;
  bool additional_given;
  const json& init;  // tokenizer_config.json
};

// BarthezTokenizer (models/barthez/tokenization_barthez.py): the model's own ids (no fairseq
// offset), <mask> with lstrip, RoBERTa's template (<s> A </s></s> B </s>), no token types.
void init_barthez(ClassInit& c) {
  c.load_sp(c.m.sp, c.vocab_file, c.model, false);
  auto& s = c.m.specials;
  s["bos_token"] = c.special_arg("bos_token", "<s>");
  s["eos_token"] = c.special_arg("eos_token", "</s>");
  s["sep_token"] = c.special_arg("sep_token", "</s>");
  s["cls_token"] = c.special_arg("cls_token", "<s>");
  s["unk_token"] = c.special_arg("unk_token", "<unk>");
  s["pad_token"] = c.special_arg("pad_token", "<pad>");
  s["mask_token"] = c.wrap(c.special_arg("mask_token", "<mask>"), true, false, std::nullopt, true);
}

// CodeLlamaTokenizer (models/code_llama/tokenization_code_llama.py): LLaMA with legacy=false
// always (no dummy prefix), <s>/</s>/<unk> unnormalized, the infilling tokens appended to
// additional_special_tokens, <FILL_ME> splitting a prompt, no clean-up by default.
void init_codellama(ClassInit& c) {
  auto optional_text = [&](const char* key, const char* fallback) -> std::string {
    if (!c.init.contains(key)) return fallback;
    const json& v = c.init[key];
    if (v.is_null()) return "";
    if (!v.is_string()) throw UsageError("tokenizer_config.json: " + std::string(key) + " is not a string or null");
    return v.get<std::string>();
  };
  HfTokenizer::Impl& m = c.m;
  m.legacy = false;
  m.add_bos_token = c.flag("add_bos_token", true);
  m.add_eos_token = c.flag("add_eos_token", false);
  m.clean_up_tokenization_spaces = c.flag("clean_up_tokenization_spaces", false);
  c.load_sp(m.sp, c.vocab_file, c.model, true);
  m.specials["bos_token"] = c.wrap(c.special_arg("bos_token", "<s>"), false, false, false, true);
  m.specials["eos_token"] = c.wrap(c.special_arg("eos_token", "</s>"), false, false, false, true);
  m.specials["unk_token"] = c.wrap(c.special_arg("unk_token", "<unk>"), false, false, false, true);
  m.prefix_token = optional_text("prefix_token", "\xE2\x96\x81<PRE>");
  m.middle_token = optional_text("middle_token", "\xE2\x96\x81<MID>");
  m.suffix_token = optional_text("suffix_token", "\xE2\x96\x81<SUF>");
  const std::string eot = optional_text("eot_token", "\xE2\x96\x81<EOT>");
  m.fill_token = optional_text("fill_token", "<FILL_ME>");
  for (const std::string* t : std::initializer_list<const std::string*>{&m.prefix_token, &m.middle_token,
                                                                        &m.suffix_token, &eot}) {
    if (!t->empty()) c.additional.push_back(Special{AddedToken{*t}, true});
  }
}

}  // namespace

HfTokenizer::HfTokenizer() : impl_(std::make_unique<Impl>()) {}
HfTokenizer::~HfTokenizer() = default;

std::unique_ptr<HfTokenizer> HfTokenizer::load(const std::string& dir_name) {
  const fs::path dir(dir_name);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw UsageError("pretrained " + dir_name + " is not a directory; give a Hugging Face model directory or a .gguf file");
  }
  // Every file read goes through one reader (model_files.h): a regular file under a size cap,
  // noted as an input, hashed into the digest that identifies the tokenizer.
  ModelFiles files(dir_name);
  const std::string config_file = files.path("tokenizer_config.json");
  json init = files.json("tokenizer_config.json").value_or(json::object());
  if (!init.is_object()) throw UsageError(config_file + " is not a JSON object");
  // The directory's settings, each of the type its class reads, or absent (null: absent, as
  // the classes' None defaults); any other type is refused, never replaced by the default.
  auto typed = [&](const char* key, bool (json::*is)() const noexcept, const char* expected) -> const json* {
    if (!init.contains(key) || init[key].is_null()) return nullptr;
    if (!(init[key].*is)()) refuse_value(config_file, key, init[key], expected);
    return &init[key];
  };
  std::string class_name;
  if (const json* c = typed("tokenizer_class", &json::is_string, "a class name (a string)")) class_name = c->get<std::string>();
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
      for (const auto& [t, c] : kModelTypes) {
        if (type == t) class_name = c;
      }
      if (class_name.empty()) {
        std::string types;
        for (const auto& [t, c] : kModelTypes) types += (types.empty() ? "" : ", ") + std::string(t);
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
  const ClassEntry* entry = nullptr;
  for (const auto& c : kClasses) {
    if (class_name == c.name) entry = &c;
  }
  if (!entry) {
    const std::string other = other_tokenizer(dir);
    throw UsageError("pretrained " + dir_name + ": tokenizer_class " + class_name +
                     " is not a SentencePiece tokenizer embedpe supports (" + supported_classes() + ")" +
                     (other.empty() ? "" : "; " + other) + "; --ids accepts ids made elsewhere");
  }
  auto tok = std::unique_ptr<HfTokenizer>(new HfTokenizer());
  Impl& m = *tok->impl_;
  m.kind = entry->kind;
  tok->class_name_ = entry->name;
  const std::optional<std::string> model =
      files.read(entry->vocab_file, Tokenizer::kMaxModelBytes, "a SentencePiece model");
  if (!model) {
    const std::string other = other_tokenizer(dir);
    throw UsageError("pretrained " + dir_name + ": " + entry->name + " reads " + entry->vocab_file +
                     ", which is missing; " + listing(dir) +
                     (other.empty() ? "" : "; " + other + "; --ids accepts ids made elsewhere"));
  }
  tok->main_model_ = files.path(entry->vocab_file);

  // ---- _from_pretrained: added tokens and special tokens from the files
  std::map<int, AddedToken> added_tokens_decoder;
  std::map<std::string, AddedToken> added_tokens_map;
  const bool has_decoder = typed("added_tokens_decoder", &json::is_object, "an object of ids and tokens") != nullptr;
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
      for (const char* key : Impl::kAttributes) {
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
  auto special_arg = [&](const char* key, const char* fallback) -> std::optional<Special> {
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
  };
  // AddedToken(x, **defaults) if isinstance(x, str) else x
  auto wrap = [](std::optional<Special> s, bool lstrip, bool rstrip, std::optional<bool> normalized, bool special) {
    if (s && s->is_string) {
      s->token.lstrip = lstrip;
      s->token.rstrip = rstrip;
      s->token.special = special;
      s->token.normalized = normalized.value_or(!special);
      s->is_string = false;
    }
    return s;
  };
  std::vector<Special> additional;
  bool additional_given = false;
  if (typed("additional_special_tokens", &json::is_array, "a list of tokens")) {
    additional_given = true;
    for (const auto& t : init["additional_special_tokens"]) {
      if (auto s = special_from(t, false)) additional.push_back(*s);
    }
  }
  auto flag = [&](const char* key, bool fallback) {
    const json* v = typed(key, &json::is_boolean, "true or false");
    return v ? v->get<bool>() : fallback;
  };
  auto text = [&](const char* key) -> std::optional<std::string> {
    if (const json* v = typed(key, &json::is_string, "a string")) return v->get<std::string>();
    return std::nullopt;
  };
  // A count the class reads (extra_ids, offset, ...): an integer from 0 to 2^31-1.
  auto count = [&](const char* key, int fallback) {
    const json* v = typed(key, &json::is_number, "an integer from 0 to 2147483647");
    return v ? id_value(config_file, key, *v) : fallback;
  };
  m.clean_up_tokenization_spaces = flag("clean_up_tokenization_spaces", true);
  m.split_special_tokens = flag("split_special_tokens", false);
  auto load_sp = [&](sentencepiece::SentencePieceProcessor& sp, const std::string& name, std::string bytes,
                     bool no_dummy_prefix) {
    if (no_dummy_prefix) bytes = protobuf::without_dummy_prefix(bytes);
    const auto status = sp.LoadFromSerializedProto(bytes);
    if (!status.ok()) throw UsageError(files.path(name) + " is not a SentencePiece model (" + status.ToString() + ")");
  };

  std::map<std::string, std::optional<Special>>& sp_ = m.specials;
  ClassInit class_init{special_arg, wrap, flag, load_sp, m, *model, entry->vocab_file, additional, additional_given, init};
  if (entry->init) entry->init(class_init);
  else switch (m.kind) {
    case Kind::t5: {
      m.legacy = flag("legacy", true);
      m.add_prefix_space = flag("add_prefix_space", true);
      load_sp(m.sp, entry->vocab_file, *model, !m.legacy);
      const int extra_ids = count("extra_ids", 100);
      std::vector<std::string> extra_tokens;
      if (additional_given) {
        for (const auto& s : additional) {
          if (s.token.content.find("<extra_id_") != std::string::npos) extra_tokens.push_back(s.token.content);
        }
        if (extra_tokens.empty()) {
          for (int i = 0; i < extra_ids; ++i) additional.push_back(Special{AddedToken{"<extra_id_" + std::to_string(i) + ">"}, true});
        } else if (extra_ids > 0 && extra_ids != static_cast<int>(extra_tokens.size())) {
          throw UsageError("pretrained " + dir_name + ": extra_ids and the <extra_id_N> tokens disagree");
        }
      } else {
        for (int i = 0; i < extra_ids; ++i) {
          extra_tokens.push_back("<extra_id_" + std::to_string(i) + ">");
          additional.push_back(Special{AddedToken{extra_tokens.back()}, true});
        }
      }
      for (std::size_t i = 0; i < extra_tokens.size(); ++i) {
        m.added_tokens_decoder[m.sp.GetPieceSize() - 1 + extra_ids - static_cast<int>(i)] =
            AddedToken{"<extra_id_" + std::to_string(i) + ">", false, true, true, true, false};
      }
      sp_["eos_token"] = wrap(special_arg("eos_token", "</s>"), false, false, std::nullopt, true);
      sp_["unk_token"] = wrap(special_arg("unk_token", "<unk>"), false, false, std::nullopt, true);
      sp_["pad_token"] = wrap(special_arg("pad_token", "<pad>"), false, false, std::nullopt, true);
      break;
    }
    case Kind::llama:
    case Kind::gemma: {
      const bool gemma = m.kind == Kind::gemma;
      m.legacy = flag("legacy", true) || gemma;
      m.add_prefix_space = flag("add_prefix_space", true);
      m.add_bos_token = flag("add_bos_token", true);
      m.add_eos_token = flag("add_eos_token", false);
      m.clean_up_tokenization_spaces = flag("clean_up_tokenization_spaces", false);
      load_sp(m.sp, entry->vocab_file, *model, !m.legacy);
      sp_["bos_token"] = wrap(special_arg("bos_token", gemma ? "<bos>" : "<s>"), false, false, false, true);
      sp_["eos_token"] = wrap(special_arg("eos_token", gemma ? "<eos>" : "</s>"), false, false, false, true);
      sp_["unk_token"] = wrap(special_arg("unk_token", "<unk>"), false, false, false, true);
      sp_["pad_token"] = wrap(special_arg("pad_token", gemma ? "<pad>" : nullptr), false, false, false, true);
      break;
    }
    case Kind::albert:
    case Kind::xlnet: {
      const bool albert = m.kind == Kind::albert;
      m.has_do_lower_case = true;
      m.do_lower_case = flag("do_lower_case", albert);
      m.remove_space = flag("remove_space", true);
      m.keep_accents = flag("keep_accents", false);
      load_sp(m.sp, entry->vocab_file, *model, false);
      sp_["bos_token"] = special_arg("bos_token", albert ? "[CLS]" : "<s>");
      sp_["eos_token"] = special_arg("eos_token", albert ? "[SEP]" : "</s>");
      sp_["unk_token"] = special_arg("unk_token", "<unk>");
      sp_["sep_token"] = special_arg("sep_token", albert ? "[SEP]" : "<sep>");
      sp_["pad_token"] = special_arg("pad_token", "<pad>");
      sp_["cls_token"] = special_arg("cls_token", albert ? "[CLS]" : "<cls>");
      sp_["mask_token"] = albert ? wrap(special_arg("mask_token", "[MASK]"), true, false, false, false)
                                 : wrap(special_arg("mask_token", "<mask>"), true, false, std::nullopt, true);
      if (!albert && !additional_given) {
        additional = {Special{AddedToken{"<eop>"}, true}, Special{AddedToken{"<eod>"}, true}};
      }
      break;
    }
    case Kind::xlmr:
    case Kind::camembert:
    case Kind::mbart:
    case Kind::mbart50:
    case Kind::nllb: {
      load_sp(m.sp, entry->vocab_file, *model, false);
      const bool nllb = m.kind == Kind::nllb;
      auto plain = [&](const char* key, const char* fallback) {
        return nllb ? wrap(special_arg(key, fallback), false, false, false, true) : special_arg(key, fallback);
      };
      if (m.kind != Kind::mbart50) sp_["bos_token"] = plain("bos_token", "<s>");
      sp_["eos_token"] = plain("eos_token", "</s>");
      sp_["sep_token"] = special_arg("sep_token", "</s>");
      sp_["cls_token"] = special_arg("cls_token", "<s>");
      sp_["unk_token"] = plain("unk_token", "<unk>");
      sp_["pad_token"] = plain("pad_token", "<pad>");
      if (m.kind == Kind::mbart) {
        sp_["mask_token"] = wrap(special_arg("mask_token", "<mask>"), true, false, false, false);
      } else if (nllb) {
        sp_["mask_token"] = wrap(special_arg("mask_token", "<mask>"), true, false, true, true);
      } else if (m.kind == Kind::mbart50) {
        sp_["mask_token"] = wrap(special_arg("mask_token", "<mask>"), true, false, std::nullopt, false);
      } else {
        sp_["mask_token"] = wrap(special_arg("mask_token", "<mask>"), true, false, std::nullopt, true);
      }
      m.fairseq_offset = m.kind == Kind::camembert ? 4 : 1;
      if (m.kind == Kind::xlmr || m.kind == Kind::mbart || m.kind == Kind::mbart50) {
        m.fairseq_tokens_to_ids = {{"<s>", 0}, {"<pad>", 1}, {"</s>", 2}, {"<unk>", 3}};
        const int n = m.sp.GetPieceSize();
        if (m.kind == Kind::xlmr) {
          m.fairseq_tokens_to_ids["<mask>"] = n + m.fairseq_offset;
        } else {
          const auto& codes = m.lang_codes();
          std::vector<Special> languages;
          for (std::size_t i = 0; i < codes.size(); ++i) {
            m.fairseq_tokens_to_ids[codes[i]] = n + static_cast<int>(i) + m.fairseq_offset;
            languages.push_back(Special{AddedToken{codes[i]}, true});
          }
          m.fairseq_tokens_to_ids["<mask>"] = n + static_cast<int>(codes.size()) + m.fairseq_offset;
          if (m.kind == Kind::mbart) {  // the codes first, then the directory's others
            for (const Special& s : additional) {
              bool present = false;
              for (const Special& l : languages) present = present || l.token.content == s.token.content;
              if (!present) languages.push_back(s);
            }
            additional = languages;
          } else {  // mbart50: the directory's, then the codes missing from them
            for (const Special& l : languages) {
              bool present = false;
              for (const Special& s : additional) present = present || l.token.content == s.token.content;
              if (!present) additional.push_back(l);
            }
          }
        }
        for (const auto& [token, id] : m.fairseq_tokens_to_ids) m.fairseq_ids_to_tokens[id] = token;
      }
      if (m.kind == Kind::camembert) {
        if (!additional_given) {
          // v4.44.2's default: additional_special_tokens=["<s>NOTUSED", "</s>NOTUSED", "<unk>NOTUSED"]
          additional = {Special{AddedToken{"<s>NOTUSED"}, true}, Special{AddedToken{"</s>NOTUSED"}, true},
                        Special{AddedToken{"<unk>NOTUSED"}, true}};
        }
        auto as_token = [](const std::optional<Special>& s) {
          AddedToken t = s->token;
          if (s->is_string) t = AddedToken{t.content, false, false, false, true, false};
          return t;
        };
        m.added_tokens_decoder = {{0, AddedToken{"<s>NOTUSED", false, false, false, true, false}},
                                  {1, as_token(sp_["pad_token"])},
                                  {2, AddedToken{"</s>NOTUSED", false, false, false, true, false}},
                                  {3, as_token(sp_["unk_token"])},
                                  {4, AddedToken{"<unk>NOTUSED", false, false, false, true, false}}};
        // kwargs["added_tokens_decoder"].update(self._added_tokens_decoder): the class's win
        for (const auto& [id, t] : m.added_tokens_decoder) added_tokens_decoder[id] = t;
      }
      if (nllb) {
        if (!additional_given) {
          throw UsageError("pretrained " + dir_name + ": NllbTokenizer needs its language codes "
                           "(additional_special_tokens in special_tokens_map.json or tokenizer_config.json)");
        }
        m.legacy_behaviour = flag("legacy_behaviour", false);
        m.added_tokens_decoder = {{0, sp_["bos_token"]->token}, {1, sp_["pad_token"]->token},
                                  {2, sp_["eos_token"]->token}, {3, sp_["unk_token"]->token}};
      }
      break;
    }
    case Kind::m2m100: {
      if (text("language_codes").value_or("m2m100") != "m2m100") {
        throw UsageError("pretrained " + dir_name + ": M2M100Tokenizer language_codes " + *text("language_codes") +
                         " is not supported (m2m100 is)");
      }
      const auto vocab = files.read("vocab.json", kMaxModelVocabBytes, "a vocabulary");
      if (!vocab) throw UsageError("pretrained " + dir_name + ": M2M100Tokenizer reads vocab.json, which is missing; " + listing(dir));
      m.encoder = read_vocab(*vocab, files.path("vocab.json"));
      for (const auto& [k, v] : m.encoder) m.decoder[v] = k;
      load_sp(m.sp, entry->vocab_file, *model, false);
      const int size = static_cast<int>(m.encoder.size());
      const auto& codes = m2m100_codes();
      for (std::size_t i = 0; i < codes.size(); ++i) {
        const std::string token = "__" + codes[i] + "__";
        m.lang_token_to_id[token] = size + static_cast<int>(i);
        m.id_to_lang_token[size + static_cast<int>(i)] = token;
        // v4.34+: `lang_code not in str(token) not in self.added_tokens_encoder` is always false, so
        // no language token is appended: they are added tokens only where the directory lists them.
      }
      m.num_madeup_words = count("num_madeup_words", 8);
      sp_["bos_token"] = special_arg("bos_token", "<s>");
      sp_["eos_token"] = special_arg("eos_token", "</s>");
      sp_["sep_token"] = special_arg("sep_token", "</s>");
      sp_["pad_token"] = special_arg("pad_token", "<pad>");
      sp_["unk_token"] = special_arg("unk_token", "<unk>");
      break;
    }
    case Kind::marian: {
      if (flag("separate_vocabs", false)) throw UsageError("pretrained " + dir_name + ": MarianTokenizer with separate_vocabs is not supported");
      const auto vocab = files.read("vocab.json", kMaxModelVocabBytes, "a vocabulary");
      const auto target = files.read("target.spm", Tokenizer::kMaxModelBytes, "a SentencePiece model");
      if (!vocab || !target) throw UsageError("pretrained " + dir_name + ": MarianTokenizer reads vocab.json and target.spm; " + listing(dir));
      m.encoder = read_vocab(*vocab, files.path("vocab.json"));
      for (const auto& [k, v] : m.encoder) m.decoder[v] = k;
      load_sp(m.sp, entry->vocab_file, *model, false);
      load_sp(m.target, "target.spm", *target, false);
      sp_["unk_token"] = special_arg("unk_token", "<unk>");
      sp_["eos_token"] = special_arg("eos_token", "</s>");
      sp_["pad_token"] = special_arg("pad_token", "<pad>");
      if (!m.encoder.count(sp_["unk_token"]->token.content)) throw UsageError("pretrained " + dir_name + ": vocab.json has no unk token");
      if (!init.contains("model_max_length")) init["model_max_length"] = 512;
      break;
    }
    case Kind::deberta: {
      m.split_by_punct = flag("split_by_punct", false);
      m.has_do_lower_case = true;
      m.do_lower_case = flag("do_lower_case", false);
      load_sp(m.sp, entry->vocab_file, *model, false);
      for (int i = 0; i < m.sp.GetPieceSize(); ++i) m.vocab[m.sp.IdToPiece(i)] = i;
      sp_["bos_token"] = special_arg("bos_token", "[CLS]");
      sp_["eos_token"] = special_arg("eos_token", "[SEP]");
      sp_["unk_token"] = wrap(special_arg("unk_token", "[UNK]"), false, false, true, true);
      sp_["sep_token"] = special_arg("sep_token", "[SEP]");
      sp_["pad_token"] = special_arg("pad_token", "[PAD]");
      sp_["cls_token"] = special_arg("cls_token", "[CLS]");
      sp_["mask_token"] = special_arg("mask_token", "[MASK]");
      break;
    }
    case Kind::pegasus: {
      load_sp(m.sp, entry->vocab_file, *model, false);
      m.offset = count("offset", 103);
      const auto mask_sent = init.contains("mask_token_sent") ? init["mask_token_sent"] : json("<mask_1>");
      sp_["pad_token"] = special_arg("pad_token", "<pad>");
      sp_["eos_token"] = special_arg("eos_token", "</s>");
      sp_["unk_token"] = special_arg("unk_token", "<unk>");
      sp_["mask_token"] = special_arg("mask_token", "<mask_2>");
      std::vector<std::string> extended;
      if (additional_given) {
        for (const Special& s : additional) extended.push_back(s.token.content);
        if (mask_sent.is_string() && std::find(extended.begin(), extended.end(), mask_sent.get<std::string>()) == extended.end()) {
          extended.insert(extended.begin(), mask_sent.get<std::string>());
        }
        for (int i = static_cast<int>(extended.size()); i < m.offset - 1; ++i) extended.push_back("<unk_" + std::to_string(i) + ">");
        if (std::set<std::string>(extended.begin(), extended.end()).size() != extended.size()) {
          throw UsageError("pretrained " + dir_name + ": PegasusTokenizer's additional_special_tokens repeat a token "
                           "(an incorrectly shifted list of <unk_x> tokens)");
        }
      } else {
        if (mask_sent.is_string()) extended.push_back(mask_sent.get<std::string>());
        for (int i = 2; i < m.offset; ++i) extended.push_back("<unk_" + std::to_string(i) + ">");
      }
      additional.clear();
      for (const auto& e : extended) additional.push_back(Special{AddedToken{e}, true});
      // v4.34+: the ids below the offset are the class's added tokens, which win over the directory's
      auto special_token = [](const std::string& content) { return AddedToken{content, false, false, false, true, false}; };
      m.added_tokens_decoder[0] = special_token(sp_["pad_token"]->token.content);
      m.added_tokens_decoder[1] = special_token(sp_["eos_token"]->token.content);
      if (mask_sent.is_string()) {
        m.added_tokens_decoder[2] = special_token(mask_sent.get<std::string>());
        m.added_tokens_decoder[3] = special_token(sp_["mask_token"]->token.content);
      }
      for (int i = 2; i < m.offset; ++i) {
        m.added_tokens_decoder[static_cast<int>(m.added_tokens_decoder.size())] = special_token("<unk_" + std::to_string(i) + ">");
      }
      for (const auto& [id, t] : m.added_tokens_decoder) added_tokens_decoder[id] = t;
      break;
    }
    case Kind::barthez:
    case Kind::codellama: break;  // their entries' functions
  }
  m.additional_special_tokens = additional;
  // PreTrainedTokenizer.__init__: the directory's added tokens over the class's, then the
  // special tokens not yet added, at their vocabulary id or after it.
  for (const auto& [id, t] : added_tokens_decoder) m.added_tokens_decoder[id] = t;
  for (const auto& [id, t] : m.added_tokens_decoder) m.added_tokens_encoder[t.content] = id;
  m.add_special_tokens();
  m.update_trie();

  // language codes and the template
  if (m.kind == Kind::mbart || m.kind == Kind::mbart50) {
    const std::string lang = text("src_lang").value_or("en_XX");
    const auto it = m.fairseq_tokens_to_ids.find(lang);
    if (it == m.fairseq_tokens_to_ids.end()) throw UsageError("pretrained " + dir_name + ": src_lang " + lang + " is not a language code of " + tok->class_name_);
    const int eos = m.convert_token_to_id_with_added_voc(m.special_string("eos_token"));
    if (m.kind == Kind::mbart) {
      m.suffix_tokens = {eos, it->second};
    } else {
      m.prefix_tokens = {it->second};
      m.suffix_tokens = {eos};
    }
  } else if (m.kind == Kind::nllb) {
    const std::string lang = text("src_lang").value_or("eng_Latn");
    const int code = m.convert_token_to_id_with_added_voc(lang);
    const int eos = m.convert_token_to_id_with_added_voc(m.special_string("eos_token"));
    if (m.legacy_behaviour) {
      m.suffix_tokens = {eos, code};
    } else {
      m.prefix_tokens = {code};
      m.suffix_tokens = {eos};
    }
  } else if (m.kind == Kind::m2m100) {
    const std::string lang = text("src_lang").value_or("en");
    const auto it = m.lang_token_to_id.find("__" + lang + "__");
    if (it == m.lang_token_to_id.end()) throw UsageError("pretrained " + dir_name + ": src_lang " + lang + " is not a language code of M2M100Tokenizer");
    m.prefix_tokens = {it->second};
    m.suffix_tokens = {m.convert_token_to_id_with_added_voc(m.special_string("eos_token"))};
  }

  // len(tokenizer) and each id's token
  int size = m.vocab_size();
  for (const auto& [id, t] : m.added_tokens_decoder) size = std::max(size, id + 1);
  if (m.kind == Kind::m2m100) {  // ids _convert_id_to_token knows: the language tokens, the made-up words
    size = std::max(size, static_cast<int>(m.encoder.size() + m.lang_token_to_id.size()) + m.num_madeup_words);
  }
  tok->id_to_token_.resize(static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i) {
    try {
      tok->id_to_token_[static_cast<std::size_t>(i)] = m.convert_ids_to_token(i);
    } catch (const Error&) {
      tok->id_to_token_[static_cast<std::size_t>(i)] = m.special_string("unk_token");
    }
  }
  tok->token_type_ids_ = m.kind == Kind::albert || m.kind == Kind::xlnet || m.kind == Kind::deberta;
  tok->pad_token_type_id_ = m.kind == Kind::xlnet ? 3 : 0;
  tok->padding_left_ = m.kind == Kind::xlnet;
  // HF raises for a side other than these two.
  for (const auto& [key, left] : {std::pair{"padding_side", &tok->padding_left_}, {"truncation_side", &tok->truncation_left_}}) {
    if (const auto side = text(key)) {
      if (*side != "left" && *side != "right") refuse_value(config_file, key, init[key], "\"right\" or \"left\"");
      *left = *side == "left";
    }
  }
  if (const json* v = typed("model_max_length", &json::is_number, "a number")) {
    const double d = v->get<double>();
    if (d > 0 && d < 1e18) tok->model_max_length_ = static_cast<std::size_t>(d);
  }
  tok->files_digest_ = files.digest();
  // The rest of the model is an input too, though the tokenizer does not read it: no output replaces it.
  std::error_code listed;
  for (const auto& e : fs::directory_iterator(dir, listed)) {
    const std::string name = e.path().filename().string();
    if (name == "model.safetensors.index.json" ||
        (name.starts_with("model") && name.ends_with(".safetensors"))) {
      files.note(name);
    }
  }
  return tok;
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
  const Impl& m = *impl_;
  auto id = [&](const char* attribute) { return m.convert_token_to_id_with_added_voc(m.special_string(attribute)); };
  Built out;
  auto append = [&](const std::vector<int>& ids, int type) {
    out.ids.insert(out.ids.end(), ids.begin(), ids.end());
    out.types.insert(out.types.end(), ids.size(), type);
  };
  switch (m.kind) {
    case Kind::t5: {
      auto with_eos = [&](std::vector<int> ids) {
        const int eos = id("eos_token");
        if (add_suffix && (ids.empty() || ids.back() != eos)) ids.push_back(eos);
        return ids;
      };
      append(with_eos(a), 0);
      if (b) append(with_eos(*b), 0);
      break;
    }
    case Kind::llama:
    case Kind::codellama:
    case Kind::gemma: {
      std::vector<int> bos, eos;
      if (m.add_bos_token && add_prefix) bos = {id("bos_token")};
      if (m.add_eos_token && add_suffix) eos = {id("eos_token")};
      append(bos, 0), append(a, 0), append(eos, 0);
      if (b) append(bos, 1), append(*b, 1), append(eos, 1);
      break;
    }
    case Kind::albert:
    case Kind::deberta:
    case Kind::xlmr:
    case Kind::camembert:
    case Kind::barthez: {
      const std::vector<int> cls{id("cls_token")}, sep{id("sep_token")};
      const bool roberta = m.kind != Kind::albert && m.kind != Kind::deberta;
      if (add_prefix) append(cls, 0);
      append(a, 0);
      if (b) {
        append(sep, 0);
        if (roberta) append(sep, 0);
        append(*b, roberta ? 0 : 1);
      }
      if (add_suffix) append(sep, b && !roberta ? 1 : 0);
      break;
    }
    case Kind::xlnet: {
      const std::vector<int> cls{id("cls_token")}, sep{id("sep_token")};
      append(a, 0);
      if (b) append(sep, 0), append(*b, 1);
      if (add_suffix) append(sep, b ? 1 : 0), append(cls, 2);
      break;
    }
    case Kind::mbart:
    case Kind::mbart50:
    case Kind::nllb:
    case Kind::m2m100: {
      if (add_prefix) append(m.prefix_tokens, 0);
      append(a, 0);
      if (b) append(*b, 0);
      if (add_suffix) append(m.suffix_tokens, 0);
      break;
    }
    case Kind::marian:
    case Kind::pegasus: {
      append(a, 0);
      if (b) append(*b, 0);
      if (add_suffix) append({id("eos_token")}, 0);
      break;
    }
  }
  return out;
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
  const sentencepiece::SentencePieceProcessor& sp = m.kind == Kind::marian ? m.target : m.sp;
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
  auto sp_decode = [&](const std::vector<std::string>& pieces) {
    std::string out;
    if (!sp.Decode(pieces, &out).ok()) throw Error("cannot decode pieces");
    return out;
  };
  // Runs of pieces decoded by SentencePiece, each special token kept as it is with `after` behind
  // it: the loop of the classes whose _decode joins specials without sp_model (CodeLlama, Marian,
  // M2M100, Pegasus).
  auto join_specials = [&](const std::vector<std::string>& pieces, const char* after) {
    std::string out;
    std::vector<std::string> cur;
    for (const auto& t : pieces) {
      if (specials.count(t)) {
        out += sp_decode(cur) + t + after;
        cur.clear();
      } else {
        cur.push_back(t);
      }
    }
    return out + sp_decode(cur);
  };
  // convert_tokens_to_string of each class
  auto to_string = [&](std::vector<std::string> tokens) -> std::string {
    switch (m.kind) {
      case Kind::xlmr:
      case Kind::mbart:
      case Kind::nllb: {
        std::string joined;
        for (const auto& t : tokens) joined += t;
        return py_strip(replace_all(joined, kUnderline, " "));
      }
      case Kind::xlnet: {
        std::string joined;
        for (const auto& t : tokens) joined += t;
        return py_strip(replace_all(joined, kUnderline, " "));
      }
      case Kind::llama: {
        if (!tokens.empty() && tokens[0].rfind(kUnderline, 0) == 0 && m.add_prefix_space) tokens[0] = tokens[0].substr(kUnderline.size());
        std::string out;
        std::vector<std::string> cur;
        bool prev_is_special = false;
        for (std::size_t i = 0; i < tokens.size(); ++i) {
          if (specials.count(tokens[i])) {
            if (!prev_is_special && i != 0 && m.legacy) out += " ";
            out += sp_decode(cur) + tokens[i];
            prev_is_special = true;
            cur.clear();
          } else {
            if (prev_is_special && i == 1 && m.add_prefix_space && tokens[i].rfind(kUnderline, 0) != 0) out += " ";
            cur.push_back(tokens[i]);
            prev_is_special = false;
          }
        }
        return out + sp_decode(cur);
      }
      case Kind::codellama: {  // the first token's ▁ dropped, specials joined without spaces, no strip
        if (tokens[0].rfind(kUnderline, 0) == 0) tokens[0] = tokens[0].substr(kUnderline.size());
        return join_specials(tokens, "");
      }
      case Kind::marian:
        return py_strip(replace_all(join_specials(tokens, " "), kUnderline, " "));
      case Kind::m2m100:
      case Kind::pegasus:
        return py_strip(join_specials(tokens, ""));
      default: {  // T5, ALBERT, CamemBERT, mBART-50, DeBERTa-v2
        if (m.kind == Kind::t5 && !tokens.empty() && tokens[0].rfind(kUnderline, 0) == 0 && m.add_prefix_space) {
          tokens[0] = tokens[0].substr(kUnderline.size());
        }
        std::string out;
        std::vector<std::string> cur;
        bool prev_is_special = false;
        for (const auto& t : tokens) {
          if (specials.count(t)) {
            if (!prev_is_special) out += " ";
            out += sp_decode(cur) + t;
            prev_is_special = true;
            cur.clear();
          } else {
            cur.push_back(t);
            prev_is_special = false;
          }
        }
        return py_strip(out + sp_decode(cur));
      }
    }
  };
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
