#include "common.h"

#include <charconv>
#include <cstdlib>

#include "embedpe/error.h"
#include "embedpe/text_input.h"

namespace embedpe::cli {

void add_text_options(CLI::App& cmd, TextOptions& options) {
  auto* text = cmd.add_option("--text", options.texts, "Text to process (repeat for a batch)")
                   ->type_name("TEXT")
                   ->allow_extra_args(false);
  auto* input = cmd.add_option("--input", options.input, "File with one text per line (UTF-8; - reads stdin)")
                    ->type_name("PATH|-");
  text->excludes(input);
}

void add_model_option(CLI::App& cmd, std::string& model) {
  cmd.add_option("--model", model, "SentencePiece .model file (default: the embedded model)")
      ->type_name("PATH")
      ->check(CLI::ExistingFile);
}

void add_tokenize_flags(CLI::App& cmd, TokenizeFlags& flags) {
  add_model_option(cmd, flags.model);
  cmd.add_flag("--no-bos", flags.no_bos, "Do not add the model's BOS id");
  cmd.add_flag("--no-eos", flags.no_eos, "Do not add the model's EOS id");
  cmd.add_option("--pad-id", flags.pad_id, "Padding id (default: the model's pad id, else 0)")
      ->type_name("N")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--seq-len", flags.seq_len,
                 "Pad and truncate every sequence to N tokens, keeping BOS/EOS (default: pad to the longest)")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
}

Texts load_texts(const TextOptions& options) {
  Texts t;
  if (!options.input.empty()) {
    t.lines = read_lines(options.input);
    const std::string name = options.input == "-" ? "<stdin>" : options.input;
    for (std::size_t i = 0; i < t.lines.size(); ++i) t.origins.push_back(name + ":" + std::to_string(i + 1));
    if (t.lines.empty()) throw UsageError("input " + name + " is empty: nothing to encode");
    return t;
  }
  if (options.texts.empty()) {
    throw UsageError("nothing to process: give --text TEXT (repeatable) or --input PATH (- for stdin)");
  }
  for (std::size_t i = 0; i < options.texts.size(); ++i) {
    std::string origin = "--text " + std::to_string(i + 1);
    check_text(options.texts[i], origin);
    t.lines.push_back(options.texts[i]);
    t.origins.push_back(std::move(origin));
  }
  return t;
}

Tokenizer load_tokenizer(const std::string& model) {
  return model.empty() ? Tokenizer::default_model() : Tokenizer::from_file(model);
}

EncodeOptions encode_options(const TokenizeFlags& flags) {
  EncodeOptions o;
  o.add_bos = !flags.no_bos;
  o.add_eos = !flags.no_eos;
  o.pad_id = flags.pad_id;
  o.seq_len = flags.seq_len;
  return o;
}

nlohmann::ordered_json float_json(float value) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, value);
  return std::strtod(std::string(buf, r.ptr).c_str(), nullptr);
}

nlohmann::ordered_json model_json(const ModelInfo& info) {
  return {{"source", info.source},         {"sha256", info.sha256},   {"type", info.model_type},
          {"vocab_size", info.vocab_size}, {"pad_id", info.pad_id},   {"bos_id", info.bos_id},
          {"eos_id", info.eos_id},         {"unk_id", info.unk_id}};
}

}  // namespace embedpe::cli
