// embedpe merge: the outputs of encode --shard K/N → what one run would have
// written. The flags; the checks and the joining are the library's
// (embedpe/shards.h).
//
//   embedpe merge -o all.npy shard-*.npy
//   embedpe merge -o all.npz parts-1 parts-2 parts-3 parts-4
//   embedpe merge --output-dir all parts-1 parts-2 parts-3 parts-4
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "clikit/usage.h"
#include "commands.h"
#include "common.h"
#include "embedpe/error.h"
#include "embedpe/message.h"
#include "embedpe/shards.h"
#include "embedpe/sink.h"

namespace embedpe::cli {
namespace {

struct MergeCommand {
  std::vector<std::string> shards;
  std::string output, output_dir, input;
  bool summary = false;
};

void run_merge(const MergeCommand& cmd) {
  // --input named by its flag before any work; the library refuses every
  // input anyway (a shard: "... is shard S's own file"; embedpe/output_file.h, note_input).
  refuse_outputs_over_inputs({cmd.output}, {{"--input", cmd.input}});
  const MergeStats stats =
      merge_shards({.output = cmd.output, .output_dir = cmd.output_dir, .input = cmd.input, .shards = cmd.shards});
  if (cmd.summary) {
    std::fprintf(stderr, "embedpe: merged %zu shards, %zu rows, %zu bytes read, %zu %s\n", stats.shards, stats.rows,
                 stats.bytes_read, stats.bytes_written, stats.linked ? "in parts linked or copied" : "written");
  }
}

}  // namespace

void setup_merge(CLI::App& app) {
  auto cmd = std::make_shared<MergeCommand>();
  auto* sub = app.add_subcommand("merge", "Shards of encode --shard K/N → the output of one run, byte for byte");
  sub->add_option("SHARD", cmd->shards,
                  "Shard outputs in any order: " + or_list(joinable_extensions(false)) +
                      " files (with their record inside, or beside as FILE.shard.json), or --output-dir directories")
      ->type_name("SHARD")
      ->required()
      ->check(non_empty_path());
  auto* output =
      sub->add_option("--output,-o", cmd->output,
                      "The merged output: " + or_list(joinable_extensions(false)) + " (directories: " + or_list(joinable_extensions(true)) + ")")
          ->type_name("PATH");
  sub->add_option("--output-dir", cmd->output_dir,
                  "Join --output-dir shards into one new (or empty) directory: their parts, renumbered, and one "
                  "manifest in the file's line numbers")
      ->type_name("DIR")
      ->check(non_empty_path())
      ->excludes(output);
  sub->add_option("--input", cmd->input,
                  "The input the shards read: check that each shard's byte range still has the SHA-256 it recorded "
                  "(reads it whole; the records alone compare its size and first and last 64 KiB)")
      ->type_name("FILE")
      ->check(non_empty_path());
  sub->add_flag("--summary", cmd->summary, "Print shards, rows and bytes to stderr");
  clikit::set_examples(*sub,
                       {"embedpe merge part-1.npy part-2.npy part-3.npy -o all.npy     # as one run without --shard",
                        "embedpe merge parts-1 parts-2 -o all.npz                       # --output-dir shards",
                        "embedpe merge parts-1 parts-2 --output-dir all                 # ... into one directory"});
  sub->callback([cmd] { run_merge(*cmd); });
}

}  // namespace embedpe::cli
