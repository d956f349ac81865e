#include "embedpe/layer_spec.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string_view>
#include <vector>

#include "embedpe/error.h"
#include "embedpe/weights.h"
#include "gguf.h"
#include "json_writer.h"
#include "sha256.h"
#include "weight_files_in_use.h"

namespace embedpe {
namespace {

std::size_t requested_d_model(const TableSpec& spec) { return spec.d_model.value_or(512); }
std::size_t table_length(const LayerSpec& spec) { return spec.max_len.value_or(LayerSpec::kDefaultMaxLen); }

LayerPeRequest pe_request(const LayerSpec& spec, std::size_t d_model) {
  LayerPeRequest r{.d_model = d_model, .max_len = table_length(spec), .position_offset = spec.position_offset,
                   .pad_position = spec.pad_position, .weights = spec.table.weights, .pe_weights = spec.pe_weights};
  if (spec.table.padding_idx) r.padding_idx = static_cast<std::size_t>(*spec.table.padding_idx);
  return r;
}

// gamma or beta: an explicit PATH[:TENSOR], else a usual name in the
// weights file, else the constant `fallback`. `source` says which.
std::vector<float> layernorm_vector(const std::string& spec, const std::string& weights,
                                    const std::vector<std::string_view>& names, std::size_t d, float fallback,
                                    std::string& source) {
  if (!spec.empty()) {
    const TensorSpec ts = parse_tensor_spec(spec);
    auto file = WeightFile::open(ts.path);
    const WeightTensor& t = select_tensor(*file, ts.tensor, names, "LayerNorm");
    source = spec;
    return read_vector(*file, t);
  }
  if (!weights.empty()) {
    auto file = WeightFile::open(parse_tensor_spec(weights).path);
    for (auto name : names) {
      if (const auto* t = file->find(name)) {
        source = file->path() + ":" + t->name;
        return read_vector(*file, *t);
      }
    }
  }
  source = std::to_string(static_cast<int>(fallback));
  return std::vector<float>(d, fallback);
}

}  // namespace

const char* position_ids_name(PositionIds p) {
  switch (p) {
    case PositionIds::column: return "column";
    case PositionIds::mask: return "mask";
    case PositionIds::padding_idx: return "padding-idx";
    case PositionIds::automatic: break;
  }
  return "auto";
}

FactorizedTable open_factorized_table(const TableSpec& spec, const Tokenizer* tokenizer) {
  if (spec.init_range && spec.init != Init::uniform) {
    throw UsageError("init_range is the bound R of init uniform, U(-R, R): add init uniform, or drop init_range",
                     {"init_range", "init"});
  }
  if (spec.factorize) {
    if (!spec.weights.empty()) {
      throw UsageError("factorize generates a table and its projection, and weights gives the table: drop factorize",
                       {"factorize", "weights"});
    }
    if (!spec.use_projection) {
      throw UsageError("factorize makes a projection and no_projection leaves it out: drop one",
                       {"factorize", "no_projection"});
    }
  }
  if (!spec.projection.empty()) {
    if (spec.weights.empty()) {
      throw UsageError("projection needs weights, whose table it maps to d_model", {"projection", "weights"});
    }
    if (!spec.use_projection) {
      throw UsageError("projection and no_projection contradict: drop one", {"projection", "no_projection"});
    }
  }
  if (!spec.use_projection && spec.weights.empty() && !spec.factorize) {
    throw UsageError("no_projection leaves out a factorized table's projection, and there is none: no weights are "
                     "given; drop no_projection",
                     {"no_projection", "weights"});
  }
  FactorizedTable f;
  if (spec.weights.empty()) {
    if (!tokenizer) {
      throw UsageError("a generated table has a row for each piece of the tokenizer, and there is none: give weights "
                       "(the table the ids index), or model",
                       {"weights", "model"});
    }
    const std::int64_t vocab = tokenizer->info().vocab_size;
    const std::size_t d = requested_d_model(spec);
    const std::size_t width = spec.factorize.value_or(d);
    f.table = std::make_unique<RandomNormalTable>(vocab, width, spec.seed.value_or(0),
                                                  InitScheme{spec.init.value_or(Init::normal), spec.init_range.value_or(0)});
    if (spec.factorize) f.projection = generated_projection(vocab, width, d, spec.seed.value_or(0));
  } else {
    if (spec.seed) {
      throw UsageError("seed draws the generated table, and weights gives the table: drop seed", {"seed", "weights"});
    }
    if (spec.init) {
      throw UsageError("init chooses how the generated table is drawn, and weights gives the table: drop init",
                       {"init", "weights"});
    }
    f.table = open_embedding_table(spec.weights);
    if (spec.use_projection) f.projection = read_projection(spec.projection, spec.weights, f.table->d_model());
    if (!spec.use_projection && !read_projection("", spec.weights, f.table->d_model())) {
      throw UsageError("no_projection leaves out a factorized table's projection, and weights holds none "
                       "(encoder.embedding_hidden_mapping_in.weight): drop no_projection",
                       {"no_projection", "weights"});
    }
    const std::size_t width = f.projection ? f.projection->out : f.table->d_model();
    if (spec.d_model && *spec.d_model != width) {
      const std::string head = "d_model " + std::to_string(*spec.d_model) + " conflicts with ";
      const std::string name = f.projection ? f.projection->weight_source : f.table->describe();  // the user's path
      throw UsageError(head + name + (f.projection ? ", which projects to " : ", whose rows have ") +
                           std::to_string(width) + " values; drop d_model",
                       {"d_model"}, {{head.size(), name.size()}});
    }
    const std::int64_t vocab = tokenizer ? tokenizer->info().vocab_size : 0;
    if (f.table->vocab_size() < vocab) {
      throw Error(f.table->describe() + " has " + std::to_string(f.table->vocab_size()) + " rows but the model " +
                  tokenizer->info().source + " has " + std::to_string(vocab) +
                  " pieces; give the weights that belong to this tokenizer");
    }
  }
  // nn.Embedding applies padding_idx at init (and in the gradient): a loaded
  // table's stored row is what the model uses, so only generated rows are zeroed.
  if (spec.padding_idx && spec.weights.empty()) {
    f.table = std::make_unique<PaddingIdxTable>(std::move(f.table), *spec.padding_idx);
  }
  return f;
}

std::unique_ptr<EmbeddingTable> open_table(const TableSpec& spec, const Tokenizer* tokenizer) {
  FactorizedTable f = open_factorized_table(spec, tokenizer);
  if (!f.projection) return std::move(f.table);
  return std::make_unique<ProjectedTable>(std::move(f.table), std::move(*f.projection));
}

std::size_t position_offset(const LayerSpec& spec) { return spec.pe->position_offset(spec.pe_args, pe_request(spec, 0)); }

void check_seq_len(const LayerSpec& spec, std::optional<std::size_t> seq_len,
                   std::optional<std::size_t> pad_to_multiple_of) {
  if (!spec.pe->sized_by_max_len()) return;
  // Without seq_len, pad_to_multiple_of M pads every sequence to at least M.
  const std::size_t shortest = seq_len.value_or(pad_to_multiple_of.value_or(0));
  const std::size_t offset = position_offset(spec);
  const std::size_t max_len = table_length(spec);
  const std::size_t room = max_len > offset ? max_len - offset : 0;
  if (shortest <= room) return;
  const std::string table = "the PE table (max_len " + std::to_string(max_len) +
                            (offset ? ", less position_offset " + std::to_string(offset) : "") + ")";
  if (seq_len) {
    throw UsageError("seq_len " + std::to_string(*seq_len) + " is longer than " + table +
                         "; raise max_len or lower seq_len",
                     {"seq_len", "max_len", "position_offset"});
  }
  throw UsageError("pad_to_multiple_of " + std::to_string(shortest) +
                       " pads every sequence to at least that many positions, more than " + table +
                       "; lower pad_to_multiple_of or raise max_len",
                   {"pad_to_multiple_of", "max_len", "position_offset"});
}

std::vector<std::pair<std::string, std::string>> layer_inputs(const LayerSpec& spec) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& [name, given] : {std::pair{"weights", &spec.table.weights}, {"projection", &spec.table.projection},
                                    {"pe_weights", &spec.pe_weights}, {"token_type_weights", &spec.token_type_weights},
                                    {"layernorm_weight", &spec.layernorm_weight},
                                    {"layernorm_bias", &spec.layernorm_bias}}) {
    if (!given->empty()) files.emplace_back(name, *given);
  }
  for (auto& file : spec.pe->inputs(spec.pe_args)) files.push_back(std::move(file));
  return files;
}

TableSpec override_table_spec(TableSpec spec, const TableSpec& given, const IsGiven& set) {
  if (set("d_model")) spec.d_model = given.d_model;
  if (set("seed")) spec.seed = given.seed;
  if (set("init")) spec.init = given.init;
  if (set("init_range")) spec.init_range = given.init_range;
  if (set("weights")) spec.weights = given.weights;
  if (set("padding_idx")) spec.padding_idx = given.padding_idx;
  if (set("factorize")) spec.factorize = given.factorize;
  if (set("projection")) spec.projection = given.projection;
  if (set("no_projection")) spec.use_projection = false;
  return spec;
}

LayerSpec override_layer_spec(LayerSpec spec, const LayerSpec& given, const IsGiven& set) {
  spec.table = override_table_spec(std::move(spec.table), given.table, set);
  if (set("projection_order")) spec.projection_order = given.projection_order;
  if (set("scale")) spec.scale = given.scale;
  if (set("pe") && given.pe != spec.pe) {  // another kind: the model's parameters were its kind's
    spec.pe = given.pe;
    spec.pe_args = PeArgs{};
    spec.pe_weights.clear();
    spec.max_len.reset();
  }
  for (const std::string& name : given.pe_args.names()) spec.pe_args.set(name, *given.pe_args.find(name));
  if (set("max_len")) spec.max_len = given.max_len;
  if (set("pe_weights")) spec.pe_weights = given.pe_weights;
  if (set("position_offset")) spec.position_offset = given.position_offset;
  if (set("pad_position")) spec.pad_position = given.pad_position;
  if (set("position_ids")) spec.position_ids = given.position_ids;
  if (set("token_type_weights")) spec.token_type_weights = given.token_type_weights;
  if (set("layernorm")) spec.layernorm = true;
  if (set("layernorm_eps")) spec.layernorm_eps = given.layernorm_eps;
  if (set("layernorm_weight")) spec.layernorm_weight = given.layernorm_weight;
  if (set("layernorm_bias")) spec.layernorm_bias = given.layernorm_bias;
  if (set("mask_output")) spec.mask_output = true;
  return spec;
}

std::vector<UnusedLayerTensor> unused_layer_tensors(const LayerSpec& spec) {
  std::vector<UnusedLayerTensor> unused;
  if (spec.table.weights.empty()) return unused;
  const auto file = WeightFile::open(parse_tensor_spec(spec.table.weights).path);
  if (file->format() != WeightFormat::safetensors) return unused;
  // A learned table read from this file (found, or named) uses it.
  const TensorSpec pe = parse_tensor_spec(spec.pe_weights);
  for (auto name : kPositionNames) {
    const bool read = spec.pe->reads_pe_weights() &&
                      (spec.pe_weights.empty() || (pe.path == file->path() && pe.tensor == name));
    if (!read && file->find(name)) unused.push_back({std::string(name), "pe learned"});
  }
  for (const auto* names : {&kLayerNormWeightNames, &kLayerNormBiasNames}) {
    for (auto name : *names) {
      if (!spec.layernorm && file->find(name)) unused.push_back({std::string(name), "layernorm"});
    }
  }
  return unused;
}

namespace {

// Hashes `n` bytes of a mapping from `p`, 4 MiB at a time, giving each piece's
// pages back once hashed: the pages of a table hashed whole do not stay in
// the process's memory (the layer itself touches only the rows it uses).
void hash_mapped(Sha256& h, const char* p, std::size_t n) {
  constexpr std::size_t kPiece = std::size_t(4) << 20;
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  for (std::size_t done = 0; done < n;) {
    const std::size_t piece = std::min(kPiece, n - done);
    h.update(std::string_view(p + done, piece));
    const auto begin = reinterpret_cast<std::uintptr_t>(p + done) / page * page;
    const auto end = reinterpret_cast<std::uintptr_t>(p + done + piece) / page * page;
    if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
    done += piece;
  }
}

}  // namespace

nlohmann::ordered_json weight_file_hashes(const LayerSpec& spec) {
  std::vector<std::string> paths;
  std::map<std::string, std::set<std::string>> named;  // path → the tensors the spec names in it ("": found by name)
  for (const auto& [name, given] : layer_inputs(spec)) {
    TensorSpec t = parse_tensor_spec(given);
    if (std::find(paths.begin(), paths.end(), t.path) == paths.end()) paths.push_back(t.path);
    named[t.path].insert(t.tensor);
  }
  if (paths.empty()) return nullptr;
  nlohmann::ordered_json hashes = nlohmann::ordered_json::object();
  // The mapping the layer reads (weight_file_in_use), not the file found at
  // the path again, which may have been replaced since.
  for (const std::string& path : paths) {
    std::shared_ptr<const WeightFile> file = weight_file_in_use(path);
    if (!file) file = WeightFile::open(path);
    // A split GGUF: every part is read (metadata, tensor infos, tensors), so
    // each is recorded under its own name, whichever part the spec names.
    if (const gguf::File* g = file->gguf(); g && g->part_paths().size() > 1) {
      for (std::size_t k = 0; k < g->part_paths().size(); ++k) {
        const std::string_view part = g->part_bytes(k);
        Sha256 h;
        hash_mapped(h, part.data(), part.size());
        hashes[g->part_paths()[k]] = h.hex();
      }
      continue;
    }
    const std::string_view bytes = file->bytes();
    const std::set<std::string>& tensors = named[path];
    // A .safetensors file whose tensors are all named: its header and those tensors, what the
    // run reads (a checkpoint's input layer is a small part of it); else the whole file.
    std::vector<const WeightTensor*> read;
    if (file->format() == WeightFormat::safetensors && !tensors.count("") && bytes.size() >= 8) {
      for (const std::string& name : tensors) read.push_back(file->find(name));
    }
    Sha256 h;
    if (!read.empty() && std::find(read.begin(), read.end(), nullptr) == read.end()) {
      std::uint64_t header = 0;
      for (int i = 7; i >= 0; --i) header = header << 8 | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
      h.update(bytes.substr(0, static_cast<std::size_t>(std::min<std::uint64_t>(bytes.size(), 8 + header))));
      for (const WeightTensor* t : read) hash_mapped(h, file->data(*t), t->size_bytes);
    } else {
      hash_mapped(h, bytes.data(), bytes.size());
    }
    hashes[path] = h.hex();
  }
  return hashes;
}

Layer build_layer(const LayerSpec& spec, const Tokenizer& tokenizer) { return build_layer(spec, &tokenizer); }

namespace {

// What needs no file read: a kind that acts inside attention says where it goes (layer() throws), and
// max_len sizes only a table embedpe computes.
void check_layer_spec(const LayerSpec& spec) {
  if (spec.pe->acts_in_attention()) spec.pe->layer(spec.pe_args, {});
  if (spec.max_len && !spec.pe->sized_by_max_len()) {
    throw UsageError("max_len sizes a PE table that embedpe computes (sinusoidal, block); pe " +
                         std::string(spec.pe->name()) +
                         (spec.pe->reads_pe_weights() ? " reads its table, whose rows are the positions there are"
                                                      : " has none") +
                         ": drop max_len",
                     {"max_len", "pe"});
  }
}

// A table `what` read from a file must have rows of d values, the width everything is summed in. One of
// a factorized checkpoint's width E is ALBERT's, which sums before projecting.
struct WidthCheck {
  std::size_t d;
  bool project_last;
  std::size_t factor_width;  // E; 0: not factorized

  void operator()(const std::string& what, std::size_t width, const std::string& parameter,
                  const std::string& otherwise) const {
    if (width == d) return;
    const bool albert = !project_last && factor_width != 0 && width == factor_width;
    std::vector<std::string> parameters;
    if (albert) parameters = {"projection_order", parameter};
    throw Error(what + " is " + std::to_string(width) + " wide but " +
                    (project_last ? "ALBERT's order sums in the factorized table's width E = "
                                  : "the embedding table has d_model ") +
                    std::to_string(d) +
                    (albert ? ": the factorized table's width, as ALBERT sums before projecting; add projection_order "
                              "albert, or " + otherwise
                            : ""),
                std::move(parameters), {{0, what.size()}});
  }
};

// position_ids as the layer's options: from the mask, by column, or counted over ids other than padding_idx.
void set_position_ids(const LayerSpec& spec, InputLayerOptions& options) {
  switch (spec.position_ids) {
    case PositionIds::automatic: options.positions_from_mask = spec.positions_from_mask; break;
    case PositionIds::column: break;
    case PositionIds::mask: options.positions_from_mask = true; break;
    case PositionIds::padding_idx:
      if (!spec.table.padding_idx) {
        throw UsageError("position_ids padding-idx counts the tokens whose id is not padding_idx: give padding_idx",
                         {"position_ids", "padding_idx"});
      }
      options.positions_skip_id = *spec.table.padding_idx;
      break;
  }
}

// The LayerNorm, if any, into options: `d_model` wide after DeBERTa's projection, else `d`. Its gamma's and
// beta's sources go to `sources`.
void set_layernorm(const LayerSpec& spec, std::size_t d_model, std::size_t d, bool norm_after_projection,
                   const WidthCheck& check_width, InputLayerOptions& options, std::pair<std::string, std::string>& sources) {
  auto& [gamma_source, beta_source] = sources;
  if (spec.layernorm) {
    LayerNorm ln;
    // DeBERTa's order normalizes the projected sum: d_model values.
    const std::size_t ln_width = norm_after_projection ? d_model : d;
    ln.gamma = layernorm_vector(spec.layernorm_weight, spec.table.weights, kLayerNormWeightNames, ln_width, 1.0f,
                                gamma_source);
    ln.beta = layernorm_vector(spec.layernorm_bias, spec.table.weights, kLayerNormBiasNames, ln_width, 0.0f,
                               beta_source);
    ln.eps = spec.layernorm_eps;
    if (norm_after_projection) {
      for (const auto& [source, size] : {std::pair{&gamma_source, ln.gamma.size()}, {&beta_source, ln.beta.size()}}) {
        if (size != ln_width) {
          throw Error(*source + " is " + std::to_string(size) + " wide but DeBERTa's order normalizes the projected "
                      "sum, of d_model " + std::to_string(ln_width));
        }
      }
    } else {
      check_width(gamma_source, ln.gamma.size(), "layernorm_weight", "give layernorm_weight of d_model values");
      check_width(beta_source, ln.beta.size(), "layernorm_bias", "give layernorm_bias of d_model values");
    }
    options.layer_norm_after_projection = norm_after_projection;
    options.layer_norm = std::move(ln);
  } else if (!spec.layernorm_weight.empty() || !spec.layernorm_bias.empty()) {
    throw UsageError("layernorm_weight and layernorm_bias need layernorm",
                     {"layernorm_weight", "layernorm_bias", "layernorm"});
  }
}

// The token type table: token_type_weights, else the one the weights hold under a usual name (unless
// no_token_type); null for none. `source` says which.
std::unique_ptr<EmbeddingTable> token_type_table(const LayerSpec& spec, const WidthCheck& check_width,
                                                 std::string& source) {
  std::vector<std::string> names;  // the usual names the weights hold
  std::shared_ptr<const WeightFile> weight_file;
  if (!spec.token_type_weights.empty()) {
    if (!spec.token_types) {
      throw UsageError("token_type_weights and no_token_type contradict: drop one",
                       {"token_type_weights", "no_token_type"});
    }
  } else if (!spec.table.weights.empty()) {
    weight_file = WeightFile::open(parse_tensor_spec(spec.table.weights).path);
    for (auto name : kTokenTypeNames) {
      if (weight_file->find(name)) names.emplace_back(name);
    }
  }
  if (!spec.token_type_weights.empty()) {
    source = spec.token_type_weights;
    std::unique_ptr<EmbeddingTable> table = open_embedding_table(source);
    check_width(source, table->d_model(), "token_type_weights", "give token_type_weights of d_model values");
    return table;
  }
  if (!spec.token_types && names.empty()) {
    throw UsageError("no_token_type leaves out a token type table, and there is none: " +
                         (spec.table.weights.empty() ? std::string("no weights are given")
                                                     : "weights has no embeddings.token_type_embeddings.weight") +
                         "; drop no_token_type",
                     {"no_token_type", "weights"});
  }
  if (!spec.token_types || names.empty()) return nullptr;
  if (names.size() > 1) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    throw Error(weight_file->path() + " has several token type tables (" + list +
                    "), and which one belongs to the embedding is not known; keep one, or add no_token_type",
                {"no_token_type"});
  }
  source = weight_file->path() + ":" + names.front();
  std::unique_ptr<EmbeddingTable> table = open_embedding_table(source);
  check_width(source, table->d_model(), "no_token_type", "no_token_type");
  return table;
}

}  // namespace

Layer build_layer(const LayerSpec& spec, const Tokenizer* tokenizer) {
  check_layer_spec(spec);
  Layer built;
  // With dropout (training), seed draws the mask too, and may come with weights.
  TableSpec table = spec.table;
  if (table.seed && !table.weights.empty()) {
    if (!spec.dropout) {
      throw UsageError("seed draws the generated table (and with train the dropout mask), and weights gives the "
                       "table: drop seed",
                       {"seed", "train", "weights"});
    }
    table.seed.reset();
  }
  FactorizedTable factorized = open_factorized_table(table, tokenizer);
  const ProjectionOrder order = spec.projection_order.value_or(ProjectionOrder::first);
  // ALBERT's and DeBERTa's orders sum in the table's width E and project the sum.
  const bool project_last = order != ProjectionOrder::first;
  const bool norm_after_projection = order == ProjectionOrder::deberta;
  if (spec.projection_order && !spec.table.use_projection) {
    throw UsageError("projection_order and no_projection contradict: drop one", {"projection_order", "no_projection"});
  }
  if (spec.projection_order && !factorized.projection) {
    throw UsageError(std::string("projection_order ") + projection_order_name(order) +
                         " places a factorized table's projection, and there is none: give weights holding one, "
                         "or factorize",
                     {"projection_order", "weights", "factorize"});
  }
  nlohmann::ordered_json projection_config;
  const std::size_t factor_width = factorized.projection ? factorized.projection->in : 0;  // E; 0: not factorized
  if (const auto& p = factorized.projection) {
    projection_config = {{"order", projection_order_name(order)},
                         {"width", p->in},
                         {"weight", p->weight_source},
                         {"bias", p->bias.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(p->bias_source)}};
  }
  if (project_last) {
    built.projection_ = std::make_unique<Projection>(std::move(*factorized.projection));
    built.table_ = std::move(factorized.table);
  } else if (factorized.projection) {
    built.table_ = std::make_unique<ProjectedTable>(std::move(factorized.table), std::move(*factorized.projection));
  } else {
    built.table_ = std::move(factorized.table);
  }
  // The width everything is summed in: the output's, or E when projected last.
  const std::size_t d = built.table_->d_model();
  built.d_model_ = project_last ? built.projection_->out : d;
  LayerPe pe = spec.pe->layer(spec.pe_args, pe_request(spec, d));
  built.pe_ = std::move(pe.table);
  if (!spec.pe->reads_pe_weights() && !spec.pe_weights.empty()) {
    throw UsageError("pe_weights needs pe learned", {"pe_weights", "pe"});
  }
  const WidthCheck check_width{d, project_last, factor_width};
  if (built.pe_ && spec.pe->reads_pe_weights()) {
    check_width(pe.config.value("table", std::string("the position table")), built.pe_->d_model(), "pe",
                "choose another pe");
  }

  InputLayerOptions options;
  options.scale = spec.scale;
  options.position_offset = pe.position_offset;
  options.pad_position = pe.pad_position;
  set_position_ids(spec, options);
  options.mask_output = spec.mask_output;
  std::pair<std::string, std::string> ln_sources;  // gamma's, beta's
  set_layernorm(spec, built.d_model_, d, norm_after_projection, check_width, options, ln_sources);
  std::string token_type_source;
  built.token_types_ = token_type_table(spec, check_width, token_type_source);
  options.token_types = built.token_types_.get();
  options.dropout = spec.dropout;
  options.want_token_embeddings = spec.want_token_embeddings;
  options.projection = built.projection_.get();
  built.position_offset_ = options.position_offset;

  using json = nlohmann::ordered_json;
  built.config_ = {
      {"d_model", built.d_model_},
      {"embedding", built.table_->describe()},
      {"seed", spec.table.weights.empty() ? json(spec.table.seed.value_or(0)) : json()},
      {"padding_idx", spec.table.padding_idx ? json(*spec.table.padding_idx) : json()},
      {"scale", options.scale.to_string()},
      {"scale_factor", float_json(options.scale.factor(built.d_model_))},
      {"positional_encoding", pe.config},
      {"layernorm", spec.layernorm
                        ? json{{"weight", ln_sources.first}, {"bias", ln_sources.second}, {"eps", spec.layernorm_eps}}
                        : json()},
  };
  // Only runs that add token types say so: the configs of others (and their --resume) are unchanged.
  if (options.token_types) built.config_["token_type_embeddings"] = token_type_source;
  if (spec.position_ids != PositionIds::automatic) built.config_["position_ids"] = position_ids_name(spec.position_ids);
  if (spec.mask_output) built.config_["mask_output"] = true;
  if (!projection_config.is_null()) built.config_["projection"] = std::move(projection_config);
  built.layer_ = std::make_unique<InputLayer>(*built.table_, built.pe_.get(), std::move(options));
  return built;
}

}  // namespace embedpe
