// embedpe encode --output-dir DIR: a corpus as DIR/part-00000.npz,
// part-00001.npz, ... of --shard-rows rows each, described by
// DIR/manifest.json, and resumable.
//
//   OutputDirStats s = run_output_dir(cmd, encoder, source, [&](const Batch& b) { progress.add(b); });
//
// The files in DIR (output_dir_files lists them):
//   manifest.json  the run: config, how the inputs were read, each input's
//                  size and SHA-256, and each part (its rows, its input lines
//                  and the SHA-256 of the raw input bytes it was made from,
//                  and its own SHA-256). Written whole at the start
//                  ("complete": false) and at the end ("complete": true).
//   parts.journal  one JSON line per part finished since manifest.json was
//                  last written, so that a part costs O(1) bookkeeping, not
//                  a manifest rewrite; folded into manifest.json at the end
//                  and removed.
//   .lock          flock()ed for the whole run: a second run into DIR is
//                  refused at once.
//   part-NNNNN.npz
//
// --resume re-reads the input first and refuses (UsageError, naming what
// differs) unless the options, the model, the inputs and every recorded
// part's input bytes are the same; then it keeps each part whose file still
// has its recorded SHA-256 and redoes the rest. Parts beyond the new end are
// removed. A part path that is not a regular file (a FIFO, a symlink, a
// directory) is never opened: it is an error naming it.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "embedpe/encoder.h"
#include "embedpe/text_input.h"
#include "embedpe/tokenizer.h"
#include "encode.h"

namespace embedpe::cli {

struct OutputDirStats {
  std::size_t parts = 0, rows = 0;
  // What --output-dir costs beyond computing and writing the parts
  // (bench/manifest.py): manifest and journal writes, part-path checks and
  // removals; and, apart, reading each part back for its SHA-256.
  double manifest_seconds = 0;
  double part_hash_seconds = 0;
};

// `input` reads --input files (its reader is not null).
OutputDirStats run_output_dir(const EncodeCommand& cmd, const Encoder& encoder, TextSource& input,
                              const std::function<void(const Batch&)>& on_batch);

// Refuses (UsageError) --output-dir combined with what it cannot do, and
// --resume without it.
void check_output_dir_flags(const EncodeCommand& cmd);
// The --summary line about the parts, manifest and hashing.
void print_output_dir_summary(const OutputDirStats& stats);

// "part-00042.npz" for index 42.
std::string part_name(std::size_t index);

// Every file a run with `parts` parts writes in `dir` (manifest, journal,
// lock, parts), for checks that an output never replaces an input.
std::vector<std::string> output_dir_files(const std::string& dir, std::size_t parts);

// Whether `path` is, or would be, one of the files a run writes in `dir`
// (any part number): such an input would be replaced by the run.
bool is_output_dir_file(const std::string& dir, const std::string& path);

// Refuses (UsageError, before any work) inputs, as (flag, PATH[:TENSOR])
// pairs, that are or would be one of the files a run writes in `dir`.
void refuse_inputs_in_output_dir(const std::string& dir,
                                 const std::vector<std::pair<std::string, std::string>>& inputs);

}  // namespace embedpe::cli
