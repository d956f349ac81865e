// embedpe quantize: a float embedding table → per-row symmetric int8.
#include <memory>
#include <optional>
#include <string>

#include "clikit/usage.h"
#include "commands.h"
#include "common.h"
#include "embedpe/error.h"
#include "embedpe/input_layer.h"
#include "embedpe/output_file.h"
#include "embedpe/projection.h"
#include "embedpe/quantize.h"
#include "embedpe/report.h"
#include "embedpe/weights.h"

namespace embedpe::cli {
namespace {

struct QuantizeCommand {
  std::string weights;
  std::string output;
  std::string scale = "sqrt";
  ReportFormat format = ReportFormat::text;
};

void run_quantize(const QuantizeCommand& cmd) {
  check_quantize_output(cmd.output);
  refuse_outputs_over_inputs({cmd.output, "-"}, {{"--weights", cmd.weights}});
  const TensorSpec spec = parse_tensor_spec(cmd.weights);
  auto file = WeightFile::open(spec.path);
  const WeightTensor& tensor = select_tensor(*file, spec.tensor, kEmbeddingNames, "token embedding");
  if (tensor.shape.size() != 2) throw Error(cmd.weights + " is not a (vocab, d_model) table");
  const float scale = Scale::parse(cmd.scale).factor(tensor.shape[1]);

  // A factorized checkpoint's projection stays in the float file: only the table is quantized.
  const std::optional<Projection> projection =
      spec.tensor.empty() ? read_projection("", cmd.weights, tensor.shape[1]) : std::nullopt;
  const std::string projection_note =
      projection ? "the projection " + projection->weight_source + " is not in the output (only the table is " +
                       "quantized); encode with --weights " + cmd.output + " --projection " + projection->weight_source +
                       "; the errors above are the unprojected rows'"
                 : "";

  OutputFile out(cmd.output);
  const QuantizeReport r = quantize_table(*file, tensor, out, scale);

  OutputFile report("-");
  report.write(quantize_report(r, cmd.weights, tensor, cmd.output, projection ? projection->weight_source : "",
                               cmd.format));
  if (projection && cmd.format == ReportFormat::text) report.write("projection     " + projection_note + "\n");
  // The report first: if standard output fails, the run fails and leaves no file.
  report.commit();
  out.commit();
}

}  // namespace

void setup_quantize(CLI::App& app) {
  auto cmd = std::make_shared<QuantizeCommand>();
  auto* sub = app.add_subcommand("quantize", "Embedding table → per-row symmetric int8 .safetensors, with its error");
  option_group(*sub, kInputGroup);
  sub->add_option("--weights", cmd->weights, "Float table: .npy or .safetensors[:TENSOR]")
      ->type_name("PATH[:TENSOR]")
      ->required()
      ->check(non_empty_path());
  option_group(*sub, kEmbeddingGroup);
  add_scale_option(*sub, cmd->scale, "Embedding scale the output error figures assume");
  option_group(*sub, kOutputGroup);
  sub->add_option("--output,-o", cmd->output, "The int8 .safetensors file to write")->type_name("PATH")->required();
  add_choice<ReportFormat>(*sub, "--format", [cmd](ReportFormat f) { cmd->format = f; },
                           {{"text", ReportFormat::text}, {"json", ReportFormat::json}}, "Report as text or json",
                           "text");
  clikit::set_examples(*sub, {
                       "embedpe quantize --weights emb.npy -o emb-int8.safetensors"});
  sub->callback([cmd] { run_quantize(*cmd); });
}

}  // namespace embedpe::cli
