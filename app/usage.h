// The command line about itself: what a mistyped command or option most
// likely meant, `embedpe help`, `--version`, each command's examples, shell
// completions and the man page — all read off the CLI11 definition, so that
// none of them is kept by hand.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

namespace embedpe::cli {

// The candidate closest to `word` (edit distance, transpositions counted as
// one), or "" when none is close enough to be a likely typo.
std::string nearest(std::string_view word, const std::vector<std::string>& candidates);

// The subcommand `args` (in command-line order) name, or nullptr.
CLI::App* chosen_subcommand(CLI::App& app, const std::vector<std::string>& args);

// The help formatter of every command: options in their groups (Input,
// Tokenization, ..., in that order), placeholders that read as values
// ("--model PATH"), each default shown as "(default: X)". Set on the app
// before its commands are added (they share it).
std::shared_ptr<CLI::FormatterBase> help_formatter();

// A command's options (positionals included, --help last) in help groups,
// in the order help and the man page show them.
std::vector<std::pair<std::string, std::vector<const CLI::Option*>>> option_groups(const CLI::App& cmd);

// The line for the first argument of a command that looks like an option
// but names none of its options ("---text", "--=x", "--txt"), or nullopt.
// Checked before parsing: CLI11 takes some of these for positional FILEs.
std::optional<std::string> unknown_option_line(CLI::App& app, const std::vector<std::string>& args);

// One line for a parse error, starting "embedpe: " or "embedpe COMMAND: ",
// naming the first unknown command or option with the nearest known one, and
// where to read more.
std::string parse_error_line(CLI::App& app, const std::vector<std::string>& args, const CLI::ParseError& e);

// `embedpe help [COMMAND]` as `embedpe [COMMAND] --help`: the arguments to
// parse instead. More than one word after help is a UsageError.
std::vector<std::string> expand_help(CLI::App& app, std::vector<std::string> args);

// What `--version` prints: embedpe's version, the git commit, SentencePiece,
// compiler and build type (what a bug report needs).
std::string version_text();

// Adds `help`, `completion bash|zsh|fish` and the hidden `manpage`, and each
// command's examples to the end of its help.
void setup_usage(CLI::App& app);

// The words completions offer for `opt`'s value when its placeholder cannot
// list them (--emit NAME,...).
void set_completion_words(const CLI::Option* opt, std::vector<std::string> words);

// Generated from `app`'s definition.
std::string bash_completion(const CLI::App& app);
std::string zsh_completion(const CLI::App& app);
std::string fish_completion(const CLI::App& app);
std::string man_page(const CLI::App& app);

}  // namespace embedpe::cli
