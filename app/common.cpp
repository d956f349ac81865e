#include "common.h"

#include <cstdio>

#include "embedpe/error.h"
#include "embedpe/id_rows.h"
#include "embedpe/output_file.h"
#include "embedpe/model_source.h"
#include "embedpe/pretrained_tokenizer.h"
#include "embedpe/text_input.h"
#include "errors.h"
#include "embedpe/message.h"
#include "clikit/usage.h"
#include "embedpe/weights.h"
#include "pe_flags.h"

namespace embedpe::cli {

CLI::Option* add_scale_option(CLI::App& cmd, std::string& scale, const std::string& help) {
  return clikit::add_word_or_number(cmd, "--scale", scale, {"sqrt", "none"}, {-1e6, 1e6}, help);
}

std::vector<std::int64_t> parse_ids(const std::string& flag, const std::string& text) {
  try {
    const std::vector<int> ids = parse_id_text(text, flag);
    if (ids.empty()) throw Error(flag + ": expected ids such as 1,262,2, not an empty value");
    return {ids.begin(), ids.end()};
  } catch (const Error& e) {
    // "FLAG: why" → CLI11's "FLAG: why".
    const std::string what = e.what();
    throw CLI::ValidationError(flag, what.substr(what.starts_with(flag + ": ") ? flag.size() + 2 : 0));
  }
}

CLI::Option* add_ids_option(CLI::App& cmd, std::vector<std::string>& ids, const std::string& help) {
  // Checked as it is parsed, by the parser every id input uses: a usage error naming the flag.
  return cmd
      .add_option_function<std::vector<std::string>>(
          "--ids",
          [&ids](const std::vector<std::string>& values) {
            for (const auto& v : values) parse_ids("--ids", v);
            ids.insert(ids.end(), values.begin(), values.end());
          },
          help)
      ->type_name("IDS")
      ->allow_extra_args(false);
}

void add_text_options(CLI::App& cmd, TextSpec& options) {
  options.texts_label = "--text";  // origins read "--text 2"
  options.ids_label = "--ids";
  ParamHooks hooks;
  // FILE... as positional arguments, like --input (after any --input files).
  hooks["FILE"] = [&cmd, &options](const std::string&) {
    return cmd
        .add_option_function<std::vector<std::string>>(
            "FILE",
            [&options](const std::vector<std::string>& paths) {
              options.inputs.insert(options.inputs.end(), paths.begin(), paths.end());
            },
            "Input files, as --input (none, and no --text: standard input when it is not a terminal)")
        ->type_name("FILE")
        ->check(non_empty_path());
  };
  hooks["ids"] = [&cmd, &options](const std::string&) {
    return add_ids_option(cmd, options.ids,
                          "One sequence of token ids, e.g. 1,262,2 (repeat for a batch): no tokenizer, no BOS/EOS");
  };
  hooks["shard"] = [&cmd, &options](const std::string&) {
    return cmd
        .add_option_function<std::string>(
            "--shard",
            [&options](const std::string& v) {
              const clikit::Part part = clikit::parse_part("--shard", v, kMaxShards);
              options.reading.shard_index = part.index;
              options.reading.shard_count = part.count;
              options.shard_given = true;
            },
            "Process only the K-th of N parts of the (seekable) input; line numbers stay the file's")
        ->type_name("K/N");
  };
  add_params(cmd, text_params(options), hooks);
  CLI::Option* text = cmd.get_option("--text");
  CLI::Option* ids = cmd.get_option("--ids");
  text->excludes(cmd.get_option("--input"));
  text->excludes(cmd.get_option("FILE"));
  ids->excludes(text);
  ids->excludes(cmd.get_option("--input"));
  ids->excludes(cmd.get_option("FILE"));
}

void add_output_option(CLI::App& cmd, std::string& output) {
  option_group(cmd, kOutputGroup);
  cmd.add_option("--output,-o", output, "Output path (- for standard output)")->type_name("PATH")->capture_default_str();
}

void add_no_clobber(CLI::App& app) {
  static constexpr const char* kOutputs[][2] = {{"--output", "output_path"}, {"--output-dir", "output_dir"}};
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    bool writes = false;
    for (const auto& output : kOutputs) writes = writes || sub->get_option_no_throw(output[0]) != nullptr;
    if (!writes) continue;
    sub->add_flag_callback("--no-clobber,-n", [] { set_no_clobber(true); },
                           "Refuse to replace or remove an existing output (as cp -n): a file, a symbolic link, a "
                           "directory, even an empty one; standard output, devices and FIFOs are written as usual")
        ->group(kOutputGroup);
  }
  // Before the command's own callback: nothing is read or computed for an output that is refused.
  app.parse_complete_callback([&app] {
    for (CLI::App* sub : app.get_subcommands()) {
      const CLI::Option* flag = sub->get_option_no_throw("--no-clobber");
      if (!flag || flag->count() == 0) continue;
      const CLI::Option* resume = sub->get_option_no_throw("--resume");
      for (const auto& [name, parameter] : kOutputs) {
        const CLI::Option* output = sub->get_option_no_throw(name);
        if (!output || output->count() == 0 || output->results().empty()) continue;
        if (std::string(name) == "--output-dir" && resume && resume->count() > 0) continue;  // continues the run there
        refuse_existing_output(output->results().back(), parameter);
      }
    }
  });
}

void note_without_tokenizer(const char* what, const Error& why) {
  std::fprintf(stderr, "embedpe: note: %s, without the directory's tokenizer (%s)\n", what,
               clikit::printable_line(user_message(why)).c_str());
}

CLI::Option* add_model_option(CLI::App& cmd, std::string& model) {
  // A missing file is Tokenizer::from_file's runtime error (exit 1), like
  // every other unreadable input, not a usage error: no CLI::ExistingFile.
  return cmd.add_option("--model", model, "SentencePiece .model file")
      ->type_name("PATH")
      ->check(non_empty_path())
      ->default_str("the embedded model");
}

CLI::Option* add_pretrained_option(CLI::App& cmd, std::string& dir, CLI::Option* model, const std::string& help) {
  CLI::Option* option =
      cmd.add_option("--pretrained", dir, help)->type_name("DIR")->check(non_empty_path())->transform(resolve_model_path, "", "");
  if (model) option->excludes(model);
  return option;
}

CLI::Option* add_tokenizer_kind_option(CLI::App& cmd, PretrainedTokenizerKind& kind) {
  return add_choice<PretrainedTokenizerKind>(cmd, "--tokenizer", [&kind](PretrainedTokenizerKind k) { kind = k; },
                                      {{"fast", PretrainedTokenizerKind::fast_if_any}, {"slow", PretrainedTokenizerKind::slow}},
                                      "With --pretrained: fast reads the directory's tokenizer.json where there is one "
                                      "(AutoTokenizer's default); slow its SentencePiece class (use_fast=False)",
                                      "fast");
}

void add_tokenize_flags(CLI::App& cmd, TokenizeFlags& flags) {
  const ParamHooks hooks = {
      {"model", [&cmd, &flags](const std::string&) { return add_model_option(cmd, flags.model); }},
      {"pretrained",
       [&cmd, &flags](const std::string&) {
         return add_pretrained_option(cmd, flags.pretrained, cmd.get_option("--model"));
       }},
      {"tokenizer", [&cmd, &flags](const std::string&) { return add_tokenizer_kind_option(cmd, flags.kind); }}};
  add_params(cmd, tokenize_params(flags.request), hooks);
}

std::function<void(const Error&)> command_note(const char* command) {
  return [command](const Error& note) {
    std::fprintf(stderr, "embedpe %s: %s\n", command, clikit::printable_line(user_message(note)).c_str());
  };
}

}  // namespace embedpe::cli
