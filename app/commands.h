// The subcommands of the embedpe tool. Each has an options struct, a
// setup_X(CLI::App&) that binds its flags and a run_X that does the work
// through the library. Errors are thrown as embedpe::Error and reported once,
// in main().
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace embedpe {
class Encoder;
class PeArgs;
class PeKind;
struct PeInspectJob;
}  // namespace embedpe

namespace embedpe::cli {

// A front end that feeds the texts itself and keeps the tensors (the Python
// module, python/) reads encode's and pe's flags through these same
// definitions: given a `take`, the command's callback builds and checks what
// its flags describe, exactly as the command does, and hands it over instead
// of reading texts and writing an output.
//   encode: the Encoder (tokenizer, layer, emit, dtype, threads); the flags
//     of the texts and of the output are the caller's to refuse.
//   pe: the inspection as write_pe_inspection takes it (the caller sets
//     job.format to its own sink).
using TakeEncoder = std::function<void(Encoder&& encoder)>;
using TakePeInspection = std::function<void(const PeKind& kind, const PeArgs& args, const PeInspectJob& job)>;

void setup_encode(CLI::App& app, TakeEncoder take = {});
void setup_tokenize(CLI::App& app);
void setup_info(CLI::App& app);
void setup_lookup(CLI::App& app);
void setup_pe(CLI::App& app, TakePeInspection take = {});
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
