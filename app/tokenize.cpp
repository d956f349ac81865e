// embedpe tokenize: text → ids and pieces, as encode would feed them to the
// embedding (BOS/EOS, truncation and, with --seq-len, padding applied).
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
  const Batch batch = tokenizer.encode_batch(texts, encode_options(cmd.tokenize));

  if (cmd.format == TokenFormat::json) {
    // The shape of encode's JSON with --emit input_ids,attention_mask: the
    // same sink, the tokenization part of the same config.
    const ModelInfo& info = tokenizer.info();
    SinkRun run;
    run.config = {{"embedpe_version", version()},
                  {"model", model_config(tokenizer)},
                  {"add_bos", !cmd.tokenize.no_bos && info.bos_id >= 0},  // what was done, not what was asked
                  {"add_eos", !cmd.tokenize.no_eos && info.eos_id >= 0},
                  {"pad_id", batch.pad_id},
                  {"seq_len", cmd.tokenize.seq_len ? nlohmann::ordered_json(*cmd.tokenize.seq_len)
                                                   : nlohmann::ordered_json()}};
    run.seq_len = cmd.tokenize.seq_len;
    const SinkFormat& json = *find_sink_format("json");
    std::unique_ptr<TensorSink> sink = json.make(cmd.output);
    sink->begin(run);
    sink->add({batch, lines, {tensor_ref("input_ids", batch.input_ids), tensor_ref("attention_mask", batch.attention_mask)}});
    sink->finish();
    return;
  }
  // One line per text: its tokens as encode feeds them to the embedding,
  // padded only when --seq-len asks for a fixed length.
  OutputFile out(cmd.output);
  std::string line;
  const std::string& pad_piece = tokenizer.id_to_piece(batch.pad_id);
  for (std::size_t b = 0; b < batch.size(); ++b) {
    line.clear();
    const std::size_t real = batch.pieces[b].size();
    const std::size_t shown = cmd.tokenize.seq_len ? batch.seq_len() : real;
    for (std::size_t l = 0; l < shown; ++l) {
      if (l) line += ' ';
      if (cmd.format == TokenFormat::ids) {
        line += std::to_string(batch.input_ids(b, l));
      } else {
        line += l < real ? batch.pieces[b][l] : pad_piece;
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
