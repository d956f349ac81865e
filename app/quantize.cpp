// embedpe quantize: a float embedding table → per-row symmetric int8.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "clikit/usage.h"
#include "commands.h"
#include "common.h"
#include "json_writer.h"
#include "embedpe/error.h"
#include "embedpe/input_layer.h"
#include "embedpe/output_file.h"
#include "embedpe/projection.h"
#include "embedpe/quantize.h"
#include "embedpe/weights.h"

namespace embedpe::cli {
namespace {

enum class ReportFormat { text, json };

struct QuantizeCommand {
  std::string weights;
  std::string output;
  std::string scale = "sqrt";
  ReportFormat format = ReportFormat::text;
};

void run_quantize(const QuantizeCommand& cmd) {
  std::string ext = cmd.output.substr(cmd.output.size() > 12 ? cmd.output.size() - 12 : 0);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext != ".safetensors" || cmd.output.back() == '/' || cmd.output.ends_with("/.safetensors")) {
    throw UsageError("--output " + cmd.output + ": quantize writes .safetensors; name the file OUT.safetensors");
  }
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

  const double saved = 100.0 * (1.0 - static_cast<double>(r.output_bytes) / static_cast<double>(r.input_bytes));
  OutputFile report("-");
  if (cmd.format == ReportFormat::json) {
    nlohmann::ordered_json doc = {
        {"input", cmd.weights}, {"tensor", tensor.name}, {"output", cmd.output},
        {"input_bytes", r.input_bytes}, {"output_bytes", r.output_bytes}, {"saved_percent", saved},
        {"max_abs_error", r.max_abs_error}, {"mean_abs_error", r.mean_abs_error},
        {"output_scale", float_json(r.output_scale)},
        {"max_abs_output_error", r.max_abs_output_error}, {"mean_abs_output_error", r.mean_abs_output_error}};
    if (projection) doc["projection_not_in_output"] = projection->weight_source;
    report.write(doc.dump(2) + "\n");
  } else {
    char text[1024];
    std::snprintf(text, sizeof text,
                  "wrote %s: int8 per-row symmetric, %zu x %zu\n"
                  "size           %zu -> %zu bytes (%.1f%% saved)\n"
                  "rows           max abs error %.3g, mean abs error %.3g\n"
                  "output         max abs error %.3g, mean abs error %.3g (embedding x %g, PE unchanged)\n",
                  cmd.output.c_str(), tensor.shape[0], tensor.shape[1], r.input_bytes, r.output_bytes, saved,
                  r.max_abs_error, r.mean_abs_error, r.max_abs_output_error, r.mean_abs_output_error,
                  double(r.output_scale));
    report.write(std::string(text));
    if (projection) report.write("projection     " + projection_note + "\n");
  }
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
