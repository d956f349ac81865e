// embedpe tokenize: text → ids and pieces, as encode would feed them to the
// embedding (BOS/EOS and truncation applied, no padding).
#include <memory>
#include <string>

#include "commands.h"
#include "common.h"
#include "embedpe/encoder.h"
#include "embedpe/error.h"
#include "embedpe/output_file.h"
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
  const Texts texts = load_texts(cmd.text);
  const Batch batch = tokenizer.encode_batch(texts.lines, encode_options(cmd.tokenize));

  OutputFile out(cmd.output);
  if (cmd.format == TokenFormat::json) {
    nlohmann::ordered_json sequences = nlohmann::ordered_json::array();
    for (std::size_t b = 0; b < batch.size(); ++b) {
      std::vector<std::int64_t> ids(batch.pieces[b].size());
      for (std::size_t l = 0; l < ids.size(); ++l) ids[l] = batch.input_ids(b, l);
      sequences.push_back({{"ids", ids}, {"pieces", batch.pieces[b]},
                           {"truncated", batch.untruncated_lengths[b] > ids.size()}});
    }
    nlohmann::ordered_json doc = {
        {"config",
         {{"embedpe_version", version()},
          {"model", model_config(tokenizer)},
          {"add_bos", !cmd.tokenize.no_bos},
          {"add_eos", !cmd.tokenize.no_eos},
          {"seq_len", cmd.tokenize.seq_len ? nlohmann::ordered_json(*cmd.tokenize.seq_len) : nlohmann::ordered_json()}}},
        {"sequences", sequences}};
    out.write(doc.dump(2) + "\n");
  } else {
    std::string line;
    for (std::size_t b = 0; b < batch.size(); ++b) {
      line.clear();
      for (std::size_t l = 0; l < batch.pieces[b].size(); ++l) {
        if (l) line += ' ';
        line += cmd.format == TokenFormat::ids ? std::to_string(batch.input_ids(b, l)) : batch.pieces[b][l];
      }
      line += '\n';
      out.write(line);
    }
  }
  out.commit();
}

}  // namespace

void setup_tokenize(CLI::App& app) {
  auto cmd = std::make_shared<TokenizeCommand>();
  auto* sub = app.add_subcommand("tokenize", "Text → token ids and pieces (BOS/EOS and truncation as encode applies them)");
  add_text_options(*sub, cmd->text);
  add_tokenize_flags(*sub, cmd->tokenize);
  add_choice<TokenFormat>(*sub, "--format", [cmd](TokenFormat f) { cmd->format = f; },
                          {{"json", TokenFormat::json}, {"ids", TokenFormat::ids}, {"pieces", TokenFormat::pieces}},
                          "json (ids + pieces; default), or one line of ids or pieces per text");
  add_output_option(*sub, cmd->output);
  sub->callback([cmd] { run_tokenize(*cmd); });
}

}  // namespace embedpe::cli
