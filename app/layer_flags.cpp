#include "layer_flags.h"

#include "common.h"
#include "errors.h"
#include "embedpe/model_source.h"
#include "pe_flags.h"

namespace embedpe::cli {
namespace {

ParamHooks table_hooks(CLI::App& cmd, TableSpec& table) {
  // A switch that counts its uses (CLI11's flag function), as it always has.
  return {{"no_projection", [&cmd, &table](const std::string& help) {
             return cmd.add_flag_function("--no-projection", [&table](std::int64_t) { table.use_projection = false; },
                                          help);
           }}};
}

}  // namespace

void add_table_flags(CLI::App& cmd, TableSpec& table) { add_params(cmd, table_params(table), table_hooks(cmd, table)); }

void add_layer_flags(CLI::App& cmd, LayerFlags& flags) {
  LayerSpec& spec = flags.spec;
  flags.cmd = &cmd;
  ParamHooks hooks = table_hooks(cmd, spec.table);
  hooks["pretrained"] = [&cmd, &flags](const std::string&) {
    const char* help = "A Hugging Face model directory (config.json, model.safetensors): its input layer, as the "
                       "model computes it; each layer flag given overrides its part";
    CLI::Option* shared = cmd.get_option_no_throw("--pretrained");
    if (!shared) return add_pretrained_option(cmd, flags.pretrained, nullptr, help);
    // encode: one --pretrained gives the tokenizer (add_tokenize_flags) and the
    // input layer; --model, given too, overrides only the tokenizer.
    shared->each([&flags](const std::string& dir) { flags.pretrained = dir; });
    if (CLI::Option* model = cmd.get_option_no_throw("--model")) {
      shared->remove_excludes(model);  // CLI11 records an exclusion on both options
      model->remove_excludes(shared);
    }
    shared->description(std::string(help) + ", and its tokenizer gives the ids (--model overrides the tokenizer)");
    return static_cast<CLI::Option*>(nullptr);
  };
  hooks["scale"] = [&cmd, &flags](const std::string&) { return add_scale_option(cmd, flags.scale); };
  const auto offered = [](const PeKind& k) { return k.layer_choice(); };
  hooks["pe"] = [&cmd, &spec, offered](const std::string&) {
    return add_pe_kind_option(cmd, "--pe", spec.pe, offered,
                              "Positional encoding (learned reads --pe-weights; none for RoPE models)");
  };
  hooks["pe_params"] = [&cmd, &spec](const std::string&) {
    // Every kind's, not only the chosen one's: --emit rope_cos reads the rope parameters under any --pe.
    add_pe_params(cmd, spec.pe_args, PeParam::Use::layer, [](const PeKind&) { return true; });
    return static_cast<CLI::Option*>(nullptr);
  };
  add_params(cmd, layer_params(spec), hooks);
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
