#include "layer_setup.h"

#include "common.h"
#include "embedpe/error.h"
#include "embedpe/weights.h"
#include "pe_flags.h"

namespace embedpe::cli {

void add_table_flags(CLI::App& cmd, TableFlags& flags) {
  add_number(cmd, "--d-model", flags.d_model, 1, kMaxDModel, "Embedding width (default 512, or the --weights table's)");
  flags.seed_option = add_number(cmd, "--seed", flags.seed, 0, std::numeric_limits<std::uint64_t>::max(),
                                 "Seed of the default N(0,1) table (and of the dropout mask)");
  cmd.add_option("--weights", flags.weights,
                 "Embedding table: .npy (vocab, d_model) or .safetensors[:TENSOR] (F32/F16/BF16, or int8 from "
                 "embedpe quantize)")
      ->type_name("PATH[:TENSOR]")
      ->check(non_empty_path());
  add_number(cmd, "--padding-idx", flags.padding_idx, 0, std::numeric_limits<int>::max(),
             "This row of the table reads as zeros (nn.Embedding padding_idx)");
}

void add_layer_flags(CLI::App& cmd, LayerFlags& flags) {
  add_table_flags(cmd, flags.table);
  add_number(cmd, "--max-len", flags.max_len, 1, kMaxPosition, "Positions in the sinusoidal PE table");
  add_scale_option(cmd, flags.scale);
  const auto offered = [](const PeKind& k) { return k.layer_choice(); };
  add_pe_kind_option(cmd, "--pe", flags.pe, offered,
                     "Positional encoding (default sinusoidal; learned reads --pe-weights; none for RoPE models)");
  // Every kind's, not only the chosen one's: --emit rope_cos reads the rope parameters under any --pe.
  add_pe_params(cmd, flags.pe_args, PeParam::Use::layer, [](const PeKind&) { return true; });
  cmd.add_option("--pe-weights", flags.pe_weights,
                 "Learned position table (max_len, d_model), e.g. GPT-2 wpe or BERT position_embeddings "
                 "(default: found in --weights)")
      ->type_name("PATH[:TENSOR]")
      ->check(non_empty_path());
  add_number(cmd, "--position-offset", flags.position_offset, 0, kMaxPosition - 1,
             "Token l is at position l+K (default 0; BART: 2; fairseq/RoBERTa: padding_idx+1)")
      ->type_name("K");
  add_number(cmd, "--pad-position", flags.pad_position, 0, kMaxPosition - 1,
             "Padding tokens use this position (RoBERTa: padding_idx, with --position-offset padding_idx+1)");
  cmd.add_flag("--layernorm", flags.layernorm, "LayerNorm after the sum (BERT, BART layernorm_embedding)");
  add_number(cmd, "--layernorm-eps", flags.layernorm_eps, 1e-30, 1.0, "LayerNorm epsilon (BERT: 1e-12)");
  cmd.add_option("--layernorm-weight", flags.layernorm_weight, "LayerNorm gamma (default: found in --weights, else 1)")
      ->type_name("PATH[:TENSOR]")
      ->check(non_empty_path());
  cmd.add_option("--layernorm-bias", flags.layernorm_bias, "LayerNorm beta (default: found in --weights, else 0)")
      ->type_name("PATH[:TENSOR]")
      ->check(non_empty_path());
}

std::vector<std::pair<std::string, std::string>> layer_inputs(const LayerFlags& flags) {
  return {{"--weights", flags.table.weights},
          {"--pe-weights", flags.pe_weights},
          {"--layernorm-weight", flags.layernorm_weight},
          {"--layernorm-bias", flags.layernorm_bias}};
}

std::size_t requested_d_model(const TableFlags& flags) { return flags.d_model.value_or(512); }

std::unique_ptr<EmbeddingTable> open_table(const TableFlags& flags, const Tokenizer* tokenizer) {
  std::unique_ptr<EmbeddingTable> table;
  if (flags.weights.empty()) {
    table = std::make_unique<RandomNormalTable>(tokenizer->info().vocab_size, requested_d_model(flags), flags.seed);
  } else {
    table = open_embedding_table(flags.weights);
    if (flags.d_model && *flags.d_model != table->d_model()) {
      throw UsageError("--d-model " + std::to_string(*flags.d_model) + " conflicts with " + table->describe() +
                       ", whose rows have " + std::to_string(table->d_model()) + " values; drop --d-model");
    }
    const std::int64_t vocab = tokenizer ? tokenizer->info().vocab_size : 0;
    if (table->vocab_size() < vocab) {
      throw Error(table->describe() + " has " + std::to_string(table->vocab_size()) + " rows but the model " +
                  tokenizer->info().source + " has " + std::to_string(vocab) +
                  " pieces; give the weights that belong to this tokenizer");
    }
  }
  if (flags.padding_idx) table = std::make_unique<PaddingIdxTable>(std::move(table), *flags.padding_idx);
  return table;
}

namespace {

// gamma or beta: an explicit PATH[:TENSOR], else a usual name in the
// --weights file, else the constant `fallback`. `source` says which.
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

LayerPeRequest pe_request(const LayerFlags& flags, std::size_t d_model) {
  LayerPeRequest r{.d_model = d_model, .max_len = flags.max_len, .position_offset = flags.position_offset,
                   .pad_position = flags.pad_position, .weights = flags.table.weights, .pe_weights = flags.pe_weights};
  if (flags.table.padding_idx) r.padding_idx = static_cast<std::size_t>(*flags.table.padding_idx);
  return r;
}

std::size_t position_offset(const LayerFlags& flags) {
  return flags.pe->position_offset(flags.pe_args, pe_request(flags, 0));
}

LayerParts build_layer(const LayerFlags& flags, const Tokenizer& tokenizer) {
  // A kind that acts inside attention says where it goes (layer() throws) before any file is read.
  if (flags.pe->acts_in_attention()) flags.pe->layer(flags.pe_args, {});
  LayerParts parts;
  parts.table = open_table(flags.table, &tokenizer);
  const std::size_t d = parts.table->d_model();
  LayerPe pe = flags.pe->layer(flags.pe_args, pe_request(flags, d));
  parts.pe = std::move(pe.table);
  if (!flags.pe->reads_pe_weights() && !flags.pe_weights.empty()) throw UsageError("--pe-weights needs --pe learned");

  parts.options.scale = Scale::parse(flags.scale);
  parts.options.position_offset = pe.position_offset;
  parts.options.pad_position = pe.pad_position;
  std::string gamma_source, beta_source;
  if (flags.layernorm) {
    LayerNorm ln;
    ln.gamma = layernorm_vector(flags.layernorm_weight, flags.table.weights, kLayerNormWeightNames, d, 1.0f, gamma_source);
    ln.beta = layernorm_vector(flags.layernorm_bias, flags.table.weights, kLayerNormBiasNames, d, 0.0f, beta_source);
    ln.eps = flags.layernorm_eps;
    parts.options.layer_norm = std::move(ln);
  } else if (!flags.layernorm_weight.empty() || !flags.layernorm_bias.empty()) {
    throw UsageError("--layernorm-weight and --layernorm-bias need --layernorm");
  }

  parts.config = {
      {"d_model", d},
      {"embedding", parts.table->describe()},
      {"seed", flags.table.weights.empty() ? nlohmann::ordered_json(flags.table.seed) : nlohmann::ordered_json()},
      {"padding_idx", flags.table.padding_idx ? nlohmann::ordered_json(*flags.table.padding_idx) : nlohmann::ordered_json()},
      {"scale", parts.options.scale.to_string()},
      {"scale_factor", float_json(parts.options.scale.factor(d))},
      {"positional_encoding", pe.config},
      {"layernorm", flags.layernorm ? nlohmann::ordered_json{{"weight", gamma_source}, {"bias", beta_source},
                                                             {"eps", flags.layernorm_eps}}
                                    : nlohmann::ordered_json()},
  };
  return parts;
}

}  // namespace embedpe::cli
