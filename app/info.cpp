// embedpe info: what a SentencePiece model and a weight file hold.
#include <memory>

#include "clikit/respell.h"
#include "clikit/usage.h"
#include "commands.h"
#include "common.h"
#include "embedpe/report_commands.h"
#include "errors.h"

namespace embedpe::cli {

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
  sub->callback([cmd] {
    const auto command_line = [](const auto& parameters) { return clikit::command_line(parameters, flag_for); };
    run_info(*cmd, flag_for, command_line);
  });
}

}  // namespace embedpe::cli
