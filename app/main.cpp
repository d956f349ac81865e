// embedpe: text → the tensors a Transformer's input layer produces.
//
// main() builds the command line, dispatches to a subcommand and is the one
// place where errors become a line on stderr and an exit status:
// 0 success, 1 runtime error (bad file, I/O), 2 usage error (bad option).
#include <signal.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <CLI/CLI.hpp>

#include "clikit/usage.h"
#include "clikit/values.h"
#include "commands.h"
#include "common.h"
#include "errors.h"
#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/version.h"

#ifndef EMBEDPE_GIT_COMMIT
#define EMBEDPE_GIT_COMMIT "unknown"
#endif
#ifndef EMBEDPE_SENTENCEPIECE_VERSION
#define EMBEDPE_SENTENCEPIECE_VERSION "unknown"
#endif
#ifndef EMBEDPE_BUILD_TYPE
#define EMBEDPE_BUILD_TYPE "unknown"
#endif

namespace {

// What --version prints: embedpe's version, the git commit, SentencePiece,
// compiler and build type (what a bug report needs).
std::string version_text() {
  std::string s = std::string("embedpe ") + embedpe::version() + "\n";
  s += std::string("commit ") + EMBEDPE_GIT_COMMIT + "\n";
  s += std::string("sentencepiece ") + EMBEDPE_SENTENCEPIECE_VERSION + "\n";
#if defined(__clang__)
  s += "compiler clang " __clang_version__ "\n";
#elif defined(__GNUC__)
  s += "compiler GCC " __VERSION__ "\n";
#else
  s += "compiler unknown\n";
#endif
  s += std::string("build ") + EMBEDPE_BUILD_TYPE;
  return s;
}

// One line, whatever the message quotes (a file name with a newline, a
// value with control characters): control bytes are written as \n, \x1b...
// On a terminal, a progress line still showing is cleared first.
int fail(const std::string& message, int status, const char* prefix = "embedpe: ") {
  std::string line = std::string(::isatty(STDERR_FILENO) ? "\r\033[K" : "") + prefix;
  for (unsigned char c : message) {
    if (c == '\n') {
      line += "\\n";
    } else if (c < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      line += hex;
    } else {
      line += static_cast<char>(c);
    }
  }
  std::cerr << line << '\n';
  return status;
}

// "--flag=" with nothing after '=' becomes "--flag" "": CLI11 would take the
// next argument as the value (`--output= --quiet` wrote a file "--quiet").
// (In command-line order; CLI11's parse(vector) takes them reversed.)
std::vector<std::string> split_empty_assignments(int argc, char** argv) {
  std::vector<std::string> args;
  bool options = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") options = false;
    if (options && a.size() > 3 && a.starts_with("--") && a.back() == '=' && a.find('=') == a.size() - 1) {
      a.pop_back();
      args.push_back(a);
      args.emplace_back();
      continue;
    }
    args.push_back(std::move(a));
  }
  return args;
}

// The reader went away (`| head`): end as SIGPIPE would, without a message.
int end_as_broken_pipe() {
  std::signal(SIGPIPE, SIG_DFL);
  std::raise(SIGPIPE);
  return 141;
}

// What CLI11 prints (help, version) is written as every output is: a write
// that fails (a full disk, /dev/full) is an error, and a reader that went
// away ends the run as SIGPIPE would.
int print_parser_output(CLI::App& app, const CLI::Error& call) {
  std::ostringstream text;
  const int status = app.exit(call, text, std::cerr);
  try {
    embedpe::OutputFile out("-");
    out.write(text.str());
    out.commit();
  } catch (const embedpe::BrokenPipe&) {
    return end_as_broken_pipe();
  } catch (const embedpe::Error& e) {
    return fail(embedpe::cli::user_message(e), e.exit_code());
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  embedpe::install_signal_cleanup();

  namespace cli = embedpe::cli;
  CLI::App app{"embedpe — text → SentencePiece ids → embedding × √d_model + positional encoding → JSON / .npy / .npz"};
  app.name("embedpe");  // usage lines say the command, not the path it was run by
  app.set_version_flag("--version", version_text(), "Print the version, git commit, SentencePiece version, compiler and build type");
  app.require_subcommand(1);
  // Before the commands: they share it.
  app.formatter(clikit::help_formatter({cli::kInputGroup, cli::kTokenizationGroup, cli::kEmbeddingGroup,
                                        cli::kPositionalGroup, cli::kRopeGroup, cli::kOutputGroup, cli::kPipelineGroup}));
  app.fallthrough(false);
  cli::setup_encode(app);
  cli::setup_tokenize(app);
  cli::setup_decode(app);
  cli::setup_merge(app);
  cli::setup_pe(app);
  cli::setup_info(app);
  cli::setup_lookup(app);
  cli::setup_quantize(app);
  clikit::setup_usage(app,
                      {.version = embedpe::version(),
                       .summary = "text to the tensors a Transformer's input layer produces",
                       .notes = "Exit status: 0 on success, 1 for a runtime error (an unreadable or corrupt file, I/O), "
                                "2 for a usage error (a bad option). Errors are one line on standard error, and no "
                                "partial output file is left.",
                       .see_also = {"spm_encode (1)", "spm_decode (1)"}},
                      [](const std::string& text) {
                        embedpe::OutputFile out("-");
                        out.write(text);
                        out.commit();
                      });
  clikit::set_examples(app, {"embedpe encode --text \"Hello world\"                     # the input layer's tensors",
                             "embedpe tokenize --input corpus.txt --format ids",
                             "embedpe help encode                                     # a command's options and examples"});
  clikit::set_examples(*app.get_subcommand("help"), {"embedpe help", "embedpe help encode"});
  clikit::set_examples(*app.get_subcommand("completion"),
                       {"embedpe completion bash > /etc/bash_completion.d/embedpe",
                        "embedpe completion zsh > \"${fpath[1]}/_embedpe\"",
                        "embedpe completion fish > ~/.config/fish/completions/embedpe.fish"});

  std::vector<std::string> args;
  try {
    args = clikit::expand_help(app, split_empty_assignments(argc, argv));
    if (auto line = clikit::unknown_option_line(app, args)) return fail(*line, 2, "");
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11's parse(vector) takes them last first
    app.parse(std::move(reversed));
    return 0;
  } catch (const CLI::CallForHelp& e) {
    return print_parser_output(app, e);
  } catch (const CLI::CallForAllHelp& e) {
    return print_parser_output(app, e);
  } catch (const CLI::CallForVersion& e) {
    return print_parser_output(app, e);
  } catch (const CLI::ParseError& e) {
    return fail(clikit::parse_error_line(app, args, e), 2, "");
  } catch (const embedpe::BrokenPipe&) {
    return end_as_broken_pipe();
  } catch (const embedpe::Error& e) {
    return fail(embedpe::cli::user_message(e), e.exit_code());
  } catch (const clikit::UsageError& e) {
    return fail(e.what(), 2);
  } catch (const std::bad_alloc&) {
    return fail("out of memory; encode fewer lines at a time or lower --seq-len / --d-model", 1);
  } catch (const std::exception& e) {
    return fail(std::string("internal error: ") + e.what(), 1);
  }
}
