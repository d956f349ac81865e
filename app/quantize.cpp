// embedpe quantize: a float embedding table → per-row symmetric int8, or what
// a ggml (GGUF) block type's quantization does to it (--type q4_K ...).
#include <memory>
#include <string>

#include "clikit/usage.h"
#include "commands.h"
#include "common.h"
#include "embedpe/quantize.h"
#include "embedpe/report_commands.h"
#include "errors.h"

namespace embedpe::cli {
namespace {

struct QuantizeCli {
  QuantizeCommand run;
  std::string scale = "sqrt";  // --scale; the model's unless given
};

}  // namespace

void setup_quantize(CLI::App& app) {
  auto cmd = std::make_shared<QuantizeCli>();
  QuantizeCommand& run = cmd->run;
  auto* sub = app.add_subcommand(
      "quantize", "Embedding table → per-row symmetric int8 .safetensors, or a ggml type's dequantization error");
  option_group(*sub, kInputGroup);
  sub->add_option("--weights", run.weights, "Float table: .npy or .safetensors[:TENSOR]")
      ->type_name("PATH[:TENSOR]")
      ->check(non_empty_path());
  option_group(*sub, kEmbeddingGroup);
  add_pretrained_option(*sub, run.pretrained, nullptr,
                        "A Hugging Face model directory: its token embedding table, and the scale its model applies "
                        "(none for most; Gemma's normalizer); --weights and --scale given override them");
  add_scale_option(*sub, cmd->scale, "Embedding scale the output error figures assume")
      ->default_str("sqrt; with --pretrained, the model's");
  option_group(*sub, kOutputGroup);
  sub->add_option("--type", run.type,
                  "int8, or a ggml (GGUF) type to measure: each row quantized and dequantized as ggml does "
                  "(" + ggml_quantize_types() + "; any case)")
      ->type_name("TYPE")
      ->default_str("int8");
  sub->add_option("--output,-o", run.output,
                  "The .safetensors file to write: the int8 table; with a ggml --type, the dequantized table as "
                  "float32 (optional)")
      ->type_name("PATH");
  add_choice<ReportFormat>(*sub, "--format", [cmd](ReportFormat f) { cmd->run.format = f; },
                           {{"text", ReportFormat::text}, {"json", ReportFormat::json}}, "Report as text or json",
                           "text");
  clikit::set_examples(*sub, {
                       "embedpe quantize --weights emb.npy -o emb-int8.safetensors",
                       "embedpe quantize --weights emb.npy --type q4_K",
                       "embedpe quantize --pretrained xlm-roberta-base -o emb-int8.safetensors"});
  sub->callback([cmd, sub] {
    if (sub->count("--scale")) cmd->run.scale = cmd->scale;
    run_quantize(cmd->run, flag_for);
  });
}

}  // namespace embedpe::cli
