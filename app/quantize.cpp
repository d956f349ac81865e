// embedpe quantize: a float embedding table → per-row symmetric int8, or what
// a ggml (GGUF) block type's quantization does to it (--type q4_K ...).
#include <cctype>
#include <memory>
#include <optional>
#include <string>

#include "clikit/usage.h"
#include "commands.h"
#include "common.h"
#include "embedpe/error.h"
#include "embedpe/input_layer.h"
#include "embedpe/output_file.h"
#include "embedpe/model_source.h"
#include "embedpe/projection.h"
#include "embedpe/quantize.h"
#include "embedpe/report.h"
#include "embedpe/weights.h"
#include "layer_flags.h"

namespace embedpe::cli {
namespace {

struct QuantizeCommand {
  std::string weights;
  std::string pretrained;
  std::string output;
  std::string scale = "sqrt";
  std::string type = "int8";
  const CLI::App* sub = nullptr;
  ReportFormat format = ReportFormat::text;
};

bool is_int8(const std::string& type) {
  std::string lower = type;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == "int8";
}

void run_quantize(const QuantizeCommand& cmd) {
  const bool int8 = is_int8(cmd.type);
  if (int8 && cmd.output.empty()) {
    throw UsageError("quantize needs --output OUT.safetensors for int8 (the default --type)");
  }
  if (!cmd.output.empty()) check_quantize_output(cmd.output);
  // A model directory names its token embedding and the scale its model applies to it (none for
  // most, Gemma's normalizer in the weights' dtype): --weights and --scale, when given, override them.
  std::optional<PretrainedModel> model;
  if (!cmd.pretrained.empty()) model = ModelSource("", cmd.pretrained).pretrained();
  const PretrainedModel* m = model ? &*model : nullptr;
  if (!cmd.output.empty()) refuse_outputs_over_inputs({cmd.output, "-"}, {{"--weights", quantize_weights(cmd.weights, m)}});
  const std::optional<Scale> scale = cmd.sub->count("--scale") ? std::optional(Scale::parse(cmd.scale)) : std::nullopt;
  const QuantizeTable table = open_quantize_table(cmd.weights, m, scale);
  const WeightTensor& tensor = *table.tensor;
  const std::optional<Projection>& projection = table.projection;
  const std::string projection_note =
      projection ? "the projection " + projection->weight_source + " is not in the output (only the table is " +
                       "quantized); encode with --weights " + cmd.output + " --projection " + projection->weight_source +
                       "; the errors above are the unprojected rows'"
                 : "";

  std::optional<OutputFile> out;
  if (!cmd.output.empty()) out.emplace(cmd.output);
  OutputFile report("-");
  if (int8) {
    const QuantizeReport r = quantize_table(*table.file, tensor, *out, table.scale);
    report.write(quantize_report(r, table.weights, tensor, cmd.output, projection ? projection->weight_source : "",
                                 cmd.format));
  } else {
    const GgmlQuantizeReport r = quantize_table_ggml(*table.file, tensor, cmd.type, out ? &*out : nullptr, table.scale);
    report.write(ggml_quantize_report(r, table.weights, tensor, cmd.output,
                                      projection ? projection->weight_source : "", cmd.format));
  }
  if (projection && cmd.format == ReportFormat::text) report.write("projection     " + projection_note + "\n");
  // The report first: if standard output fails, the run fails and leaves no file.
  report.commit();
  if (out) out->commit();
}

}  // namespace

void setup_quantize(CLI::App& app) {
  auto cmd = std::make_shared<QuantizeCommand>();
  auto* sub = app.add_subcommand(
      "quantize", "Embedding table → per-row symmetric int8 .safetensors, or a ggml type's dequantization error");
  option_group(*sub, kInputGroup);
  sub->add_option("--weights", cmd->weights, "Float table: .npy or .safetensors[:TENSOR]")
      ->type_name("PATH[:TENSOR]")
      ->check(non_empty_path());
  cmd->sub = sub;
  option_group(*sub, kEmbeddingGroup);
  add_pretrained_option(*sub, cmd->pretrained, nullptr,
                        "A Hugging Face model directory: its token embedding table, and the scale its model applies "
                        "(none for most; Gemma's normalizer); --weights and --scale given override them");
  add_scale_option(*sub, cmd->scale, "Embedding scale the output error figures assume")
      ->default_str("sqrt; with --pretrained, the model's");
  option_group(*sub, kOutputGroup);
  sub->add_option("--type", cmd->type,
                  "int8, or a ggml (GGUF) type to measure: each row quantized and dequantized as ggml does "
                  "(" + ggml_quantize_types() + "; any case)")
      ->type_name("TYPE")
      ->default_str("int8");
  sub->add_option("--output,-o", cmd->output,
                  "The .safetensors file to write: the int8 table; with a ggml --type, the dequantized table as "
                  "float32 (optional)")
      ->type_name("PATH");
  add_choice<ReportFormat>(*sub, "--format", [cmd](ReportFormat f) { cmd->format = f; },
                           {{"text", ReportFormat::text}, {"json", ReportFormat::json}}, "Report as text or json",
                           "text");
  clikit::set_examples(*sub, {
                       "embedpe quantize --weights emb.npy -o emb-int8.safetensors",
                       "embedpe quantize --weights emb.npy --type q4_K",
                       "embedpe quantize --pretrained xlm-roberta-base -o emb-int8.safetensors"});
  sub->callback([cmd] { run_quantize(*cmd); });
}

}  // namespace embedpe::cli
