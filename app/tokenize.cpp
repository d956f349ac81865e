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
#include "embedpe/encoder.h"
#include "embedpe/error.h"
#include "embedpe/model_source.h"
#include "embedpe/threads.h"
#include "embedpe/sink.h"
#include "errors.h"

namespace embedpe::cli {
namespace {

struct TokenizeCommand {
  TextSpec text;
  TokenizeFlags tokenize;
  std::optional<TokenizeFormat> format;
  std::string output = "-";
};

// --format, else the output's extension (.npz, ...), else json. A binary
// extension with a text format (-o x.npz --format ids) is refused: the
// file would not be what its name says.
TokenizeFormat infer_format(const TokenizeCommand& cmd) {
  std::vector<std::pair<std::string, TokenizeFormat>> extensions;
  for (const TokenizeFormat& f : tokenize_formats()) {
    for (const std::string& e : f.sink ? f.sink->extensions : std::vector<std::string>{}) extensions.emplace_back(e, f);
  }
  if (!cmd.format) {
    // A person at a terminal gets a summary, as from encode; a pipe or a file gets the data.
    if (cmd.output == "-" && ::isatty(STDOUT_FILENO)) return TokenizeFormat{"summary", std::nullopt, find_sink_format("summary")};
    return format_from_extension(cmd.output, extensions).value_or(TokenizeFormat{"json", std::nullopt, find_sink_format("json")});
  }
  refuse_contradicting_extension(cmd.output, cmd.format->name, sink_extensions());
  return *cmd.format;
}

void run_tokenize(const TokenizeCommand& cmd) {
  refuse_outputs_over_inputs({cmd.output}, as_flags(text_inputs(cmd.text, cmd.tokenize.model)));
  const TokenizeFormat format = infer_format(cmd);
  if (format.sink && format.sink->traits.binary) refuse_binary_to_terminal(cmd.output, "." + std::string(format.sink->name));
  // --model overrides the directory's tokenizer.
  const Tokenizer tokenizer = ModelSource(cmd.tokenize.model, cmd.tokenize.pretrained, cmd.tokenize.kind).tokenizer();
  check_given_ids(tokenizer, cmd.text.ids, "--ids");
  const EncodeRequest& r = cmd.tokenize.request;
  const EncodeOptions tokenize = pretrained_encode_options(tokenizer, r.tokenize, r.padding_side, r.truncation_side);
  const TokenizeRunOptions options{.tokenize = tokenize, .ids_input = cmd.text.ids_input(),
                                   .threads = default_threads(), .allow_empty = cmd.text.shard_given,
                                   .text_pairs = cmd.text.pairs,
                                   .max_line_bytes = cmd.text.reading.max_line_bytes};
  TextSource source = open_text_source(cmd.text);
  tokenize_to(tokenizer, source, format, cmd.output, options);
}

}  // namespace

void setup_tokenize(CLI::App& app) {
  auto cmd = std::make_shared<TokenizeCommand>();
  auto* sub = app.add_subcommand("tokenize", "Text → token ids and pieces, as encode feeds them to the embedding (BOS/EOS, truncation, padding)");
  add_text_options(*sub, cmd->text);
  add_tokenize_flags(*sub, cmd->tokenize);
  add_output_option(*sub, cmd->output);
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
