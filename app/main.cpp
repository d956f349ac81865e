// embedpe: text → the tensors a Transformer's input layer produces.
//
// main() builds the command line, dispatches to a subcommand and is the one
// place where errors become a line on stderr and an exit status:
// 0 success, 1 runtime error (bad file, I/O), 2 usage error (bad option).
#include <csignal>
#include <exception>
#include <new>
#include <string>

#include <CLI/CLI.hpp>

#include "clikit/usage.h"
#include "commands.h"
#include "common.h"
#include "errors.h"
#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/version.h"

namespace {

// The reader went away (`| head`): end as SIGPIPE would, without a message.
int end_as_broken_pipe() {
  std::signal(SIGPIPE, SIG_DFL);
  std::raise(SIGPIPE);
  return 141;
}

// Everything the commands print goes through here: a write that fails (a
// full disk, /dev/full) is an error, as for every output.
void print(const std::string& text) {
  embedpe::OutputFile out("-");
  out.write(text);
  out.commit();
}

// How the library's errors end a run: one line, the parameters it names
// respelled as flags, and the error's exit status.
int report(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const embedpe::cli::ExitStatus& verdict) {
    return verdict.code;
  } catch (const embedpe::BrokenPipe&) {
    return end_as_broken_pipe();
  } catch (const embedpe::Error& e) {
    return clikit::fail(embedpe::cli::user_message(e), e.exit_code(), "embedpe: ");
  } catch (const std::bad_alloc&) {
    return clikit::fail("out of memory; encode fewer lines at a time or lower --seq-len / --d-model", 1, "embedpe: ");
  } catch (const std::exception& e) {
    return clikit::fail(std::string("internal error: ") + e.what() + " (a bug in embedpe; please report it)",
                        embedpe::InternalError::kExitCode, "embedpe: ");
  }
}

}  // namespace

int main(int argc, char** argv) {
  embedpe::install_signal_cleanup();

  namespace cli = embedpe::cli;
  CLI::App app{"embedpe — text → SentencePiece ids → embedding × √d_model + positional encoding → JSON / .npy / .npz"};
  app.name("embedpe");  // usage lines say the command, not the path it was run by
  app.set_version_flag("--version", embedpe::build_info(), "Print the version, git commit, SentencePiece version, compiler and build type");
  app.require_subcommand(1);
  // Before the commands: they share it.
  app.formatter(clikit::help_formatter({embedpe::kInputGroup, embedpe::kTokenizationGroup, embedpe::kEmbeddingGroup,
                                        embedpe::kPositionalGroup, embedpe::kRopeGroup, embedpe::kToleranceGroup,
                                        embedpe::kOutputGroup, embedpe::kPipelineGroup}));
  app.fallthrough(false);
  cli::setup_encode(app);
  cli::setup_tokenize(app);
  cli::setup_decode(app);
  cli::setup_merge(app);
  cli::setup_pe(app);
  cli::setup_info(app);
  cli::setup_lookup(app);
  cli::setup_quantize(app);
  cli::setup_diff(app);
  cli::add_no_clobber(app);  // after every command: each that has --output or --output-dir gets --no-clobber
  clikit::setup_usage(app,
                      {.version = embedpe::version(),
                       .summary = "text to the tensors a Transformer's input layer produces",
                       .notes = "Exit status: 0 on success, 1 for a runtime error (an unreadable or corrupt file, I/O), "
                                "2 for a usage error (a bad option). Errors are one line on standard error, and no "
                                "partial output file is left.",
                       .see_also = {"spm_encode (1)", "spm_decode (1)"}},
                      print);
  clikit::set_examples(app, {"embedpe encode --text \"Hello world\"                     # the input layer's tensors",
                             "embedpe tokenize --input corpus.txt --format ids",
                             "embedpe help encode                                     # a command's options and examples"});

  return clikit::run(app, argc, argv, print, report);
}
