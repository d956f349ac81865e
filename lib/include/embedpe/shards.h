// Shards of one run, recorded and joined back together.
//
// A run with `shard K/N` (InputOptions) reads one contiguous byte range of
// its input. Its output says which: .npz and .safetensors carry a record
// inside (the "shard" member or metadata string), other file outputs get it
// beside them, OUTPUT.shard.json, and a parts directory's manifest.json holds
// the same facts (reading.shard, inputs[].range, inputs[].sha256).
//
//   embedpe::LineReader& reader = *source.reader();
//   embedpe::ShardRecorder record(reader);    // before the first line is read
//   run.companion = record.beside("out-3.npy", "npy", encoder.config());
//   ... encode into "out-3.npy" (its record appears with it) ...
//
//   embedpe::merge_shards({.output = "all.npy", .shards = {"out-1.npy", "out-2.npy", ...}});
//
// merge_shards() reads every shard's record (and every part directory's
// manifest), checks that they come from the same config and the same input
// and tile it exactly once — shards 1..N of one N, byte ranges end to end from
// 0 to the input's size — and that every file still has its recorded size and
// checksum (a file shard's CRC-32, a part's SHA-256), all before it opens the
// output. Then it writes what one run would
// have written, byte for byte, through an OutputFile (whole or not at all):
//   .npy shards   → .npy   (rows concatenated; the same trailing shape)
//   .jsonl shards → .jsonl (records concatenated; line numbers are the file's)
//   .npz shards   → .npz   (each row tensor concatenated; per-position tensors
//                           such as positional_encoding kept once)
//   parts dirs    → .npz or .npy (the parts' tensors; .npy takes `output`, or
//                           the one tensor emitted)
// Every error names the shard it is about.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "embedpe/output_file.h"
#include "embedpe/text_input.h"

namespace embedpe {

// Where a file output's shard record goes: OUTPUT + ".shard.json".
std::string shard_record_path(const std::string& output);

// Before any work: refuses (Error naming output_path) a shard record path
// that could not be written once the output is in place, which would leave
// an output without its record: a name too long, a directory, a dangling
// symbolic link, a device or FIFO there. Nothing for outputs not replaced
// (standard output, devices), which get no record.
void check_shard_record_path(const std::string& output);

// An output written without a record (merge's, a run without shard) must
// not keep the record of an earlier shard written at its path: before any
// work, check_stale_shard_record refuses one that could not be removed (a
// directory, an input); without_stale_shard_record is the output's companion
// (OutputFile::commit_with) that removes it just before the output's rename.
void check_stale_shard_record(const std::string& output);
OutputFile::Companion without_stale_shard_record(const std::string& output);

// Hashes the bytes a sharded reader consumes, to record them with the output.
class ShardRecorder {
 public:
  // Attaches to `reader` (its raw-bytes sink); it must not have been read
  // from yet, and outlives the recorder.
  explicit ShardRecorder(LineReader& reader);
  ShardRecorder(const ShardRecorder&) = delete;
  ShardRecorder& operator=(const ShardRecorder&) = delete;
  ~ShardRecorder();

  // After the reader is done: the record of this shard (shard K/N, the
  // input's identity, byte range, lines and SHA-256, the run's config, the
  // format), for an output that carries it inside (SinkRun::record);
  // nullopt for standard input, which nothing identifies.
  std::optional<nlohmann::ordered_json> record(const std::string& format, const nlohmann::ordered_json& config) const;
  // The output's companion (OutputFile::commit_with) that writes the record
  // beside it, OUTPUT.shard.json, with the size and CRC-32 of the bytes about
  // to appear: the record is in place just before the output's rename and
  // removed again if that fails, so the two appear together or not at all.
  OutputFile::Companion beside(const std::string& output, const std::string& format,
                               const nlohmann::ordered_json& config) const;

 private:
  struct State;
  State* s_;
};

// The input's identity without reading all of it (a shard must not hash a
// terabyte): SHA-256 of its size and of its first and last 64 KiB.
std::string input_fingerprint(const std::string& path);

struct MergeOptions {
  std::string output;               // a file of a format whose sink joins shards (.npy, .npz, .jsonl, .safetensors), not standard output
  std::string output_dir;           // instead of output: parts directories into one (join_parts_dirs)
  std::string input;                // if given, the file the shards read: each range's SHA-256 is checked
  std::vector<std::string> shards;  // files with their records, or parts directories; any order
};

struct MergeStats {
  std::size_t shards = 0, rows = 0;
  std::size_t bytes_read = 0, bytes_written = 0;
  bool linked = false;  // output_dir: the parts were hard-linked or copied, bytes_written is their size
};

MergeStats merge_shards(const MergeOptions& options);

}  // namespace embedpe
