// A CLI11 program's command line about itself: what a mistyped command or
// option most likely meant, `NAME help`, each command's examples, shell
// completions (bash, zsh, fish) and the man page, all read off the CLI11
// definition so that none of them is kept by hand. NAME is the app's name
// (CLI::App::name), set before parsing.
//
//   CLI::App app{"what it does"};
//   app.formatter(clikit::help_formatter({"Input", "Output"}));  // before the commands
//   ... add the commands, clikit::set_examples(*sub, {...}) ...
//   clikit::setup_usage(app, page, print);
//   app.name("tool");
//   return clikit::run(app, argc, argv, print, on_error);  // parse, run the command, one line if it fails
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

namespace clikit {

// The candidate closest to `word`, or "" when none is close enough to be a
// likely typo. The distance is Damerau–Levenshtein's, with a hyphen or
// underscore left out, added or swapped, and a letter's case, counted as a
// quarter of a typo: "--dmodel" is "--d-model", not "--model".
std::string nearest(std::string_view word, const std::vector<std::string>& candidates);

// The subcommand `args` (in command-line order) name, or nullptr.
CLI::App* chosen_subcommand(CLI::App& app, const std::vector<std::string>& args);

// The help formatter of every command: options in their groups, in
// `group_order` (groups not listed, and "Options" with --help, after);
// placeholders that read as values ("--model PATH"); each default shown as
// "(default: X)". Set on the app before its commands are added (they share
// it).
std::shared_ptr<CLI::FormatterBase> help_formatter(std::vector<std::string> group_order);

// A command's options (positionals included, --help last) in help groups,
// in the order help and the man page show them.
std::vector<std::pair<std::string, std::vector<const CLI::Option*>>> option_groups(const CLI::App& cmd);

// The line for the first argument of a command that looks like an option
// but names none of its options ("---text", "--=x", "--txt"), or nullopt.
// Checked before parsing: CLI11 takes some of these for positional FILEs.
std::optional<std::string> unknown_option_line(CLI::App& app, const std::vector<std::string>& args);

// One line for a parse error, starting "NAME: " or "NAME COMMAND: ", naming
// the first unknown command or option with the nearest known one, and where
// to read more.
std::string parse_error_line(CLI::App& app, const std::vector<std::string>& args, const CLI::ParseError& e);

// `NAME help [COMMAND]` as `NAME [COMMAND] --help`: the arguments to parse
// instead. More than one word after help is a UsageError.
std::vector<std::string> expand_help(CLI::App& app, std::vector<std::string> args);

// Examples shown at the end of `cmd`'s help (the app's own: at the end of
// NAME --help) and in the man page.
void set_examples(CLI::App& cmd, std::vector<std::string> lines);

// The words completions offer for `opt`'s value when its placeholder cannot
// list them (--emit NAME,...).
void set_completion_words(const CLI::Option* opt, std::vector<std::string> words);

// What the man page says beyond the commands.
struct ManPage {
  std::string version;                // in the header line
  std::string summary;                // NAME - summary
  std::string notes;                  // after the description (exit status, ...)
  std::vector<std::string> see_also;  // "spm_encode (1)"
};

// Adds `help`, `completion bash|zsh|fish` (each with examples: help of the
// first command, where each shell's script is installed) and the hidden
// `manpage` (what the build writes NAME.1 with). Their text goes to `print`, which reports a
// failed write as the program reports any.
void setup_usage(CLI::App& app, ManPage page, std::function<void(const std::string&)> print);

// Generated from `app`'s definition.
std::string bash_completion(const CLI::App& app);
std::string zsh_completion(const CLI::App& app);
std::string fish_completion(const CLI::App& app);
std::string man_page(const CLI::App& app, const ManPage& page);

// `message` as one line a terminal shows as it is: control bytes spelled
// \n, \x1b, ...; bytes that are not UTF-8 as \xNN; and characters that show
// as nothing or move the text (C1 controls, U+FEFF, zero-width and
// direction marks, line separators) as <U+FEFF>.
std::string printable_line(std::string_view message);

// Writes `message` as one line on standard error, whatever it holds
// (printable_line), after `prefix` and, on a terminal, after clearing a
// progress line still showing; returns `status`.
int fail(const std::string& message, int status, const std::string& prefix);

// Parses argv and runs the chosen command's callback: what main() does once
// the commands are defined. The arguments first go through expand_help and
// unknown_option_line, and "--flag=" with nothing after '=' is the flag with
// an empty value (CLI11 would take the next argument as its value). Help and
// version text go to `print`. A parse error or a clikit::UsageError is one
// line (fail) and status 2; anything else thrown, by a callback or by
// `print`, goes to `on_error`, which reports it and returns the status.
// Returns the exit status: 0 after a command ran.
int run(CLI::App& app, int argc, char** argv, const std::function<void(const std::string&)>& print,
        const std::function<int(std::exception_ptr)>& on_error);

}  // namespace clikit
