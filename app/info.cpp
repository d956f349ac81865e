// embedpe info: what a SentencePiece model and a weight file hold.
#include <memory>
#include <string>

#include "clikit/usage.h"
#include "commands.h"
#include "common.h"
#include "embedpe/output_file.h"
#include "embedpe/report.h"
#include "embedpe/weights.h"

namespace embedpe::cli {
namespace {

struct InfoCommand {
  std::string model;
  std::string weights;
  ReportFormat format = ReportFormat::text;
};

void run_info(const InfoCommand& cmd) {
  refuse_outputs_over_inputs({"-"}, {{"--model", cmd.model}, {"--weights", cmd.weights}});
  const bool model = !cmd.model.empty() || cmd.weights.empty();
  std::string text;
  if (cmd.format == ReportFormat::json && !cmd.weights.empty()) {
    // Both in one document; just the model's fields when only the model was asked about.
    nlohmann::ordered_json doc = nlohmann::ordered_json::object();
    if (model) doc["model"] = model_report_json(load_tokenizer(cmd.model));
    doc["weights"] = weights_report_json(*WeightFile::open(cmd.weights), cmd.weights);
    text = doc.dump(2) + "\n";
  } else {
    if (model) text = model_report(load_tokenizer(cmd.model), cmd.format);
    if (!cmd.weights.empty()) {
      text += (text.empty() ? "" : "\n") + weights_report(*WeightFile::open(cmd.weights), cmd.weights, cmd.format);
    }
  }
  OutputFile out("-");
  out.write(text);
  out.commit();
}

}  // namespace

void setup_info(CLI::App& app) {
  auto cmd = std::make_shared<InfoCommand>();
  auto* sub = app.add_subcommand("info", "What a SentencePiece model (vocabulary, special ids, type, SHA-256) or a "
                                         "weight file (tensors, shapes, dtypes) holds");
  option_group(*sub, kInputGroup);
  add_model_option(*sub, cmd->model);
  sub->add_option("--weights", cmd->weights, "A .npy or .safetensors file: list its tensors")->type_name("PATH")
      ->check(non_empty_path());
  option_group(*sub, kOutputGroup);
  add_choice<ReportFormat>(*sub, "--format", [cmd](ReportFormat f) { cmd->format = f; },
                           {{"text", ReportFormat::text}, {"json", ReportFormat::json}}, "text or json", "text");
  clikit::set_examples(*sub, {
                       "embedpe info",
                       "embedpe info --model llama2-tokenizer.model",
                       "embedpe info --weights model.safetensors"});
  sub->callback([cmd] { run_info(*cmd); });
}

}  // namespace embedpe::cli
