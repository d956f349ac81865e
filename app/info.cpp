// embedpe info: what a SentencePiece model holds.
#include <cstdio>
#include <memory>
#include <string>

#include "commands.h"
#include "common.h"
#include "embedpe/output_file.h"

namespace embedpe::cli {
namespace {

enum class InfoFormat { text, json };

struct InfoCommand {
  std::string model;
  InfoFormat format = InfoFormat::text;
};

std::string special(const Tokenizer& tok, int id) {
  if (id < 0) return "-1 (none)";
  return std::to_string(id) + "  " + tok.id_to_piece(id);
}

void run_info(const InfoCommand& cmd) {
  const Tokenizer tok = load_tokenizer(cmd.model);
  const ModelInfo& info = tok.info();
  OutputFile out("-");
  if (cmd.format == InfoFormat::json) {
    nlohmann::ordered_json doc = model_json(info);
    doc["normalizer"] = info.normalizer;
    doc["byte_fallback"] = info.byte_fallback;
    doc["size_bytes"] = info.size_bytes;
    out.write(doc.dump(2) + "\n");
  } else {
    std::string text;
    auto row = [&](const char* key, const std::string& value) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%-14s", key);
      text += buf + value + "\n";
    };
    row("model", info.source);
    row("sha256", info.sha256);
    row("size", std::to_string(info.size_bytes) + " bytes");
    row("type", info.model_type);
    row("normalizer", info.normalizer.empty() ? "(none)" : info.normalizer);
    row("byte_fallback", info.byte_fallback ? "yes" : "no");
    row("vocab_size", std::to_string(info.vocab_size));
    row("pad_id", special(tok, info.pad_id));
    row("bos_id", special(tok, info.bos_id));
    row("eos_id", special(tok, info.eos_id));
    row("unk_id", special(tok, info.unk_id));
    out.write(text);
  }
  out.commit();
}

}  // namespace

void setup_info(CLI::App& app) {
  auto cmd = std::make_shared<InfoCommand>();
  auto* sub = app.add_subcommand("info", "What a SentencePiece model holds: vocabulary, special ids, type, SHA-256");
  add_model_option(*sub, cmd->model);
  add_choice<InfoFormat>(*sub, "--format", [cmd](InfoFormat f) { cmd->format = f; },
                         {{"text", InfoFormat::text}, {"json", InfoFormat::json}}, "text (default) or json");
  sub->callback([cmd] { run_info(*cmd); });
}

}  // namespace embedpe::cli
