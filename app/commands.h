// The subcommands of the embedpe tool. Each has an options struct, a
// setup_X(CLI::App&) that binds its flags and a run_X that does the work
// through the library. Errors are thrown as embedpe::Error and reported once,
// in main().
#pragma once

#include <CLI/CLI.hpp>

namespace embedpe::cli {

void setup_encode(CLI::App& app);
void setup_tokenize(CLI::App& app);
void setup_info(CLI::App& app);
void setup_lookup(CLI::App& app);
void setup_pe(CLI::App& app);
void setup_quantize(CLI::App& app);
void setup_decode(CLI::App& app);
void setup_merge(CLI::App& app);
void setup_diff(CLI::App& app);

// A verdict as the exit status, thrown once the command's output is written:
// diff's 1 for inputs that differ, as cmp's and diff's. Not an error: main()
// prints nothing for it.
struct ExitStatus {
  int code = 0;
};

}  // namespace embedpe::cli
