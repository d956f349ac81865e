// How the kit reads a CLI11 definition: what help, the completions and the
// man page all say about a command and its options.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace clikit::detail {

std::string join(const std::vector<std::string>& v, const std::string& sep);

// Flags expect 0 values.
inline bool takes_value(const CLI::Option* opt) { return opt->get_expected_max() != 0; }

// Every "--name" and "-n" of an option.
std::vector<std::string> all_names(const CLI::Option* opt);

// The commands listed in help (not the hidden ones), in definition order.
std::vector<const CLI::App*> listed_commands(const CLI::App& app);

// The words an option's value is one of: the lowercase words of its
// placeholder ("json|jsonl|npy"; "sqrt|none|X" gives sqrt and none), or
// those set with set_completion_words; none for other values.
std::vector<std::string> choices_of(const CLI::Option* opt);

// What a completion offers for an option's value.
enum class ValueKind { none, words, word_list, path, other };
ValueKind value_kind(const CLI::Option* opt);

// What a value is called in help: the option's placeholder ("PATH", "N",
// "json|npz"), or "" for a flag.
std::string placeholder(const CLI::Option* opt);
// "--model PATH", or "FILE..." for a positional.
std::string option_label(const CLI::Option* opt);
// The description with "(required)" and "(default: X)".
std::string option_text(const CLI::Option* opt);

// The lines given to set_examples for `cmd`, or none.
const std::vector<std::string>& examples_of(const CLI::App* cmd);

}  // namespace clikit::detail
