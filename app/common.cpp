#include "common.h"

#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>

#include "embedpe/error.h"
#include "embedpe/text_input.h"

namespace embedpe::cli {

void add_text_options(CLI::App& cmd, TextOptions& options) {
  auto* text = cmd.add_option("--text", options.texts, "Text to process (repeat for a batch)")
                   ->type_name("TEXT")
                   ->allow_extra_args(false);
  auto* input = cmd.add_option("--input", options.inputs,
                               "File with one text per line (UTF-8; - reads stdin); repeat to read several in order")
                    ->type_name("PATH|-")
                    ->allow_extra_args(false);
  text->excludes(input);
  add_choice<InputFormat>(cmd, "--input-format", [&options](InputFormat f) { options.reading.format = f; },
                          {{"lines", InputFormat::lines}, {"jsonl", InputFormat::jsonl}},
                          "lines (default): one text per line; jsonl: one JSON object per line, text in --field");
  cmd.add_option("--field", options.reading.field, "JSONL member holding the text")->capture_default_str();
  cmd.add_flag("--skip-empty", options.reading.skip_empty,
               "Drop empty and whitespace-only lines (default: keep them as empty sequences)");
  cmd.add_option("--max-line-bytes", options.reading.max_line_bytes,
                 "Longest input line accepted, in bytes (default 64 MiB); a longer line is an error naming it, "
                 "so memory stays bounded")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  cmd.add_option_function<std::string>(
         "--shard",
         [&options](const std::string& v) {
           std::size_t k = 0, n = 0;
           char extra = 0;
           if (std::sscanf(v.c_str(), "%zu/%zu%c", &k, &n, &extra) != 2 || k < 1 || k > n) {
             throw CLI::ValidationError("--shard", "takes K/N with 1 <= K <= N, not '" + v + "'");
           }
           options.reading.shard_index = k;
           options.reading.shard_count = n;
           options.shard_given = true;
         },
         "Process only the K-th of N parts of the (seekable) input; line numbers stay the file's")
      ->type_name("K/N");
}

void add_output_option(CLI::App& cmd, std::string& output) {
  cmd.add_option("--output,-o", output, "Output path (- for standard output)")->type_name("PATH")->capture_default_str();
}

void refuse_binary_to_terminal(const std::string& output, const std::string& what) {
  if (output == "-" && ::isatty(STDOUT_FILENO)) {
    throw UsageError("refusing to write binary " + what + " to a terminal; give --output FILE or redirect standard "
                     "output");
  }
}

void add_model_option(CLI::App& cmd, std::string& model) {
  cmd.add_option("--model", model, "SentencePiece .model file (default: the embedded model)")
      ->type_name("PATH")
      ->check(CLI::ExistingFile);  // Tokenizer::from_file then refuses devices, FIFOs and files over 1 GiB
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

std::unique_ptr<LineReader> open_reader(const TextOptions& options) {
  if (options.inputs.empty()) {
    throw UsageError("nothing to process: give --text TEXT (repeatable) or --input PATH (- for stdin)");
  }
  return std::make_unique<LineReader>(options.inputs, options.reading);
}

Texts load_texts(const TextOptions& options) {
  Texts t;
  if (!options.inputs.empty()) {
    auto reader = open_reader(options);
    for (auto& line : reader->next(static_cast<std::size_t>(-1))) {
      t.origins.push_back(reader->display_name(line.source) + ":" + std::to_string(line.line));
      t.lines.push_back(std::move(line.text));
    }
    if (t.lines.empty() && !options.shard_given) {  // an empty shard is an empty result
      std::string names;
      for (std::size_t i = 0; i < reader->paths().size(); ++i) names += (i ? ", " : "") + reader->display_name(i);
      throw UsageError("input " + names + " has no text: nothing to encode");
    }
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

nlohmann::ordered_json model_json(const Tokenizer& tokenizer) {
  const ModelInfo& info = tokenizer.info();
  return {{"source", info.source},         {"sha256", tokenizer.sha256()},   {"type", info.model_type},
          {"vocab_size", info.vocab_size}, {"pad_id", info.pad_id},   {"bos_id", info.bos_id},
          {"eos_id", info.eos_id},         {"unk_id", info.unk_id}};
}

}  // namespace embedpe::cli
