// embedpe: text → the tensors a Transformer's input layer produces.
//
// main() builds the command line, dispatches to a subcommand and is the one
// place where errors become a line on stderr and an exit status:
// 0 success, 1 runtime error (bad file, I/O), 2 usage error (bad option).
#include <csignal>
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>

#include <unistd.h>

#include <CLI/CLI.hpp>

#include "commands.h"
#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/version.h"

namespace {

// Removes a half-written output on SIGINT/SIGTERM, then dies of the signal.
void on_fatal_signal(int sig) {
  if (const char* temp = embedpe::active_temporary_path()) ::unlink(temp);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

int fail(const std::string& message, int status) {
  std::cerr << "embedpe: " << message << '\n';
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGINT, on_fatal_signal);
  std::signal(SIGTERM, on_fatal_signal);
  // A closed pipe is seen as EPIPE and ends the run quietly (see below),
  // after nothing more is written.
  std::signal(SIGPIPE, SIG_IGN);

  CLI::App app{"embedpe — text → SentencePiece ids → embedding × √d_model + positional encoding → JSON / .npy / .npz"};
  app.set_version_flag("--version", std::string("embedpe ") + embedpe::version());
  app.require_subcommand(1);
  app.fallthrough(false);
  embedpe::cli::setup_encode(app);
  embedpe::cli::setup_tokenize(app);
  embedpe::cli::setup_pe(app);
  embedpe::cli::setup_info(app);
  embedpe::cli::setup_lookup(app);
  embedpe::cli::setup_quantize(app);

  try {
    app.parse(argc, argv);
    return 0;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(std::string(e.what()) + "; see embedpe --help", 2);
  } catch (const embedpe::BrokenPipe&) {
    // The reader went away (`| head`): end as SIGPIPE would, without a message.
    std::signal(SIGPIPE, SIG_DFL);
    std::raise(SIGPIPE);
    return 141;
  } catch (const embedpe::Error& e) {
    return fail(e.what(), e.exit_code());
  } catch (const std::bad_alloc&) {
    return fail("out of memory; encode fewer lines at a time or lower --seq-len / --d-model", 1);
  } catch (const std::exception& e) {
    return fail(std::string("internal error: ") + e.what(), 1);
  }
}
