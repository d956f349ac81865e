// Pieces the subcommands share: where the texts and the model come from, and
// the tokenization flags of encode and tokenize.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "embedpe/text_input.h"
#include "embedpe/tokenizer.h"

namespace embedpe::cli {

struct TextOptions {
  std::vector<std::string> texts;   // --text, repeatable
  std::vector<std::string> inputs;  // --input PATH or -, repeatable
  InputOptions reading;             // --input-format, --field, --skip-empty, --shard, --max-line-bytes
  bool shard_given = false;         // --shard, even 1/1: an empty part is then an empty output, not an error
};

struct Texts {
  std::vector<std::string> lines;
  std::vector<std::string> origins;  // (lines,): "--text 2", "corpus.txt:17"
};

struct TokenizeFlags {
  std::string model;  // empty: the embedded default
  bool no_bos = false;
  bool no_eos = false;
  std::optional<int> pad_id;
  std::optional<std::size_t> seq_len;
};

// An option that takes one of a few words and stores the matching enum
// value through `set`; anything else is a usage error listing the words.
template <class E>
CLI::Option* add_choice(CLI::App& cmd, const std::string& flag, std::function<void(E)> set,
                        std::vector<std::pair<std::string, E>> choices, const std::string& help) {
  std::string names;
  for (const auto& c : choices) names += (names.empty() ? "" : "|") + c.first;
  auto* opt = cmd.add_option_function<std::string>(
      flag,
      [set, choices, names, flag](const std::string& value) {
        for (const auto& [word, e] : choices) {
          if (word == value) return set(e);
        }
        throw CLI::ValidationError(flag, "must be one of " + names + ", not '" + value + "'");
      },
      help);
  return opt->type_name(names);
}

void add_text_options(CLI::App& cmd, TextOptions& options);
// --output/-o PATH, default "-" (standard output).
void add_output_option(CLI::App& cmd, std::string& output);
// Throws UsageError if binary `what` (".npy") would go to a terminal.
void refuse_binary_to_terminal(const std::string& output, const std::string& what);
void add_tokenize_flags(CLI::App& cmd, TokenizeFlags& flags);
// --model only (info).
void add_model_option(CLI::App& cmd, std::string& model);

// The texts to process, all at once, checked for UTF-8; throws UsageError
// if none are given.
Texts load_texts(const TextOptions& options);
// A streaming reader over --input (throws UsageError if there is none).
std::unique_ptr<LineReader> open_reader(const TextOptions& options);
Tokenizer load_tokenizer(const std::string& model);
EncodeOptions encode_options(const TokenizeFlags& flags);

// A float32 as a JSON number in its shortest round-trip form (0.1, not
// 0.10000000149011612).
nlohmann::ordered_json float_json(float value);

// The model's identity for a JSON config.
nlohmann::ordered_json model_json(const Tokenizer& tokenizer);

}  // namespace embedpe::cli
