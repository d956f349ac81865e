// embedpe tokenize: text → ids and pieces, as encode would feed them to the
// embedding (BOS/EOS, truncation and, with --seq-len, padding applied).
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "clikit/usage.h"
#include "commands.h"
#include "common.h"
#include "embedpe/encode_command.h"
#include "embedpe/error.h"
#include "embedpe/model_source.h"
#include "embedpe/sink.h"
#include "errors.h"

namespace embedpe::cli {
namespace {

struct TokenizeCli {
  TokenizeCommand run;  // the texts and the output (its request: tokenize's)
  TokenizeFlags tokenize;
  std::optional<TokenizeFormat> format;  // --format
};

// --format, else the output's extension (.npz, ...), else json. A binary
// extension with a text format (-o x.npz --format ids) is refused: the
// file would not be what its name says.
TokenizeFormat infer_format(const TokenizeCli& cmd) {
  const std::string& output = cmd.run.output;
  std::vector<std::pair<std::string, TokenizeFormat>> extensions;
  for (const TokenizeFormat& f : tokenize_formats()) {
    for (const std::string& e : f.sink ? f.sink->extensions : std::vector<std::string>{}) extensions.emplace_back(e, f);
  }
  if (!cmd.format) {
    // A person at a terminal gets a summary, as from encode; a pipe or a file gets the data.
    if (output == "-" && ::isatty(STDOUT_FILENO)) return TokenizeFormat{"summary", std::nullopt, find_sink_format("summary")};
    return format_from_extension(output, extensions).value_or(TokenizeFormat{"json", std::nullopt, find_sink_format("json")});
  }
  refuse_contradicting_extension(output, cmd.format->name, sink_extensions());
  return *cmd.format;
}

void run_tokenize(const TokenizeCli& cmd) {
  refuse_outputs_over_inputs({cmd.run.output}, as_flags(text_inputs(cmd.run.text, cmd.tokenize.model)));
  TokenizeCommand run = cmd.run;
  run.format = infer_format(cmd);
  run.request = cmd.tokenize.request;
  // --model overrides the directory's tokenizer.
  embedpe::run_tokenize(run, ModelSource(cmd.tokenize.model, cmd.tokenize.pretrained, cmd.tokenize.kind));
}

}  // namespace

void setup_tokenize(CLI::App& app) {
  auto cmd = std::make_shared<TokenizeCli>();
  auto* sub = app.add_subcommand("tokenize", "Text → token ids and pieces, as encode feeds them to the embedding (BOS/EOS, truncation, padding)");
  add_text_options(*sub, cmd->run.text);
  add_tokenize_flags(*sub, cmd->tokenize);
  add_output_option(*sub, cmd->run.output);
  std::vector<std::pair<std::string, TokenizeFormat>> formats;
  for (const TokenizeFormat& f : tokenize_formats()) formats.emplace_back(f.name, f);
  add_choice<TokenizeFormat>(*sub, "--format", [cmd](TokenizeFormat f) { cmd->format = f; }, formats,
                          "json: config, tokens, input_ids and attention_mask, as encode writes them (npy: "
                          "input_ids; jsonl, npz, safetensors: both); ids, pieces: one line per text; summary: a short view "
                          "for a person",
                          "from --output's extension; else a summary on a terminal, json otherwise");
  clikit::set_examples(*sub, {
                       "embedpe tokenize --text \"Hello world\"                   # a summary on a terminal, JSON when piped",
                       "embedpe tokenize --input corpus.txt --format ids --model llama2-tokenizer.model"});
  sub->callback([cmd] { run_tokenize(*cmd); });
}

}  // namespace embedpe::cli
