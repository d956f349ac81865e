// Keyword arguments read through the command line's own definition of a
// command (app/: setup_encode, setup_pe): a keyword is a flag with '_' for
// '-' (d_model is --d-model), and its value is given to the same parser,
// so that names, defaults, ranges and messages are the CLI's by construction.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <pybind11/pybind11.h>

namespace embedpe::python {

// One option as help() shows it.
struct OptionHelp {
  std::string keyword;      // "d_model"
  std::string value;        // "N"; empty for a switch (True/False)
  std::string default_str;  // "512", or what the CLI's help says
  std::string description;
};

class Command {
 public:
  // `name` is the subcommand ("encode") that `setup` adds to an app;
  // `keep` says which of its options ("--d-model") are keywords here.
  Command(std::string name, std::function<void(CLI::App&)> setup, std::function<bool(const CLI::Option&)> keep);

  // The keyword arguments as the command's arguments ("--d-model=64",
  // "--no-bos"), in the order given; None is left out, as a flag not given.
  // TypeError naming `callable` for a keyword that is not an option here,
  // and for a value of the wrong type (a bool for a number, a number for a switch).
  std::vector<std::string> arguments(const pybind11::dict& kwargs, const std::string& callable) const;

  // Parses `args` on a fresh definition: the command's callback runs (the
  // `take` given to its setup). Errors are raised as Python exceptions
  // (errors.h); needs the GIL, which it releases while the callback runs.
  void run(const std::vector<std::string>& args) const;

  // The options that are keywords here, in the CLI's order.
  const std::vector<OptionHelp>& options() const { return options_; }
  // Every option's flags, for respelling messages.
  const std::vector<std::string>& flags() const { return flags_; }
  // The files and directories `args` name (the values of the options that
  // take a PATH, DIR or FILE; "PATH:TENSOR" as PATH too): an error about one
  // of them is an OSError (errors.h).
  std::vector<std::string> paths(const std::vector<std::string>& args) const;

 private:
  std::string name_;
  std::function<void(CLI::App&)> setup_;
  std::vector<OptionHelp> options_;
  std::set<std::string> keywords_;
  std::set<std::string> switches_;
  std::set<std::string> path_flags_;  // "--model"
  std::vector<std::string> flags_;
};

// The keyword help lines: "  d_model=N  (default: 512) Width ...".
std::string options_doc(const std::vector<OptionHelp>& options);

}  // namespace embedpe::python
