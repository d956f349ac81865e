// embedpe info: what a SentencePiece model and a weight file hold.
#include <cstdio>
#include <utility>
#include <memory>
#include <optional>
#include <string>

#include "clikit/respell.h"
#include "clikit/usage.h"
#include "commands.h"
#include "common.h"
#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/model_source.h"
#include "embedpe/report.h"
#include "embedpe/weights.h"
#include "errors.h"
#include "layer_flags.h"

namespace embedpe::cli {
namespace {

struct InfoCommand {
  std::string model;
  std::string weights;
  std::string pretrained;
  ReportFormat format = ReportFormat::text;
};

void run_info(const InfoCommand& cmd) {
  if (!cmd.pretrained.empty()) {
    if (!cmd.model.empty() || !cmd.weights.empty()) {
      throw UsageError("--pretrained describes a model directory; --model and --weights describe single files: "
                       "give one or the other");
    }
    const std::string text = pretrained_report(ModelSource("", cmd.pretrained), cmd.format, [](const auto& parameters) {
      return clikit::command_line(parameters, flag_for);
    });
    OutputFile out("-");
    out.write(text);
    out.commit();
    return;
  }
  refuse_outputs_over_inputs({"-"}, {{"--model", cmd.model}, {"--weights", cmd.weights}});
  // The default model when nothing is named.
  std::optional<Tokenizer> model;
  if (!cmd.model.empty() || cmd.weights.empty()) model = ModelSource(cmd.model).tokenizer();
  const std::shared_ptr<const WeightFile> weights = cmd.weights.empty() ? nullptr : WeightFile::open(cmd.weights);
  const std::string text = info_report(model ? &*model : nullptr, weights.get(), cmd.weights, cmd.format);
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
  add_pretrained_option(*sub, cmd->pretrained, nullptr,
                        "A Hugging Face model directory: its architecture, the tensors its input layer uses, the "
                        "equivalent flags, and the tensors it does not use; or a GGUF file: its metadata, tokenizer, "
                        "tensors (type, shape, bytes) and token_embd's bits per weight");
  option_group(*sub, kOutputGroup);
  add_choice<ReportFormat>(*sub, "--format", [cmd](ReportFormat f) { cmd->format = f; },
                           {{"text", ReportFormat::text}, {"json", ReportFormat::json}}, "text or json", "text");
  clikit::set_examples(*sub, {
                       "embedpe info",
                       "embedpe info --model llama2-tokenizer.model",
                       "embedpe info --weights model.safetensors",
                       "embedpe info --pretrained xlm-roberta-base",
                       "embedpe info --pretrained llama-2-7b.Q4_K_M.gguf --format json"});
  sub->callback([cmd] { run_info(*cmd); });
}

}  // namespace embedpe::cli
