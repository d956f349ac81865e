// embedpe tokenize: text → ids and pieces, as encode would feed them to the
// embedding (BOS/EOS, truncation and, with --seq-len, padding applied).
#include <algorithm>
#include <memory>
#include <string>

#include "commands.h"
#include "common.h"
#include "embedpe/encoder.h"
#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/sink.h"
#include "embedpe/version.h"

namespace embedpe::cli {
namespace {

enum class TokenFormat { json, ids, pieces };

struct TokenizeCommand {
  TextOptions text;
  TokenizeFlags tokenize;
  TokenFormat format = TokenFormat::json;
  std::string output = "-";
};

void run_tokenize(const TokenizeCommand& cmd) {
  refuse_outputs_over_inputs({cmd.output}, text_inputs(cmd.text, cmd.tokenize.model));
  const Tokenizer tokenizer = load_tokenizer(cmd.tokenize.model);
  TextSource source = open_texts(cmd.text);
  std::vector<TextLine> lines = source.next(static_cast<std::size_t>(-1));
  if (source.reader() && lines.empty() && !cmd.text.shard_given) {
    throw UsageError("input " + source.input_names() + " has no text: nothing to tokenize");
  }
  auto [texts, origins] = source.take(lines);
  const EncodeOptions options = encode_options(cmd.tokenize);
  const bool ids = ids_input(cmd.text);
  const Batch batch = ids ? batch_from_id_lines(tokenizer, texts, origins, options) : tokenizer.encode_batch(texts, options);

  if (cmd.format == TokenFormat::json) {
    // The shape of encode's JSON with --emit input_ids,attention_mask: the
    // same sink, the tokenization part of the same config.
    SinkRun run;
    run.config = {{"embedpe_version", version()}, {"model", model_config(tokenizer)}};
    const nlohmann::ordered_json tokenization = tokenization_config(tokenizer, options, ids);
    for (const auto& [key, value] : tokenization.items()) run.config[key] = value;
    run.seq_len = cmd.tokenize.seq_len;
    const SinkFormat& json = *find_sink_format("json");
    std::unique_ptr<TensorSink> sink = json.make(cmd.output);
    sink->begin(run);
    sink->add({batch, lines, {tensor_ref("input_ids", batch.input_ids), tensor_ref("attention_mask", batch.attention_mask)}});
    sink->finish();
    return;
  }
  // One line per text: its tokens as encode feeds them to the embedding,
  // padded only when --seq-len or --pad-to-multiple-of asks for a length
  // (on the side --padding-side says).
  OutputFile out(cmd.output);
  std::string line;
  const std::string& pad_piece = tokenizer.id_to_piece(batch.pad_id);
  const bool padded = cmd.tokenize.seq_len || cmd.tokenize.pad_to_multiple_of;
  for (std::size_t b = 0; b < batch.size(); ++b) {
    line.clear();
    const std::size_t real = batch.pieces[b].size();
    const std::size_t first = padded ? 0 : batch.first_token(b);
    const std::size_t end = padded ? batch.seq_len() : first + real;
    for (std::size_t l = first; l < end; ++l) {
      if (l != first) line += ' ';
      if (cmd.format == TokenFormat::ids) {
        line += std::to_string(batch.input_ids(b, l));
      } else {
        const std::size_t token = l - std::min(l, batch.first_token(b));
        line += batch.attention_mask(b, l) != 0 ? batch.pieces[b][token] : pad_piece;
      }
    }
    line += '\n';
    out.write(line);
  }
  out.commit();
}

}  // namespace

void setup_tokenize(CLI::App& app) {
  auto cmd = std::make_shared<TokenizeCommand>();
  auto* sub = app.add_subcommand("tokenize", "Text → token ids and pieces, as encode feeds them to the embedding (BOS/EOS, truncation, padding)");
  add_text_options(*sub, cmd->text);
  add_tokenize_flags(*sub, cmd->tokenize);
  add_choice<TokenFormat>(*sub, "--format", [cmd](TokenFormat f) { cmd->format = f; },
                          {{"json", TokenFormat::json}, {"ids", TokenFormat::ids}, {"pieces", TokenFormat::pieces}},
                          "json (default: config, tokens, input_ids and attention_mask, as encode writes them), or one line of ids or pieces per text");
  add_output_option(*sub, cmd->output);
  sub->callback([cmd] { run_tokenize(*cmd); });
}

}  // namespace embedpe::cli
