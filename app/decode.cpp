// embedpe decode: ids → text with the same model, the inverse of tokenize.
//
//   embedpe decode --ids 1,262,6523,920,2             one sequence per --ids
//   embedpe tokenize --format ids a.txt | embedpe decode   lines of ids (spm_decode's input)
//   embedpe decode out.npz                            an embedpe output: input_ids, padding dropped
//
// How FILEs are read: embedpe/id_rows.h.
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "clikit/usage.h"
#include "commands.h"
#include "common.h"
#include "embedpe/encode_command.h"
#include "embedpe/error.h"
#include "embedpe/sink.h"

namespace embedpe::cli {
namespace {

void run_decode(DecodeCommand cmd) {
  if (cmd.ids.empty() && cmd.files.empty()) {
    if (::isatty(STDIN_FILENO)) {
      throw UsageError("nothing to decode: give --ids 1,262,2, a FILE, or pipe ids into standard input");
    }
    cmd.files.push_back("-");
  }
  std::vector<std::pair<std::string, std::string>> inputs;
  for (const auto& f : cmd.files) inputs.emplace_back("FILE", f);
  inputs.emplace_back("--model", cmd.model);
  refuse_outputs_over_inputs({cmd.output}, inputs);
  // Decode writes text lines: an output named .npz, .json, ... would not be what its name says.
  refuse_contradicting_extension(cmd.output, "", sink_extensions(), "decode writes lines of text");
  // An output's config names its model: found by path and SHA-256 when no --model is given.
  embedpe::run_decode(cmd, command_note("decode"));
}

}  // namespace

void setup_decode(CLI::App& app) {
  auto cmd = std::make_shared<DecodeCommand>();
  cmd->ids_label = "--ids";
  auto* sub = app.add_subcommand("decode", "Token ids → text with the same model (the inverse of tokenize)");
  option_group(*sub, kInputGroup);
  CLI::Option* files = sub->add_option("FILE", cmd->files,
                  "Lines of ids (spaces or commas; - or none: standard input), or an embedpe output "
                  "(.json, .jsonl, .npy, .npz, .safetensors: input_ids, padding dropped by attention_mask)")
      ->type_name("FILE")
      ->check(non_empty_path());
  add_ids_option(*sub, cmd->ids, "One sequence of ids, e.g. 1,262,2 (repeat for several)")
      ->excludes(files);
  option_group(*sub, kTokenizationGroup);
  add_model_option(*sub, cmd->model);
  sub->get_option("--model")->default_str("the model FILE's config names (found by path and SHA-256), else the embedded model");
  add_pretrained_option(*sub, cmd->pretrained, sub->get_option("--model"));
  add_tokenizer_kind_option(*sub, cmd->kind);
  sub->add_flag("--skip-special-tokens", cmd->skip_special_tokens,
                "With --pretrained: leave out the special tokens, as HF's decode(skip_special_tokens=True)");
  add_output_option(*sub, cmd->output);
  clikit::set_examples(*sub, {
                       "embedpe decode --ids 1,262,6523,920,2",
                       "embedpe tokenize --format ids --input corpus.txt | embedpe decode",
                       "embedpe decode out.npz                                  # input_ids, padding dropped"});
  sub->callback([cmd] { run_decode(*cmd); });
}

}  // namespace embedpe::cli
