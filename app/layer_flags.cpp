#include "layer_flags.h"

#include <limits>

#include "common.h"
#include "errors.h"
#include "embedpe/model_source.h"
#include "pe_flags.h"

namespace embedpe::cli {

void add_table_flags(CLI::App& cmd, TableSpec& table) {
  option_group(cmd, kEmbeddingGroup);
  add_number(cmd, "--d-model", table.d_model, 1, kMaxDModel, "Embedding width")
      ->default_str("512, or the --weights table's");
  add_number(cmd, "--seed", table.seed, 0, std::numeric_limits<std::uint64_t>::max(),
             "Seed of the generated table (and of the dropout mask)")
      ->default_str("0");
  add_choice<Init>(cmd, "--init", [&table](Init i) { table.init = i; },
                   {{"normal", Init::normal}, {"scaled-normal", Init::scaled_normal},
                    {"xavier-uniform", Init::xavier_uniform}, {"uniform", Init::uniform}},
                   "The generated table: N(0,1) as nn.Embedding; N(0, std 1/sqrt(d_model)); U(±sqrt(6/(vocab+d_model))) "
                   "as xavier_uniform_; U(±R) with --init-range",
                   "normal");
  add_number(cmd, "--init-range", table.init_range, 1e-30, 1e6, "The bound R of --init uniform: U(-R, R)")
      ->type_name("R");
  cmd.add_option("--weights", table.weights,
                 "Embedding table: .npy (vocab, d_model) or .safetensors[:TENSOR] (F32/F16/BF16, or int8 from "
                 "embedpe quantize)")
      ->type_name("PATH[:TENSOR]")
      ->check(non_empty_path());
  add_number(cmd, "--padding-idx", table.padding_idx, 0, std::numeric_limits<int>::max(),
             "This row of a generated table is zeros (nn.Embedding padding_idx; a --weights table's stored row is "
             "used as it is, as the model does)");
  add_number(cmd, "--factorize", table.factorize, 1, kMaxDModel,
             "Factorized table (ALBERT): generated (vocab, E) rows and a generated projection to --d-model")
      ->type_name("E");
  cmd.add_option("--projection", table.projection,
                 "Projection of a factorized --weights table to d_model: (d_model, E) as nn.Linear stores it, or "
                 "(E, d_model); its bias is the NAME.bias beside it")
      ->type_name("PATH[:TENSOR]")
      ->check(non_empty_path())
      ->default_str("found in --weights (encoder.embedding_hidden_mapping_in.weight)");
  cmd.add_flag_function("--no-projection", [&table](std::int64_t) { table.use_projection = false; },
                        "Do not apply the projection found in --weights: the (vocab, E) rows as they are");
}

void add_layer_flags(CLI::App& cmd, LayerFlags& flags) {
  LayerSpec& spec = flags.spec;
  flags.cmd = &cmd;
  option_group(cmd, kEmbeddingGroup);
  const char* help = "A Hugging Face model directory (config.json, model.safetensors): its input layer, as the "
                     "model computes it; each layer flag given overrides its part";
  if (CLI::Option* shared = cmd.get_option_no_throw("--pretrained")) {
    // encode: one --pretrained gives the tokenizer (add_tokenize_flags) and the
    // input layer; --model, given too, overrides only the tokenizer.
    shared->each([&flags](const std::string& dir) { flags.pretrained = dir; });
    if (CLI::Option* model = cmd.get_option_no_throw("--model")) {
      shared->remove_excludes(model);  // CLI11 records an exclusion on both options
      model->remove_excludes(shared);
    }
    shared->description(std::string(help) + ", and its tokenizer gives the ids (--model overrides the tokenizer)");
  } else {
    add_pretrained_option(cmd, flags.pretrained, nullptr, help);
  }
  add_table_flags(cmd, spec.table);
  add_scale_option(cmd, flags.scale);
  option_group(cmd, kPositionalGroup);
  add_number(cmd, "--max-len", spec.max_len, 1, kMaxPePosition,
             "Size of the PE table: positions 0..N-1 a sequence may use (--seq-len must fit in it)")
      ->default_str(number_text(LayerSpec::kDefaultMaxLen));
  const auto offered = [](const PeKind& k) { return k.layer_choice(); };
  add_pe_kind_option(cmd, "--pe", spec.pe, offered,
                     "Positional encoding (learned reads --pe-weights; none for RoPE models)");
  // Every kind's, not only the chosen one's: --emit rope_cos reads the rope parameters under any --pe.
  add_pe_params(cmd, spec.pe_args, PeParam::Use::layer, [](const PeKind&) { return true; });
  cmd.add_option("--pe-weights", spec.pe_weights,
                 "Learned position table (max_len, d_model), e.g. GPT-2 wpe or BERT position_embeddings")
      ->type_name("PATH[:TENSOR]")
      ->check(non_empty_path())
      ->default_str("found in --weights");
  add_number(cmd, "--position-offset", spec.position_offset, 0, kMaxPePosition - 1,
             "Token l is at position l+K (BART: 2; fairseq/RoBERTa: padding_idx+1)")
      ->type_name("K")
      ->default_str("the PE kind's: 0, fairseq convention padding_idx+1");
  add_number(cmd, "--pad-position", spec.pad_position, 0, kMaxPePosition - 1,
             "Padding tokens use this position (RoBERTa: padding_idx, with --position-offset padding_idx+1)")
      ->default_str("their own column's, or 0 with --padding-side left");
  add_choice<PositionIds>(cmd, "--position-ids", [&spec](PositionIds p) { spec.position_ids = p; },
                          {{"auto", PositionIds::automatic}, {"column", PositionIds::column},
                           {"mask", PositionIds::mask}, {"padding-idx", PositionIds::padding_idx}},
                          "Token positions: column, l whatever the padding (BART, ALBERT); mask, counted over the "
                          "attention mask; padding-idx, counted over ids other than --padding-idx, which sit at "
                          "--pad-position (RoBERTa, M2M100); auto, column, or mask with --padding-side left",
                          "auto");
  option_group(cmd, kEmbeddingGroup);
  add_choice<ProjectionOrder>(cmd, "--projection-order", [&spec](ProjectionOrder o) { spec.projection_order = o; },
                              {{"first", ProjectionOrder::first}, {"albert", ProjectionOrder::albert},
                               {"deberta", ProjectionOrder::deberta}},
                              "Where a factorized table's projection applies: first, (E[ids]·P+b)×scale+PE; albert, "
                              "after the sum and LayerNorm in E dimensions, as ALBERT; deberta, after the sum in E "
                              "dimensions and before LayerNorm, as DeBERTa-v2's embed_proj",
                              "first");
  CLI::Option* layernorm =
      cmd.add_flag("--layernorm", spec.layernorm, "LayerNorm after the sum (BERT, BART layernorm_embedding)");
  // Refused without a LayerNorm (--layernorm, or --pretrained's), never ignored: layer_spec().
  add_number(cmd, "--layernorm-eps", spec.layernorm_eps, 1e-30, 1.0, "LayerNorm epsilon (BERT: 1e-12)");
  cmd.add_option("--layernorm-weight", spec.layernorm_weight, "LayerNorm gamma")
      ->type_name("PATH[:TENSOR]")
      ->check(non_empty_path())
      ->default_str("found in --weights, else 1");
  cmd.add_option("--layernorm-bias", spec.layernorm_bias, "LayerNorm beta")
      ->type_name("PATH[:TENSOR]")
      ->check(non_empty_path())
      ->default_str("found in --weights, else 0");
  (void)layernorm;
  cmd.add_option("--token-type-weights", spec.token_type_weights, "Token type table (types, d_model)")
      ->type_name("PATH[:TENSOR]")
      ->check(non_empty_path())
      ->default_str("found in --weights");
  cmd.add_flag("--mask-output", spec.mask_output,
               "Multiply each token's output by its attention mask: padding gives zeros (DeBERTa-v2)");
}

IsGiven LayerFlags::is_given() const {
  return [this](const char* parameter) { return cmd && cmd->count(flag_for(parameter)) > 0; };
}

LayerSpec layer_spec(const LayerFlags& flags, const ModelSource& source, DType dtype) {
  LayerSpec given = flags.spec;
  given.scale = Scale::parse(flags.scale);
  // With --pretrained, each flag given replaces its own part of the directory's layer.
  const LayerSpec spec = flags.pretrained.empty() ? given : source.layer_spec(given, dtype, flags.is_given());
  // The LayerNorm flags apply with a LayerNorm: --layernorm's, or the directory's. Refused as the
  // parser refuses a flag that needs another, never ignored.
  for (const char* parameter : {"layernorm_eps", "layernorm_weight", "layernorm_bias"}) {
    if (flags.is_given()(parameter) && !spec.layernorm) throw CLI::RequiresError(flag_for(parameter), "--layernorm");
  }
  return spec;
}

}  // namespace embedpe::cli
