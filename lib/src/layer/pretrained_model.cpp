#include "embedpe/pretrained_model.h"

#include "ggml_types.h"
#include "gguf.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "embedpe/error.h"
#include "embedpe/weights.h"
#include "half.h"
#include "embedpe/message.h"
#include "checkpoint.h"
#include "model_files.h"

namespace embedpe {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using checkpoint::Checkpoint;
using checkpoint::read_json;

json read_config(const std::string& dir) {
  std::error_code ec;
  refuse_missing_pretrained(dir);
  // A tokenizer alone (a tokenizer.json, or a directory of tokenizer files) has no input layer:
  // its ids come from tokenize, and go to encode with the model's weights.
  const std::string tokenizer_only = " holds a tokenizer but no input layer (config.json and the weights): "
                                     "tokenize reads it, and encode takes its ids with the model's weights";
  if (!fs::is_directory(dir, ec)) {
    if (dir.ends_with(".json")) throw UsageError(dir + tokenizer_only);
    throw UsageError(dir + " is not a directory: give the model's directory or a .gguf file");
  }
  const auto there = [&](const char* name) { return fs::exists(fs::symlink_status(fs::path(dir) / name, ec)); };
  if (!there("config.json") && there("tokenizer.json")) {
    throw UsageError(dir + tokenizer_only);
  }
  return read_json(dir, "config.json");
}

// config.json values, with the config class's default when absent or null.
struct Config {
  const json& j;
  std::string dir;
  std::string prefix;  // where j sits in config.json: "" or "text_config."

  // "DIR/config.json: KEY", naming the field where config.json has it.
  std::string where(const char* key) const { return dir + "/config.json: " + prefix + key; }

  bool has(const char* key) const { return j.contains(key) && !j[key].is_null(); }
  std::int64_t integer(const char* key, std::int64_t fallback) const {
    if (!has(key)) return fallback;
    const json& v = j[key];
    if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t(INT64_MAX))) {
      throw UsageError(where(key) + " is " + json_value_text(v) + ", not an integer" +
                       (v.is_number_integer() ? " below 2^63" : ""));
    }
    return v.get<std::int64_t>();
  }
  // A count or size: a positive integer (below 2^63).
  std::int64_t positive(const char* key, std::int64_t fallback) const {
    const std::int64_t v = integer(key, fallback);
    if (v <= 0 && has(key)) {
      throw UsageError(where(key) + " is " + std::to_string(v) + ", not a positive integer");
    }
    return v;
  }
  std::optional<std::int64_t> optional_integer(const char* key) const {
    if (!has(key)) return std::nullopt;
    return integer(key, 0);
  }
  double number(const char* key, double fallback) const {
    if (!has(key)) return fallback;
    if (!j[key].is_number()) throw UsageError(where(key) + " is " + json_value_text(j[key]) + ", not a number");
    return j[key].get<double>();
  }
  bool boolean(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!j[key].is_boolean()) throw UsageError(where(key) + " is " + json_value_text(j[key]) + ", not true or false");
    return j[key].get<bool>();
  }
  std::string text(const char* key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    if (!j[key].is_string()) throw UsageError(where(key) + " is " + json_value_text(j[key]) + ", not a string");
    return j[key].get<std::string>();
  }
  // hidden_size, or d_model as the BART family and T5 call it.
  std::size_t hidden_size() const {
    const std::int64_t h = has("hidden_size") ? positive("hidden_size", 0) : positive("d_model", 0);
    if (h <= 0) throw UsageError(dir + "/config.json gives no " + prefix + "hidden_size (or d_model)");
    return static_cast<std::size_t>(h);
  }
  // The width under a config class's own name for it (GPT-2's n_embd, DistilBERT's dim).
  std::size_t hidden_size(const char* key) const {
    const std::int64_t h = positive(key, 0);
    if (h <= 0) throw UsageError(dir + "/config.json gives no " + prefix + key);
    return static_cast<std::size_t>(h);
  }
};

// The shortest text that reads back as v.
std::string format_number(double v) {
  for (int digits = 1;; ++digits) {
    std::ostringstream s;
    s.precision(digits);
    s << v;
    if (digits >= 17 || std::stod(s.str()) == v) return s.str();
  }
}

// Finds a model's tensors under the task model's prefix or the base model's names.
class Tensors {
 public:
  Tensors(Checkpoint& checkpoint, PretrainedModel& model, std::string prefix)
      : ck_(checkpoint), m_(model), prefix_(std::move(prefix)) {}

  std::optional<std::string> find(std::initializer_list<const char*> names) const {
    for (const char* rel : names) {
      if (!prefix_.empty() && ck_.has(prefix_ + rel)) return prefix_ + rel;
      if (ck_.has(rel)) return std::string(rel);
    }
    return std::nullopt;
  }

  // The tensor's PATH:TENSOR, recorded as used, its shape checked against `shape`.
  std::string use(const std::string& role, std::initializer_list<const char*> names,
                  const std::vector<std::size_t>& shape, const std::string& why) {
    const std::optional<std::string> name = find(names);
    if (!name) {
      std::vector<std::string> looked;
      for (const char* rel : names) {
        if (!prefix_.empty()) looked.push_back(prefix_ + rel);
        looked.emplace_back(rel);
      }
      throw UsageError(m_.dir + ": the checkpoint holds no " + role + " (looked for " + or_list(looked) + ")");
    }
    PretrainedTensor t = ck_.tensor(role, *name);
    if (t.shape != shape) {
      throw UsageError(m_.dir + ": " + t.name + " is " + shape_text(t.shape) + " but config.json says " +
                       shape_text(shape) + " (" + why + ")");
    }
    if (t.dtype != "F32" && t.dtype != "F16" && t.dtype != "BF16" && t.dtype != "F64") {
      throw UsageError(m_.dir + ": " + t.name + " is " + t.dtype + ", not a float tensor");
    }
    std::string spec = t.file + ":" + t.name;
    m_.used.push_back(std::move(t));
    return spec;
  }

 private:
  Checkpoint& ck_;
  PretrainedModel& m_;
  std::string prefix_;
};

const PeKind& kind(std::string_view name) { return find_pe_kind(name); }

// The equivalent parameters of a spec, in the order a reader follows the layer.
std::vector<std::pair<std::string, std::string>> spec_parameters(const LayerSpec& s) {
  std::vector<std::pair<std::string, std::string>> p;
  p.emplace_back("weights", s.table.weights);
  if (s.table.padding_idx) p.emplace_back("padding_idx", std::to_string(*s.table.padding_idx));
  if (!s.table.projection.empty()) p.emplace_back("projection", s.table.projection);
  if (s.projection_order) p.emplace_back("projection_order", projection_order_name(*s.projection_order));
  p.emplace_back("scale", s.scale.to_string());
  p.emplace_back("pe", std::string(s.pe->name()));
  for (const std::string& name : s.pe_args.names()) {
    const PeValue& v = *s.pe_args.find(name);
    std::string text;
    if (const auto* str = std::get_if<std::string>(&v)) text = *str;
    if (const auto* d = std::get_if<double>(&v)) text = format_number(*d);
    if (const auto* u = std::get_if<std::uint64_t>(&v)) text = std::to_string(*u);
    p.emplace_back(name, text);
  }
  if (!s.pe_weights.empty()) p.emplace_back("pe_weights", s.pe_weights);
  if (s.max_len) p.emplace_back("max_len", std::to_string(*s.max_len));
  if (s.position_offset) p.emplace_back("position_offset", std::to_string(*s.position_offset));
  if (s.pad_position) p.emplace_back("pad_position", std::to_string(*s.pad_position));
  if (s.position_ids != PositionIds::automatic) p.emplace_back("position_ids", position_ids_name(s.position_ids));
  if (!s.token_type_weights.empty()) p.emplace_back("token_type_weights", s.token_type_weights);
  if (s.layernorm) {
    p.emplace_back("layernorm", "");
    p.emplace_back("layernorm_eps", format_number(s.layernorm_eps));
    if (!s.layernorm_weight.empty()) p.emplace_back("layernorm_weight", s.layernorm_weight);
    if (!s.layernorm_bias.empty()) p.emplace_back("layernorm_bias", s.layernorm_bias);
  }
  if (s.mask_output) p.emplace_back("mask_output", "");
  return p;
}

std::vector<std::pair<std::string, std::string>> rope_of(const Config& c) {
  std::vector<std::pair<std::string, std::string>> r;
  r.emplace_back("rope_theta", format_number(c.number("rope_theta", 10000.0)));
  if (!c.has("rope_scaling")) return r;
  const json& s = c.j["rope_scaling"];
  if (!s.is_object()) throw UsageError(c.dir + "/config.json: rope_scaling is not an object");
  // "rope_type" since transformers 4.43; "type" before.
  const char* type_key = s.contains("rope_type") ? "rope_type" : "type";
  if (s.contains(type_key) && !s[type_key].is_string()) {
    throw UsageError(c.dir + "/config.json: rope_scaling's " + type_key + " is not a string");
  }
  const std::string type = s.contains(type_key) ? s[type_key].get<std::string>() : std::string("default");
  if (type == "default") return r;
  static const std::vector<std::string> known = {"linear", "dynamic", "yarn", "llama3"};
  if (std::find(known.begin(), known.end(), type) == known.end()) {
    throw UsageError(c.dir + "/config.json: rope_scaling type " + type + " is not supported; supported: " +
                     or_list(known));
  }
  r.emplace_back("rope_scaling", type);
  // A key given with another type is refused, never skipped.
  const auto given = [&](const char* key, bool integer) {
    if (!s.contains(key) || s[key].is_null()) return false;
    const json& v = s[key];
    if (integer ? !v.is_number_integer() || (v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() < 0)
                : !v.is_number()) {
      throw UsageError(c.dir + "/config.json: rope_scaling's " + key + " is " + json_value_text(v) + ", not " +
                       (integer ? "an integer (0 or more)" : "a number"));
    }
    return true;
  };
  const auto add = [&](const char* key, const char* param) {
    if (given(key, false)) r.emplace_back(param, format_number(s[key].get<double>()));
  };
  add("factor", "rope_factor");
  if (given("original_max_position_embeddings", true)) {
    r.emplace_back("rope_original_max_positions",
                   std::to_string(s["original_max_position_embeddings"].get<std::uint64_t>()));
  } else if (type == "llama3" || type == "yarn" || type == "dynamic") {
    r.emplace_back("rope_original_max_positions", std::to_string(c.integer("max_position_embeddings", 2048)));
  }
  add("beta_fast", "rope_beta_fast");
  add("beta_slow", "rope_beta_slow");
  add("low_freq_factor", "rope_low_freq_factor");
  add("high_freq_factor", "rope_high_freq_factor");
  return r;
}

enum class Family { roberta, bert, distilbert, gpt2, modernbert, bart, m2m100, marian, albert, deberta, lookup, gemma };

struct TypeInfo {
  const char* model_type;
  Family family;
  const char* prefix;  // the task models' base_model_prefix
  bool rope = false;   // positions are one RoPE table that rope_of() describes
  const char* hidden_key = nullptr;  // the config class's name for hidden_size, where it has its own
  // Positions are RoPE inside attention, but not one table rope_of() describes: why, for pretrained_rope's refusal.
  const char* rope_note = nullptr;
};

constexpr TypeInfo kTypes[] = {
    {"xlm-roberta", Family::roberta, "roberta."}, {"camembert", Family::roberta, "roberta."},
    {"roberta", Family::roberta, "roberta."},     {"bart", Family::bart, "model."},
    {"mbart", Family::bart, "model."},            {"m2m_100", Family::m2m100, "model."},
    {"marian", Family::marian, "model."},         {"pegasus", Family::marian, "model."},
    {"albert", Family::albert, "albert."},        {"deberta-v2", Family::deberta, "deberta."},
    {"t5", Family::lookup, ""},                   {"mt5", Family::lookup, ""},
    {"llama", Family::lookup, "model.", true},    {"mistral", Family::lookup, "model.", true},
    {"gemma", Family::gemma, "model.", true},     {"xlnet", Family::lookup, "transformer."},
    {"bert", Family::bert, "bert."},              {"distilbert", Family::distilbert, "distilbert.", false, "dim"},
    {"gpt2", Family::gpt2, "transformer.", false, "n_embd"},
    {"qwen2", Family::lookup, "model.", true},    {"qwen3", Family::lookup, "model.", true},
    {"deepseek_v3", Family::lookup, "model.", false, nullptr,
     "DeepSeek-V3 rotates only qk_rope_head_dim of each head, with its own yarn (mscale, mscale_all_dim)"},
    {"gemma3_text", Family::gemma, "model.", false, nullptr,
     "Gemma 3 has two RoPE tables: rope_local_base_freq for its sliding-window layers, rope_theta and "
     "rope_scaling for its global ones"},
    {"gemma3", Family::gemma, "language_model.model.", false, nullptr,
     "Gemma 3 has two RoPE tables: rope_local_base_freq for its sliding-window layers, rope_theta and "
     "rope_scaling for its global ones"},
    {"modernbert", Family::modernbert, "model.", false, nullptr,
     "ModernBERT has two RoPE tables: local_rope_theta for its local-attention layers, global_rope_theta for "
     "its global ones"},
};

const TypeInfo& type_of(const Config& c) {
  const std::string type = c.text("model_type", "");
  for (const TypeInfo& t : kTypes) {
    if (type == t.model_type) return t;
  }
  throw UsageError(c.dir + "/config.json: " +
                   (type.empty() ? std::string("no model_type") : "model_type " + type + " is not supported") +
                   "; supported: " + or_list(pretrained_model_types()));
}

std::size_t to_size(std::int64_t v, const Config& c, const char* key) {
  if (v < 0) throw UsageError(c.where(key) + " is " + std::to_string(v) + ", not a size (0 or more)");
  return static_cast<std::size_t>(v);
}

}  // namespace

const std::vector<std::string>& pretrained_model_types() {
  static const std::vector<std::string> types = [] {
    std::vector<std::string> t;
    for (const TypeInfo& i : kTypes) t.emplace_back(i.model_type);
    return t;
  }();
  return types;
}

PretrainedRope pretrained_rope(const std::string& dir) {
  const json j = read_config(dir);
  const Config c{j, dir, ""};
  const TypeInfo& type = type_of(c);
  if (type.rope_note) {
    throw UsageError(dir + ": model_type " + type.model_type + " uses RoPE that embedpe does not tabulate: " +
                     type.rope_note);
  }
  if (!type.rope) throw UsageError(dir + ": model_type " + type.model_type + " does not use RoPE");
  PretrainedRope r{rope_of(c), 0};
  const std::int64_t heads = c.positive("num_attention_heads", 0);
  const std::int64_t head_dim = c.has("head_dim") ? c.positive("head_dim", 0)
                                : heads > 0      ? static_cast<std::int64_t>(c.hidden_size()) / heads
                                                 : 0;
  if (head_dim <= 0) throw UsageError(dir + "/config.json gives no head_dim or num_attention_heads");
  r.head_dim = static_cast<std::size_t>(head_dim);
  return r;
}

Scale pretrained_scale(const PretrainedModel& m, DType dtype) {
  if (!m.normalizer_in_dtype || dtype == DType::float32) return m.spec.scale;
  const float root = static_cast<float>(std::sqrt(static_cast<double>(m.hidden_size)));
  const float rounded = dtype == DType::bfloat16 ? bfloat16_to_float(float_to_bfloat16(root))
                        : dtype == DType::float16 ? half_to_float(float_to_half(root))
                                                  : root;
  return Scale{ScaleKind::value, static_cast<double>(rounded)};
}

namespace {

// A GGUF file's input layer, as llama.cpp builds it from general.architecture
// (src/models/<arch>.cpp, llama.cpp commit 860ee92d38ef6e46f8ddcb03f7e11702a80c5c3c):
// llama (Mistral's files are converted to it) takes the rows of token_embd;
// gemma scales them by ggml_scale(inpL, sqrtf(n_embd)), float32 — what
// Scale{sqrt} computes (float32(√d), rounded once, then one float32 product);
// qwen2 takes the rows as llama does (llama.cpp c392e509's build_qwen2:
// llm_build_inp_embd(model.tok_embd), as build_llama's).
PretrainedModel read_gguf_model(const std::string& path) {
  const auto file = WeightFile::open(path);
  const gguf::File& g = *file->gguf();
  PretrainedModel m;
  m.dir = path;
  const std::string arch = g.string_value("general.architecture").value_or("");
  if (arch.empty()) throw UsageError(path + ": general.architecture is missing: which input layer it holds is not known");
  if (arch != "llama" && arch != "gemma" && arch != "qwen2") {
    throw UsageError(path + ": architecture '" + arch + "' is not supported yet (supported: llama, gemma, qwen2)");
  }
  m.model_type = arch;
  m.architecture = arch;
  const WeightTensor* t = file->find("token_embd.weight");
  if (!t) throw UsageError(path + ": it holds no token_embd.weight");
  if (t->shape.size() != 2) {
    throw UsageError(path + ": token_embd.weight has shape " + shape_text(t->shape) + "; (n_vocab, n_embd) expected");
  }
  const ggml::TypeInfo* type = ggml::type_info(*t->ggml_type);
  if (!type->dequantizable) {
    throw UsageError(path + ": token_embd.weight is " + type->name + ", which embedpe cannot dequantize");
  }
  m.vocab_size = static_cast<std::int64_t>(t->shape[0]);
  m.hidden_size = t->shape[1];
  if (const auto n = g.integer_value(arch + ".embedding_length"); n && *n != static_cast<std::int64_t>(m.hidden_size)) {
    throw UsageError(path + ": " + arch + ".embedding_length is " + std::to_string(*n) + " but token_embd.weight is " +
                     shape_text(t->shape));
  }
  if (const auto p = g.integer_value("tokenizer.ggml.padding_token_id")) m.pad_token_id = *p;
  LayerSpec& s = m.spec;
  // The part of a split that holds it (any part opens the set).
  s.table.weights = g.part_paths()[t->part] + ":token_embd.weight";
  s.pe = &find_pe_kind("none");
  s.scale = Scale{ScaleKind::none};
  m.description = "word (positions are RoPE, inside attention)";
  if (arch == "gemma") {
    s.scale = Scale{};
    m.description = "word × sqrtf(n_embd) (llama.cpp's ggml_scale, float32)";
  }
  const std::string file_name = g.part_paths()[t->part];
  m.used.push_back({"token embedding", t->name, file_name, type->name, t->shape});
  for (const WeightTensor& other : file->tensors()) {
    if (&other == t) continue;
    m.unused.push_back({"", other.name, g.part_paths()[other.part], ggml::type_info(*other.ggml_type)->name, other.shape});
  }
  m.parameters = spec_parameters(s);
  return m;
}

}  // namespace

namespace {

// Gemma 3's multimodal directories (model_type gemma3, Gemma3ForConditionalGeneration): the input layer is the
// text model's, whose config is text_config, a Gemma3TextConfig; the keys it leaves out take that class's
// __init__ defaults (gemma3/configuration_gemma3.py: vocab_size 262208, hidden_size 2304, pad_token_id 0).
json text_model_config(json j, const std::string& dir) {
  if (!j.contains("model_type") || j["model_type"] != "gemma3") return j;
  if (!j.contains("text_config") || !j["text_config"].is_object()) {
    throw UsageError(dir + "/config.json: model_type gemma3 gives no text_config object (the text model's config)");
  }
  json t = j["text_config"];
  t["model_type"] = "gemma3";
  for (const char* key : {"architectures", "torch_dtype"}) {
    if (!t.contains(key) && j.contains(key)) t[key] = j[key];
  }
  for (const auto& [key, value] : {std::pair<const char*, std::int64_t>{"vocab_size", 262208}, {"hidden_size", 2304},
                                   {"pad_token_id", 0}}) {
    if (!t.contains(key)) t[key] = value;
  }
  return t;
}

}  // namespace

namespace {

// One model type's input layer, read into m.spec (`s`) from config.json (`c`) and the checkpoint's
// tensors (`t`) as the type's modeling_*.py builds it: one member per family.
struct Reading {
  static constexpr const char* vocab_why = "vocab_size × hidden_size";
  const Config& c;
  const TypeInfo& type;
  Tensors& t;
  PretrainedModel& m;
  LayerSpec& s;
  std::size_t h, vocab;

  // pad_token_id, else the config class's default `fallback`: a row of the table.
  std::int64_t pad(std::int64_t fallback) const {
    const std::int64_t p = m.pad_token_id.value_or(fallback);
    if (p < 0 || p >= m.vocab_size) {
      throw UsageError(c.where("pad_token_id") + " " + std::to_string(p) + " is outside " + c.prefix + "vocab_size " +
                       std::to_string(m.vocab_size));
    }
    return p;
  }

  // BertEmbeddings' learned positions (by column; with `positions`), token types and LayerNorm
  // (layer_norm_eps, default 1e-12), each `width` wide (config.json's `width_key`): BERT's, and ALBERT's
  // copy of them. `google_names`: LayerNorm's gamma and beta, as Google's original BERT checkpoints
  // (bert-base-uncased) name them, are read too (from_pretrained renames them).
  void bert_tables(bool positions, std::size_t max_pos, std::size_t types, std::size_t width,
                   const std::string& width_key, bool google_names) {
    if (positions) {
      s.pe = &kind("learned");
      s.pe_weights = t.use("position embedding", {"embeddings.position_embeddings.weight"}, {max_pos, width},
                           "max_position_embeddings × " + width_key);
      s.position_ids = PositionIds::column;
      m.max_positions = max_pos;
    }
    s.token_type_weights = t.use("token type embedding", {"embeddings.token_type_embeddings.weight"},
                                 {types, width}, "type_vocab_size × " + width_key);
    s.layernorm = true;
    s.layernorm_eps = c.number("layer_norm_eps", 1e-12);
    s.layernorm_weight =
        google_names ? t.use("LayerNorm weight", {"embeddings.LayerNorm.weight", "embeddings.LayerNorm.gamma"},
                             {width}, width_key)
                     : t.use("LayerNorm weight", {"embeddings.LayerNorm.weight"}, {width}, width_key);
    s.layernorm_bias =
        google_names ? t.use("LayerNorm bias", {"embeddings.LayerNorm.bias", "embeddings.LayerNorm.beta"}, {width},
                             width_key)
                     : t.use("LayerNorm bias", {"embeddings.LayerNorm.bias"}, {width}, width_key);
  }

  void read() {
    switch (type.family) {
      case Family::roberta: roberta(); break;
      case Family::bert: bert(); break;
      case Family::distilbert: distilbert(); break;
      case Family::gpt2: gpt2(); break;
      case Family::modernbert: modernbert(); break;
      case Family::bart: bart(); break;
      case Family::m2m100: m2m100(); break;
      case Family::marian: marian(); break;
      case Family::albert: albert(); break;
      case Family::deberta: deberta(); break;
      case Family::lookup: lookup(); break;
      case Family::gemma: lookup(); break;
    }
  }

  // modeling_roberta.py RobertaEmbeddings (XLM-R and CamemBERT copy it)
  void roberta() {
    const std::int64_t p = pad(1);
    const std::size_t max_pos = to_size(c.integer("max_position_embeddings", 512), c, "max_position_embeddings");
    const std::size_t types = to_size(c.integer("type_vocab_size", 2), c, "type_vocab_size");
    s.table.weights = t.use("token embedding", {"embeddings.word_embeddings.weight"}, {vocab, h}, vocab_why);
    s.table.padding_idx = p;
    if (c.text("position_embedding_type", "absolute") == "absolute") {
      s.pe = &kind("learned");
      s.pe_weights = t.use("position embedding", {"embeddings.position_embeddings.weight"}, {max_pos, h},
                           "max_position_embeddings × hidden_size");
      s.position_offset = static_cast<std::size_t>(p) + 1;
      s.pad_position = static_cast<std::size_t>(p);
      s.position_ids = PositionIds::padding_idx;
      m.max_positions = max_pos > static_cast<std::size_t>(p) + 1 ? max_pos - static_cast<std::size_t>(p) - 1 : 0;
    }
    s.token_type_weights = t.use("token type embedding", {"embeddings.token_type_embeddings.weight"}, {types, h},
                                 "type_vocab_size × hidden_size");
    s.layernorm = true;
    s.layernorm_eps = c.number("layer_norm_eps", 1e-12);
    s.layernorm_weight = t.use("LayerNorm weight", {"embeddings.LayerNorm.weight"}, {h}, "hidden_size");
    s.layernorm_bias = t.use("LayerNorm bias", {"embeddings.LayerNorm.bias"}, {h}, "hidden_size");
    m.description = "(word + token type) + learned position (padding_idx + 1 + cumsum(ids != pad)), LayerNorm";
  }

  // modeling_bert.py BertEmbeddings (all-MiniLM, bge, e5: BertModel saved without a prefix)
  void bert() {
    const std::size_t max_pos = to_size(c.integer("max_position_embeddings", 512), c, "max_position_embeddings");
    const std::size_t types = to_size(c.integer("type_vocab_size", 2), c, "type_vocab_size");
    s.table.weights = t.use("token embedding", {"embeddings.word_embeddings.weight"}, {vocab, h}, vocab_why);
    s.table.padding_idx = pad(0);
    bert_tables(c.text("position_embedding_type", "absolute") == "absolute", max_pos, types, h, "hidden_size", true);
    m.description = std::string("(word + token type)") + (s.pe_weights.empty() ? "" : " + learned position (by column)") +
                    ", LayerNorm";
  }

  // modeling_distilbert.py Embeddings: no token types, LayerNorm eps fixed at 1e-12
  void distilbert() {
    const std::size_t max_pos = to_size(c.integer("max_position_embeddings", 512), c, "max_position_embeddings");
    s.table.weights = t.use("token embedding", {"embeddings.word_embeddings.weight"}, {vocab, h}, "vocab_size × dim");
    s.table.padding_idx = pad(0);
    s.pe = &kind("learned");
    s.pe_weights = t.use("position embedding", {"embeddings.position_embeddings.weight"}, {max_pos, h},
                         "max_position_embeddings × dim");
    s.position_ids = PositionIds::column;
    m.max_positions = max_pos;
    s.layernorm = true;
    s.layernorm_eps = 1e-12;  // nn.LayerNorm(config.dim, eps=1e-12)
    s.layernorm_weight = t.use("LayerNorm weight", {"embeddings.LayerNorm.weight"}, {h}, "dim");
    s.layernorm_bias = t.use("LayerNorm bias", {"embeddings.LayerNorm.bias"}, {h}, "dim");
    m.description = "word + learned position (by column), LayerNorm";
  }

  // modeling_gpt2.py GPT2Model.forward: wte(input_ids) + wpe(arange(seq_len))
  void gpt2() {
    const std::size_t max_pos = to_size(c.integer("n_positions", 1024), c, "n_positions");
    s.table.weights = t.use("token embedding", {"wte.weight"}, {vocab, h}, "vocab_size × n_embd");
    s.pe = &kind("learned");
    s.pe_weights = t.use("position embedding", {"wpe.weight"}, {max_pos, h}, "n_positions × n_embd");
    s.position_ids = PositionIds::column;
    m.max_positions = max_pos;
    m.description = "word + learned position (by column)";
  }

  // modeling_modernbert.py ModernBertEmbeddings: drop(norm(tok_embeddings(ids)))
  void modernbert() {
    s.table.weights = t.use("token embedding", {"embeddings.tok_embeddings.weight"}, {vocab, h}, vocab_why);
    s.table.padding_idx = pad(50283);
    s.layernorm = true;
    s.layernorm_eps = c.number("norm_eps", 1e-5);
    s.layernorm_weight = t.use("LayerNorm weight", {"embeddings.norm.weight"}, {h}, "hidden_size");
    if (c.boolean("norm_bias", false)) {
      s.layernorm_bias = t.use("LayerNorm bias", {"embeddings.norm.bias"}, {h}, "hidden_size (norm_bias is true)");
    }
    m.description = std::string("word, LayerNorm") + (s.layernorm_bias.empty() ? " without bias" : "") +
                    " (positions are RoPE, inside attention)";
  }

  // modeling_bart.py / modeling_mbart.py encoder: embed_tokens × embed_scale + embed_positions
  void bart() {
    const std::size_t max_pos = to_size(c.integer("max_position_embeddings", 1024), c, "max_position_embeddings");
    s.table.weights = t.use("token embedding", {"shared.weight", "encoder.embed_tokens.weight"}, {vocab, h}, vocab_why);
    s.table.padding_idx = pad(1);
    if (c.boolean("scale_embedding", false)) s.scale = Scale{};
    s.pe = &kind("learned");
    s.pe_weights = t.use("position embedding", {"encoder.embed_positions.weight"}, {max_pos + 2, h},
                         "(max_position_embeddings + 2) × d_model: BART's positions start at 2");
    s.position_offset = 2;
    s.position_ids = PositionIds::column;
    m.max_positions = max_pos;
    s.layernorm = true;
    s.layernorm_eps = 1e-5;  // nn.LayerNorm(embed_dim)
    s.layernorm_weight = t.use("LayerNorm weight", {"encoder.layernorm_embedding.weight"}, {h}, "d_model");
    s.layernorm_bias = t.use("LayerNorm bias", {"encoder.layernorm_embedding.bias"}, {h}, "d_model");
    m.description = "word × embed_scale + learned position (offset 2, by column), layernorm_embedding";
  }

  // modeling_m2m_100.py M2M100SinusoidalPositionalEmbedding
  void m2m100() {
    const std::int64_t p = pad(1);
    s.table.weights = t.use("token embedding", {"shared.weight", "encoder.embed_tokens.weight"}, {vocab, h}, vocab_why);
    s.table.padding_idx = p;
    if (c.boolean("scale_embedding", true)) s.scale = Scale{};
    s.pe = &kind("sinusoidal");
    s.pe_args.set("convention", std::string("fairseq"));
    s.position_offset = static_cast<std::size_t>(p) + 1;
    s.pad_position = static_cast<std::size_t>(p);
    s.position_ids = PositionIds::padding_idx;
    // make_weights grows the table as sequences need: no bound but embedpe's.
    s.max_len = std::size_t(1) << 24;
    m.description = "word × embed_scale + fairseq sinusoid (padding_idx + 1 + cumsum(ids != pad), row padding_idx zero)";
  }

  // modeling_marian.py / modeling_pegasus.py SinusoidalPositionalEmbedding
  void marian() {
    const std::size_t max_pos = to_size(c.integer("max_position_embeddings", 1024), c, "max_position_embeddings");
    s.table.weights = t.use("token embedding", {"shared.weight", "encoder.embed_tokens.weight"}, {vocab, h}, vocab_why);
    // MarianConfig and PegasusConfig default scale_embedding to False, pad_token_id to 58100 and 0.
    s.table.padding_idx = pad(type.model_type == std::string("marian") ? 58100 : 0);
    if (c.boolean("scale_embedding", false)) s.scale = Scale{};
    if (t.find({"encoder.embed_positions.weight"})) {  // from_pretrained loads a stored table over the computed one
      s.pe = &kind("learned");
      s.pe_weights = t.use("position embedding", {"encoder.embed_positions.weight"}, {max_pos, h},
                           "max_position_embeddings × d_model");
    } else {
      s.pe = &kind("sinusoidal");
      s.pe_args.set("convention", std::string("marian"));
      s.max_len = max_pos;
    }
    s.position_ids = PositionIds::column;
    m.max_positions = max_pos;
    m.description = "word × embed_scale + static sinusoid (sin half, cos half), by column";
  }

  // modeling_albert.py AlbertEmbeddings, then AlbertTransformer.embedding_hidden_mapping_in
  void albert() {
    const std::size_t e = to_size(c.integer("embedding_size", 128), c, "embedding_size");
    const std::size_t max_pos = to_size(c.integer("max_position_embeddings", 512), c, "max_position_embeddings");
    const std::size_t types = to_size(c.integer("type_vocab_size", 2), c, "type_vocab_size");
    s.table.weights = t.use("token embedding", {"embeddings.word_embeddings.weight"}, {vocab, e},
                            "vocab_size × embedding_size");
    s.table.padding_idx = pad(0);
    s.table.projection = t.use("projection", {"encoder.embedding_hidden_mapping_in.weight"}, {h, e},
                               "hidden_size × embedding_size");
    t.use("projection bias", {"encoder.embedding_hidden_mapping_in.bias"}, {h}, "hidden_size");
    s.projection_order = ProjectionOrder::albert;
    bert_tables(true, max_pos, types, e, "embedding_size", false);
    m.description = "(word + token type) + learned position, LayerNorm, all in embedding_size; then "
                    "embedding_hidden_mapping_in to hidden_size (hidden_states[0])";
  }

  // modeling_deberta_v2.py DebertaV2Embeddings
  void deberta() {
    const std::size_t e = to_size(c.integer("embedding_size", static_cast<std::int64_t>(h)), c, "embedding_size");
    const std::size_t max_pos = to_size(c.integer("max_position_embeddings", 512), c, "max_position_embeddings");
    const std::size_t types = to_size(c.integer("type_vocab_size", 0), c, "type_vocab_size");
    s.table.weights = t.use("token embedding", {"embeddings.word_embeddings.weight"}, {vocab, e},
                            "vocab_size × embedding_size");
    s.table.padding_idx = pad(0);
    if (c.boolean("position_biased_input", true)) {
      s.pe = &kind("learned");
      s.pe_weights = t.use("position embedding", {"embeddings.position_embeddings.weight"}, {max_pos, e},
                           "max_position_embeddings × embedding_size");
      s.position_ids = PositionIds::column;
      m.max_positions = max_pos;
    }
    if (types > 0) {
      s.token_type_weights = t.use("token type embedding", {"embeddings.token_type_embeddings.weight"}, {types, e},
                                   "type_vocab_size × embedding_size");
    }
    if (e != h) {
      s.table.projection = t.use("projection", {"embeddings.embed_proj.weight"}, {h, e},
                                 "hidden_size × embedding_size");
      s.projection_order = ProjectionOrder::deberta;
    }
    s.layernorm = true;
    s.layernorm_eps = c.number("layer_norm_eps", 1e-7);
    s.layernorm_weight = t.use("LayerNorm weight", {"embeddings.LayerNorm.weight"}, {h}, "hidden_size");
    s.layernorm_bias = t.use("LayerNorm bias", {"embeddings.LayerNorm.bias"}, {h}, "hidden_size");
    s.mask_output = true;
    m.description = std::string("word") + (s.pe_weights.empty() ? "" : " + learned position") +
                    (types ? " + token type" : "") + (e != h ? ", embed_proj" : "") +
                    ", LayerNorm, × attention_mask";
  }

  // modeling_gemma.py GemmaModel: inputs_embeds × normalizer (√hidden_size) (and the types that only look up)
  void lookup() {
    if (type.prefix == std::string("model.")) {
      s.table.weights = t.use("token embedding", {"embed_tokens.weight"}, {vocab, h}, vocab_why);
    } else if (type.prefix == std::string("language_model.model.")) {  // Gemma 3: as saved before and after
      // transformers 4.52 (Gemma3Model._checkpoint_conversion_mapping)
      s.table.weights = t.use("token embedding", {"embed_tokens.weight", "model.language_model.embed_tokens.weight"},
                              {vocab, h}, "text_config's vocab_size × hidden_size");
    } else if (type.prefix == std::string("transformer.")) {
      s.table.weights = t.use("token embedding", {"word_embedding.weight"}, {vocab, h}, vocab_why);
    } else {  // T5: shared, tied to encoder.embed_tokens
      s.table.weights = t.use("token embedding", {"shared.weight", "encoder.embed_tokens.weight"}, {vocab, h}, vocab_why);
    }
    if (type.family == Family::gemma) {
      s.scale = Scale{};
      m.normalizer_in_dtype = true;
    }
    if (type.rope) m.rope = rope_of(c);
    m.description = type.family == Family::gemma
                        ? (type.rope_note ? "word × √hidden_size (Gemma3TextScaledWordEmbedding's embed_scale)"
                                          : "word × √hidden_size (Gemma's normalizer)")
                    : type.rope || type.rope_note ? "word (positions are RoPE, inside attention)"
                                                  : "word (positions act inside attention)";
  }

};

// config.json's fields every type has: the model type, its widths and its pad id.
PretrainedModel model_header(const json& j, const Config& c, const TypeInfo& type) {
  PretrainedModel m;
  m.dir = c.dir;
  m.model_type = type.model_type;
  if (c.has("architectures") && j["architectures"].is_array() && !j["architectures"].empty() &&
      j["architectures"][0].is_string()) {
    m.architecture = j["architectures"][0].get<std::string>();
  }
  m.torch_dtype = c.text("torch_dtype", "");
  m.hidden_size = type.hidden_key ? c.hidden_size(type.hidden_key) : c.hidden_size();
  m.vocab_size = c.positive("vocab_size", 0);
  if (m.vocab_size <= 0) throw UsageError(c.dir + "/config.json gives no " + c.prefix + "vocab_size");
  m.pad_token_id = c.optional_integer("pad_token_id");
  return m;
}

}  // namespace

PretrainedModel read_pretrained_model(const std::string& dir) {
  if (is_gguf_file(dir)) return read_gguf_model(dir);
  const json j = text_model_config(read_config(dir), dir);
  // Gemma 3's text model is config.json's text_config: its fields are named there.
  const Config c{j, dir, j.value("model_type", json()) == "gemma3" ? "text_config." : ""};
  const TypeInfo& type = type_of(c);
  PretrainedModel m = model_header(j, c, type);
  Checkpoint ck(dir);
  Tensors t(ck, m, type.prefix);
  Reading reading{c, type, t, m, m.spec, m.hidden_size, static_cast<std::size_t>(m.vocab_size)};
  m.spec.scale = Scale{ScaleKind::none};
  m.spec.pe = &kind("none");
  reading.read();
  m.unused = ck.others(m.used);
  m.parameters = spec_parameters(m.spec);
  return m;
}

}  // namespace embedpe
