// The HF slow tokenizer classes, one entry each (kClasses): what each class's __init__ does
// with the directory's settings (its special tokens and their flags, its own ids), its
// language codes, and its template (build_inputs_with_special_tokens and
// create_token_type_ids_from_sequences), as models/*/tokenization_*.py of transformers
// v4.44.2 do. The machinery they share is hf_tokenizer.cpp's (reading the directory, added
// tokens) and hf_impl.cpp's (PreTrainedTokenizer's methods).
#include <algorithm>
#include <set>
#include <sstream>

#include "embedpe/error.h"
#include "embedpe/tokenizer.h"
#include "hf_impl.h"
#include "hf_tokenizer.h"
#include "model_files.h"

namespace embedpe::detail::hf {

namespace {

using Built = PretrainedEncoder::Built;

// ------------------------------------------------------------------ templates

// What a template is built from: the class's special ids, appended with their type.
struct Template {
  const HfTokenizer::Impl& m;
  Built out;
  int id(const char* attribute) const { return m.convert_token_to_id_with_added_voc(m.special_string(attribute)); }
  void append(const std::vector<int>& ids, int type) {
    out.ids.insert(out.ids.end(), ids.begin(), ids.end());
    out.types.insert(out.types.end(), ids.size(), type);
  }
};

// T5: A </s> B </s>, an </s> not doubled.
Built t5_template(const HfTokenizer::Impl& m, const std::vector<int>& a, const std::vector<int>* b, bool, bool add_suffix) {
  Template t{m, {}};
  auto with_eos = [&](std::vector<int> ids) {
    const int eos = t.id("eos_token");
    if (add_suffix && (ids.empty() || ids.back() != eos)) ids.push_back(eos);
    return ids;
  };
  t.append(with_eos(a), 0);
  if (b) t.append(with_eos(*b), 0);
  return std::move(t.out);
}

// LLaMA, CodeLlama, Gemma: bos A eos bos B eos, as add_bos_token / add_eos_token say.
Built llama_template(const HfTokenizer::Impl& m, const std::vector<int>& a, const std::vector<int>* b, bool add_prefix,
                     bool add_suffix) {
  Template t{m, {}};
  std::vector<int> bos, eos;
  if (m.add_bos_token && add_prefix) bos = {t.id("bos_token")};
  if (m.add_eos_token && add_suffix) eos = {t.id("eos_token")};
  t.append(bos, 0), t.append(a, 0), t.append(eos, 0);
  if (b) t.append(bos, 1), t.append(*b, 1), t.append(eos, 1);
  return std::move(t.out);
}

// [CLS] A [SEP] B [SEP] (ALBERT, DeBERTa-v2: B and its [SEP] type 1) or <s> A </s></s> B </s>
// (RoBERTa's, type 0 throughout).
Built cls_sep_template(const HfTokenizer::Impl& m, const std::vector<int>& a, const std::vector<int>* b, bool add_prefix,
                       bool add_suffix, bool roberta) {
  Template t{m, {}};
  const std::vector<int> cls{t.id("cls_token")}, sep{t.id("sep_token")};
  if (add_prefix) t.append(cls, 0);
  t.append(a, 0);
  if (b) {
    t.append(sep, 0);
    if (roberta) t.append(sep, 0);
    t.append(*b, roberta ? 0 : 1);
  }
  if (add_suffix) t.append(sep, b && !roberta ? 1 : 0);
  return std::move(t.out);
}
Built bert_template(const HfTokenizer::Impl& m, const std::vector<int>& a, const std::vector<int>* b, bool add_prefix,
                    bool add_suffix) {
  return cls_sep_template(m, a, b, add_prefix, add_suffix, false);
}
Built roberta_template(const HfTokenizer::Impl& m, const std::vector<int>& a, const std::vector<int>* b,
                       bool add_prefix, bool add_suffix) {
  return cls_sep_template(m, a, b, add_prefix, add_suffix, true);
}

// XLNet: A <sep> B <sep> <cls>, types 0, 1 and 2 for <cls>.
Built xlnet_template(const HfTokenizer::Impl& m, const std::vector<int>& a, const std::vector<int>* b, bool,
                     bool add_suffix) {
  Template t{m, {}};
  const std::vector<int> cls{t.id("cls_token")}, sep{t.id("sep_token")};
  t.append(a, 0);
  if (b) t.append(sep, 0), t.append(*b, 1);
  if (add_suffix) t.append(sep, b ? 1 : 0), t.append(cls, 2);
  return std::move(t.out);
}

// mBART, mBART-50, NLLB, M2M100: prefix_tokens A B suffix_tokens (the language codes').
Built language_template(const HfTokenizer::Impl& m, const std::vector<int>& a, const std::vector<int>* b,
                        bool add_prefix, bool add_suffix) {
  Template t{m, {}};
  if (add_prefix) t.append(m.prefix_tokens, 0);
  t.append(a, 0);
  if (b) t.append(*b, 0);
  if (add_suffix) t.append(m.suffix_tokens, 0);
  return std::move(t.out);
}

// Marian, Pegasus: A B </s>.
Built eos_template(const HfTokenizer::Impl& m, const std::vector<int>& a, const std::vector<int>* b, bool,
                   bool add_suffix) {
  Template t{m, {}};
  t.append(a, 0);
  if (b) t.append(*b, 0);
  if (add_suffix) t.append({t.id("eos_token")}, 0);
  return std::move(t.out);
}

// ------------------------------------------------------------------ language codes

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

// mBART's src_lang: A </s> code; mBART-50's: code A </s>.
void mbart_languages(ClassInit& c) {
  HfTokenizer::Impl& m = c.m;
  const std::string lang = c.config.text("src_lang").value_or("en_XX");
  const auto it = m.fairseq_tokens_to_ids.find(lang);
  if (it == m.fairseq_tokens_to_ids.end()) {
    throw UsageError("pretrained " + c.dir + ": src_lang " + lang + " is not a language code of " + m.entry->name);
  }
  const int eos = m.convert_token_to_id_with_added_voc(m.special_string("eos_token"));
  if (m.kind == Kind::mbart) {
    m.suffix_tokens = {eos, it->second};
  } else {
    m.prefix_tokens = {it->second};
    m.suffix_tokens = {eos};
  }
}

// NLLB's src_lang: code A </s>, or A </s> code with legacy_behaviour.
void nllb_languages(ClassInit& c) {
  HfTokenizer::Impl& m = c.m;
  const std::string lang = c.config.text("src_lang").value_or("eng_Latn");
  const int code = m.convert_token_to_id_with_added_voc(lang);
  const int eos = m.convert_token_to_id_with_added_voc(m.special_string("eos_token"));
  if (m.legacy_behaviour) {
    m.suffix_tokens = {eos, code};
  } else {
    m.prefix_tokens = {code};
    m.suffix_tokens = {eos};
  }
}

// M2M100's src_lang: __code__ A </s>.
void m2m100_languages(ClassInit& c) {
  HfTokenizer::Impl& m = c.m;
  const std::string lang = c.config.text("src_lang").value_or("en");
  const auto it = m.lang_token_to_id.find("__" + lang + "__");
  if (it == m.lang_token_to_id.end()) {
    throw UsageError("pretrained " + c.dir + ": src_lang " + lang + " is not a language code of M2M100Tokenizer");
  }
  m.prefix_tokens = {it->second};
  m.suffix_tokens = {m.convert_token_to_id_with_added_voc(m.special_string("eos_token"))};
}

// ------------------------------------------------------------------ each class's __init__

// T5Tokenizer (models/t5/tokenization_t5.py): legacy, the <extra_id_N> tokens at the top of the
// vocabulary, </s> <unk> <pad>.
void init_t5(ClassInit& c) {
  HfTokenizer::Impl& m = c.m;
  m.legacy = c.flag("legacy", true);
  m.add_prefix_space = c.flag("add_prefix_space", true);
  c.load_sp(m.sp, c.vocab_file, c.model, !m.legacy);
  const int extra_ids = c.config.count("extra_ids", 100);
  std::vector<std::string> extra_tokens;
  if (c.additional_given) {
    for (const auto& s : c.additional) {
      if (s.token.content.find("<extra_id_") != std::string::npos) extra_tokens.push_back(s.token.content);
    }
    if (extra_tokens.empty()) {
      for (int i = 0; i < extra_ids; ++i) c.additional.push_back(Special{AddedToken{"<extra_id_" + std::to_string(i) + ">"}, true});
    } else if (extra_ids > 0 && extra_ids != static_cast<int>(extra_tokens.size())) {
      throw UsageError("pretrained " + c.dir + ": extra_ids and the <extra_id_N> tokens disagree");
    }
  } else {
    for (int i = 0; i < extra_ids; ++i) {
      extra_tokens.push_back("<extra_id_" + std::to_string(i) + ">");
      c.additional.push_back(Special{AddedToken{extra_tokens.back()}, true});
    }
  }
  for (std::size_t i = 0; i < extra_tokens.size(); ++i) {
    m.added_tokens_decoder[m.sp.GetPieceSize() - 1 + extra_ids - static_cast<int>(i)] =
        AddedToken{"<extra_id_" + std::to_string(i) + ">", false, true, true, true, false};
  }
  c.special("eos_token") = c.wrap(c.special_arg("eos_token", "</s>"), false, false, std::nullopt, true);
  c.special("unk_token") = c.wrap(c.special_arg("unk_token", "<unk>"), false, false, std::nullopt, true);
  c.special("pad_token") = c.wrap(c.special_arg("pad_token", "<pad>"), false, false, std::nullopt, true);
}

// LlamaTokenizer (models/llama/tokenization_llama.py) and GemmaTokenizer (models/gemma/, always
// legacy): <s>/<bos>, </s>/<eos>, <unk>, Gemma's <pad>, all unnormalized.
void init_llama_like(ClassInit& c, bool gemma) {
  HfTokenizer::Impl& m = c.m;
  m.legacy = c.flag("legacy", true) || gemma;
  m.add_prefix_space = c.flag("add_prefix_space", true);
  m.add_bos_token = c.flag("add_bos_token", true);
  m.add_eos_token = c.flag("add_eos_token", false);
  m.clean_up_tokenization_spaces = c.flag("clean_up_tokenization_spaces", false);
  c.load_sp(m.sp, c.vocab_file, c.model, !m.legacy);
  c.special("bos_token") = c.wrap(c.special_arg("bos_token", gemma ? "<bos>" : "<s>"), false, false, false, true);
  c.special("eos_token") = c.wrap(c.special_arg("eos_token", gemma ? "<eos>" : "</s>"), false, false, false, true);
  c.special("unk_token") = c.wrap(c.special_arg("unk_token", "<unk>"), false, false, false, true);
  c.special("pad_token") = c.wrap(c.special_arg("pad_token", gemma ? "<pad>" : nullptr), false, false, false, true);
}
void init_llama(ClassInit& c) { init_llama_like(c, false); }
void init_gemma(ClassInit& c) { init_llama_like(c, true); }

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
  c.special("bos_token") = c.wrap(c.special_arg("bos_token", "<s>"), false, false, false, true);
  c.special("eos_token") = c.wrap(c.special_arg("eos_token", "</s>"), false, false, false, true);
  c.special("unk_token") = c.wrap(c.special_arg("unk_token", "<unk>"), false, false, false, true);
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

// AlbertTokenizer and XLNetTokenizer (models/albert/, models/xlnet/): lower-casing, accents and
// spaces as the directory says; [CLS]/[SEP] or <s>/</s>/<sep>/<cls>, XLNet's <eop> <eod>.
void init_albert_like(ClassInit& c, bool albert) {
  HfTokenizer::Impl& m = c.m;
  m.has_do_lower_case = true;
  m.do_lower_case = c.flag("do_lower_case", albert);
  m.remove_space = c.flag("remove_space", true);
  m.keep_accents = c.flag("keep_accents", false);
  c.load_sp(m.sp, c.vocab_file, c.model, false);
  c.special("bos_token") = c.special_arg("bos_token", albert ? "[CLS]" : "<s>");
  c.special("eos_token") = c.special_arg("eos_token", albert ? "[SEP]" : "</s>");
  c.special("unk_token") = c.special_arg("unk_token", "<unk>");
  c.special("sep_token") = c.special_arg("sep_token", albert ? "[SEP]" : "<sep>");
  c.special("pad_token") = c.special_arg("pad_token", "<pad>");
  c.special("cls_token") = c.special_arg("cls_token", albert ? "[CLS]" : "<cls>");
  c.special("mask_token") = albert ? c.wrap(c.special_arg("mask_token", "[MASK]"), true, false, false, false)
                                   : c.wrap(c.special_arg("mask_token", "<mask>"), true, false, std::nullopt, true);
  if (!albert && !c.additional_given) {
    c.additional = {Special{AddedToken{"<eop>"}, true}, Special{AddedToken{"<eod>"}, true}};
  }
}
void init_albert(ClassInit& c) { init_albert_like(c, true); }
void init_xlnet(ClassInit& c) { init_albert_like(c, false); }

// The fairseq classes' special tokens (XLM-R, CamemBERT, mBART, mBART-50, NLLB): <s> </s> <unk>
// <pad> <mask>, mask_token's flags each class's own, NLLB's all unnormalized.
void fairseq_specials(ClassInit& c, bool nllb, bool bos, std::optional<bool> mask_normalized, bool mask_special) {
  c.load_sp(c.m.sp, c.vocab_file, c.model, false);
  auto plain = [&](const char* key, const char* fallback) {
    return nllb ? c.wrap(c.special_arg(key, fallback), false, false, false, true) : c.special_arg(key, fallback);
  };
  if (bos) c.special("bos_token") = plain("bos_token", "<s>");
  c.special("eos_token") = plain("eos_token", "</s>");
  c.special("sep_token") = c.special_arg("sep_token", "</s>");
  c.special("cls_token") = c.special_arg("cls_token", "<s>");
  c.special("unk_token") = plain("unk_token", "<unk>");
  c.special("pad_token") = plain("pad_token", "<pad>");
  c.special("mask_token") = c.wrap(c.special_arg("mask_token", "<mask>"), true, false, mask_normalized, mask_special);
  c.m.fairseq_offset = 1;
}

// fairseq's <s> <pad> </s> <unk> at 0..3, the model's pieces one further, then `codes`, then <mask>.
void fairseq_ids(HfTokenizer::Impl& m, const std::vector<std::string>& codes) {
  m.fairseq_tokens_to_ids = {{"<s>", 0}, {"<pad>", 1}, {"</s>", 2}, {"<unk>", 3}};
  const int n = m.sp.GetPieceSize();
  for (std::size_t i = 0; i < codes.size(); ++i) {
    m.fairseq_tokens_to_ids[codes[i]] = n + static_cast<int>(i) + m.fairseq_offset;
  }
  m.fairseq_tokens_to_ids["<mask>"] = n + static_cast<int>(codes.size()) + m.fairseq_offset;
  for (const auto& [token, id] : m.fairseq_tokens_to_ids) m.fairseq_ids_to_tokens[id] = token;
}

// XLMRobertaTokenizer (models/xlm_roberta/).
void init_xlmr(ClassInit& c) {
  fairseq_specials(c, false, true, std::nullopt, true);
  fairseq_ids(c.m, {});
}

// MBartTokenizer (models/mbart/tokenization_mbart.py): the language codes after the pieces,
// additional_special_tokens the codes first, then the directory's others.
void init_mbart(ClassInit& c) {
  fairseq_specials(c, false, true, false, false);
  fairseq_ids(c.m, c.m.lang_codes());
  std::vector<Special> languages;
  for (const std::string& code : c.m.lang_codes()) languages.push_back(Special{AddedToken{code}, true});
  for (const Special& s : c.additional) {
    bool present = false;
    for (const Special& l : languages) present = present || l.token.content == s.token.content;
    if (!present) languages.push_back(s);
  }
  c.additional = languages;
}

// MBart50Tokenizer (models/mbart50/): no bos_token; the directory's additional_special_tokens,
// then the codes missing from them.
void init_mbart50(ClassInit& c) {
  fairseq_specials(c, false, false, std::nullopt, false);
  fairseq_ids(c.m, c.m.lang_codes());
  for (const std::string& code : c.m.lang_codes()) {
    bool present = false;
    for (const Special& s : c.additional) present = present || code == s.token.content;
    if (!present) c.additional.push_back(Special{AddedToken{code}, true});
  }
}

// CamembertTokenizer (models/camembert/): the fairseq offset 4, its <s>NOTUSED tokens, whose
// ids 0..4 win over the directory's.
void init_camembert(ClassInit& c) {
  fairseq_specials(c, false, true, std::nullopt, true);
  HfTokenizer::Impl& m = c.m;
  m.fairseq_offset = 4;
  if (!c.additional_given) {
    // v4.44.2's default: additional_special_tokens=["<s>NOTUSED", "</s>NOTUSED", "<unk>NOTUSED"]
    c.additional = {Special{AddedToken{"<s>NOTUSED"}, true}, Special{AddedToken{"</s>NOTUSED"}, true},
                    Special{AddedToken{"<unk>NOTUSED"}, true}};
  }
  auto as_token = [](const std::optional<Special>& s) {
    AddedToken t = s->token;
    if (s->is_string) t = AddedToken{t.content, false, false, false, true, false};
    return t;
  };
  m.added_tokens_decoder = {{0, AddedToken{"<s>NOTUSED", false, false, false, true, false}},
                            {1, as_token(c.special("pad_token"))},
                            {2, AddedToken{"</s>NOTUSED", false, false, false, true, false}},
                            {3, as_token(c.special("unk_token"))},
                            {4, AddedToken{"<unk>NOTUSED", false, false, false, true, false}}};
  // kwargs["added_tokens_decoder"].update(self._added_tokens_decoder): the class's win
  for (const auto& [id, t] : m.added_tokens_decoder) c.added_tokens_decoder[id] = t;
}

// NllbTokenizer (models/nllb/): the language codes are the directory's additional_special_tokens.
void init_nllb(ClassInit& c) {
  fairseq_specials(c, true, true, true, true);
  if (!c.additional_given) {
    throw UsageError("pretrained " + c.dir + ": NllbTokenizer needs its language codes "
                     "(additional_special_tokens in special_tokens_map.json or tokenizer_config.json)");
  }
  HfTokenizer::Impl& m = c.m;
  m.legacy_behaviour = c.flag("legacy_behaviour", false);
  m.added_tokens_decoder = {{0, c.special("bos_token")->token}, {1, c.special("pad_token")->token},
                            {2, c.special("eos_token")->token}, {3, c.special("unk_token")->token}};
}

// M2M100Tokenizer (models/m2m_100/): vocab.json's ids, then the __code__ language tokens.
void init_m2m100(ClassInit& c) {
  HfTokenizer::Impl& m = c.m;
  if (c.config.text("language_codes").value_or("m2m100") != "m2m100") {
    throw UsageError("pretrained " + c.dir + ": M2M100Tokenizer language_codes " + *c.config.text("language_codes") +
                     " is not supported (m2m100 is)");
  }
  const auto vocab = c.files.read("vocab.json", kMaxModelVocabBytes, "a vocabulary");
  if (!vocab) {
    throw UsageError("pretrained " + c.dir + ": M2M100Tokenizer reads vocab.json, which is missing; " + listing(c.dir));
  }
  m.encoder = read_vocab(*vocab, c.files.path("vocab.json"));
  for (const auto& [k, v] : m.encoder) m.decoder[v] = k;
  c.load_sp(m.sp, c.vocab_file, c.model, false);
  const int size = static_cast<int>(m.encoder.size());
  const auto& codes = m2m100_codes();
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const std::string token = "__" + codes[i] + "__";
    m.lang_token_to_id[token] = size + static_cast<int>(i);
    m.id_to_lang_token[size + static_cast<int>(i)] = token;
    // v4.34+: `lang_code not in str(token) not in self.added_tokens_encoder` is always false, so
    // no language token is appended: they are added tokens only where the directory lists them.
  }
  m.num_madeup_words = c.config.count("num_madeup_words", 8);
  c.special("bos_token") = c.special_arg("bos_token", "<s>");
  c.special("eos_token") = c.special_arg("eos_token", "</s>");
  c.special("sep_token") = c.special_arg("sep_token", "</s>");
  c.special("pad_token") = c.special_arg("pad_token", "<pad>");
  c.special("unk_token") = c.special_arg("unk_token", "<unk>");
}

// MarianTokenizer (models/marian/): vocab.json's ids, source.spm encodes, target.spm decodes.
void init_marian(ClassInit& c) {
  HfTokenizer::Impl& m = c.m;
  if (c.flag("separate_vocabs", false)) {
    throw UsageError("pretrained " + c.dir + ": MarianTokenizer with separate_vocabs is not supported");
  }
  const auto vocab = c.files.read("vocab.json", kMaxModelVocabBytes, "a vocabulary");
  const auto target = c.files.read("target.spm", Tokenizer::kMaxModelBytes, "a SentencePiece model");
  if (!vocab || !target) {
    throw UsageError("pretrained " + c.dir + ": MarianTokenizer reads vocab.json and target.spm; " + listing(c.dir));
  }
  m.encoder = read_vocab(*vocab, c.files.path("vocab.json"));
  for (const auto& [k, v] : m.encoder) m.decoder[v] = k;
  c.load_sp(m.sp, c.vocab_file, c.model, false);
  c.load_sp(m.target, "target.spm", *target, false);
  c.special("unk_token") = c.special_arg("unk_token", "<unk>");
  c.special("eos_token") = c.special_arg("eos_token", "</s>");
  c.special("pad_token") = c.special_arg("pad_token", "<pad>");
  if (!m.encoder.count(c.special("unk_token")->token.content)) {
    throw UsageError("pretrained " + c.dir + ": vocab.json has no unk token");
  }
  if (!c.init.contains("model_max_length")) c.init["model_max_length"] = 512;
}

// DebertaV2Tokenizer (models/deberta_v2/): the model's pieces as its vocab, split_by_punct.
void init_deberta(ClassInit& c) {
  HfTokenizer::Impl& m = c.m;
  m.split_by_punct = c.flag("split_by_punct", false);
  m.has_do_lower_case = true;
  m.do_lower_case = c.flag("do_lower_case", false);
  c.load_sp(m.sp, c.vocab_file, c.model, false);
  for (int i = 0; i < m.sp.GetPieceSize(); ++i) m.vocab[m.sp.IdToPiece(i)] = i;
  c.special("bos_token") = c.special_arg("bos_token", "[CLS]");
  c.special("eos_token") = c.special_arg("eos_token", "[SEP]");
  c.special("unk_token") = c.wrap(c.special_arg("unk_token", "[UNK]"), false, false, true, true);
  c.special("sep_token") = c.special_arg("sep_token", "[SEP]");
  c.special("pad_token") = c.special_arg("pad_token", "[PAD]");
  c.special("cls_token") = c.special_arg("cls_token", "[CLS]");
  c.special("mask_token") = c.special_arg("mask_token", "[MASK]");
}

// PegasusTokenizer's additional_special_tokens: <mask_1> and <unk_2> .. <unk_{offset-1}>.
std::vector<std::string> pegasus_extended(ClassInit& c, const json& mask_sent, int offset) {
  std::vector<std::string> extended;
  if (c.additional_given) {
    for (const Special& s : c.additional) extended.push_back(s.token.content);
    if (mask_sent.is_string() &&
        std::find(extended.begin(), extended.end(), mask_sent.get<std::string>()) == extended.end()) {
      extended.insert(extended.begin(), mask_sent.get<std::string>());
    }
    for (int i = static_cast<int>(extended.size()); i < offset - 1; ++i) extended.push_back("<unk_" + std::to_string(i) + ">");
    if (std::set<std::string>(extended.begin(), extended.end()).size() != extended.size()) {
      throw UsageError("pretrained " + c.dir + ": PegasusTokenizer's additional_special_tokens repeat a token "
                       "(an incorrectly shifted list of <unk_x> tokens)");
    }
  } else {
    if (mask_sent.is_string()) extended.push_back(mask_sent.get<std::string>());
    for (int i = 2; i < offset; ++i) extended.push_back("<unk_" + std::to_string(i) + ">");
  }
  return extended;
}

// PegasusTokenizer (models/pegasus/): the model's pieces `offset` (103) further, the ids below
// it the class's added tokens, which win over the directory's.
void init_pegasus(ClassInit& c) {
  HfTokenizer::Impl& m = c.m;
  c.load_sp(m.sp, c.vocab_file, c.model, false);
  m.offset = c.config.count("offset", 103);
  const auto mask_sent = c.init.contains("mask_token_sent") ? c.init["mask_token_sent"] : json("<mask_1>");
  c.special("pad_token") = c.special_arg("pad_token", "<pad>");
  c.special("eos_token") = c.special_arg("eos_token", "</s>");
  c.special("unk_token") = c.special_arg("unk_token", "<unk>");
  c.special("mask_token") = c.special_arg("mask_token", "<mask_2>");
  const std::vector<std::string> extended = pegasus_extended(c, mask_sent, m.offset);
  c.additional.clear();
  for (const auto& e : extended) c.additional.push_back(Special{AddedToken{e}, true});
  auto special_token = [](const std::string& content) { return AddedToken{content, false, false, false, true, false}; };
  m.added_tokens_decoder[0] = special_token(c.special("pad_token")->token.content);
  m.added_tokens_decoder[1] = special_token(c.special("eos_token")->token.content);
  if (mask_sent.is_string()) {
    m.added_tokens_decoder[2] = special_token(mask_sent.get<std::string>());
    m.added_tokens_decoder[3] = special_token(c.special("mask_token")->token.content);
  }
  for (int i = 2; i < m.offset; ++i) {
    m.added_tokens_decoder[static_cast<int>(m.added_tokens_decoder.size())] = special_token("<unk_" + std::to_string(i) + ">");
  }
  for (const auto& [id, t] : m.added_tokens_decoder) c.added_tokens_decoder[id] = t;
}

// BarthezTokenizer (models/barthez/tokenization_barthez.py): the model's own ids (no fairseq
// offset), <mask> with lstrip, RoBERTa's template (<s> A </s></s> B </s>), no token types.
void init_barthez(ClassInit& c) {
  c.load_sp(c.m.sp, c.vocab_file, c.model, false);
  c.special("bos_token") = c.special_arg("bos_token", "<s>");
  c.special("eos_token") = c.special_arg("eos_token", "</s>");
  c.special("sep_token") = c.special_arg("sep_token", "</s>");
  c.special("cls_token") = c.special_arg("cls_token", "<s>");
  c.special("unk_token") = c.special_arg("unk_token", "<unk>");
  c.special("pad_token") = c.special_arg("pad_token", "<pad>");
  c.special("mask_token") = c.wrap(c.special_arg("mask_token", "<mask>"), true, false, std::nullopt, true);
}

// One entry a class: name, Kind (its ids, tokenize and convert_tokens_to_string in hf_impl.cpp),
// SentencePiece file, __init__, template, language codes, token types, padding side.
const ClassEntry kClasses[] = {
    {"T5Tokenizer", Kind::t5, "spiece.model", init_t5, t5_template},
    {"MT5Tokenizer", Kind::t5, "spiece.model", init_t5, t5_template},
    {"LlamaTokenizer", Kind::llama, "tokenizer.model", init_llama, llama_template},
    {"CodeLlamaTokenizer", Kind::codellama, "tokenizer.model", init_codellama, llama_template},
    {"GemmaTokenizer", Kind::gemma, "tokenizer.model", init_gemma, llama_template},
    {"AlbertTokenizer", Kind::albert, "spiece.model", init_albert, bert_template, nullptr, true},
    {"XLNetTokenizer", Kind::xlnet, "spiece.model", init_xlnet, xlnet_template, nullptr, true, 3, true},
    {"XLMRobertaTokenizer", Kind::xlmr, "sentencepiece.bpe.model", init_xlmr, roberta_template},
    {"CamembertTokenizer", Kind::camembert, "sentencepiece.bpe.model", init_camembert, roberta_template},
    {"MBartTokenizer", Kind::mbart, "sentencepiece.bpe.model", init_mbart, language_template, mbart_languages},
    {"MBart50Tokenizer", Kind::mbart50, "sentencepiece.bpe.model", init_mbart50, language_template, mbart_languages},
    {"NllbTokenizer", Kind::nllb, "sentencepiece.bpe.model", init_nllb, language_template, nllb_languages},
    {"M2M100Tokenizer", Kind::m2m100, "sentencepiece.bpe.model", init_m2m100, language_template, m2m100_languages},
    {"MarianTokenizer", Kind::marian, "source.spm", init_marian, eos_template},
    {"DebertaV2Tokenizer", Kind::deberta, "spm.model", init_deberta, bert_template, nullptr, true},
    {"PegasusTokenizer", Kind::pegasus, "spiece.model", init_pegasus, eos_template},
    {"BarthezTokenizer", Kind::barthez, "sentencepiece.bpe.model", init_barthez, roberta_template},
};

// AutoTokenizer's TOKENIZER_MAPPING, for directories whose tokenizer_config.json names no class.
constexpr std::pair<const char*, const char*> kModelTypes[] = {
    {"t5", "T5Tokenizer"},          {"mt5", "MT5Tokenizer"},           {"llama", "LlamaTokenizer"},
    {"mistral", "LlamaTokenizer"},  {"mixtral", "LlamaTokenizer"},     {"gemma", "GemmaTokenizer"},
    {"albert", "AlbertTokenizer"},  {"xlnet", "XLNetTokenizer"},       {"xlm-roberta", "XLMRobertaTokenizer"},
    {"camembert", "CamembertTokenizer"}, {"mbart", "MBartTokenizer"},  {"m2m_100", "M2M100Tokenizer"},
    {"marian", "MarianTokenizer"},  {"deberta-v2", "DebertaV2Tokenizer"}, {"pegasus", "PegasusTokenizer"},
};

}  // namespace

// The language codes the classes hold (mbart's FAIRSEQ_LANGUAGE_CODES, mbart50's).
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

const ClassEntry* find_class(const std::string& name) {
  for (const auto& c : kClasses) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

std::string supported_classes() {
  std::string out;
  for (const auto& c : kClasses) out += (out.empty() ? "" : ", ") + std::string(c.name);
  return out;
}

std::optional<std::string> class_of_model_type(const std::string& type) {
  std::optional<std::string> out;
  for (const auto& [t, c] : kModelTypes) {
    if (type == t) out = c;
  }
  return out;
}

std::string model_types() {
  std::string types;
  for (const auto& [t, c] : kModelTypes) types += (types.empty() ? "" : ", ") + std::string(t);
  return types;
}

}  // namespace embedpe::detail::hf
