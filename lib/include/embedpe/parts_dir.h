// A corpus written as a directory of parts: DIR/part-00000.npz,
// part-00001.npz, ... of `shard_rows` rows each, described by
// DIR/manifest.json, and resumable.
//
//   embedpe::LineReader reader({"corpus.txt"}, {});
//   embedpe::PartsDirSink dir({.output_dir = "out", .shard_rows = 1000, .resume = true}, reader);
//   dir.begin({.config = config});           // creates and locks out/, checks a resumed run
//   while (std::optional<embedpe::Part> part = dir.next()) {   // the next shard_rows lines of `reader`
//     if (part->kept) continue;               // resuming: its file is intact, nothing to compute
//     dir.add({batch, part->lines, tensors}); // the part's rows, computed
//   }
//   dir.finish();                             // manifest.json says "complete": true
//
// The parts directory is not a format chosen by a file's extension (it is
// not in sink_formats()): it reads its input itself, a part at a time,
// because a part records which lines it holds and the SHA-256 of the raw
// bytes they came from, and a resumed run decides part by part what it
// already has.
//
// The files in DIR (parts_dir_files lists them):
//   manifest.json  the run: config, how the inputs were read, each input's
//                  size and SHA-256, and each part (its rows, its input lines
//                  and the SHA-256 of the raw input bytes it was made from,
//                  and its own SHA-256). Written whole once the first part's
//                  lines are read ("complete": false) and by finish()
//                  ("complete": true).
//   parts.journal  one JSON line per part finished since manifest.json was
//                  last written, so that a part costs O(1) bookkeeping, not
//                  a manifest rewrite; folded into manifest.json by finish()
//                  and removed.
//   .lock          flock()ed from begin() until the sink is destroyed: a
//                  second run into DIR is refused at once.
//   part-NNNNN.npz every tensor of the part; bfloat16 ones as float32
//                  (NumPy has no bfloat16).
//
// With `resume`, begin() re-reads the input first and refuses (UsageError,
// naming what differs) unless the config, the model, the inputs and every
// recorded part's input bytes are the same; then next() keeps each part whose
// file still has its recorded SHA-256 and hands the driver the rest. Parts
// beyond the new end are removed. A part path that is not a regular file (a
// FIFO, a symlink, a directory) is never opened: it is an error naming it.
// A sink destroyed before it wrote anything removes the directory if begin()
// created it (an input with no text leaves nothing behind).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "embedpe/sink.h"
#include "embedpe/text_input.h"

namespace embedpe {

struct PartsDirOptions {
  std::string output_dir;       // created if absent
  std::size_t shard_rows = 1024;  // rows per part, at least 1
  bool resume = false;          // continue the run whose manifest.json is in output_dir
  // Said on stderr when a signal (SIGINT, SIGTERM, SIGHUP) ends the run once
  // it has begun, in the caller's words (the tool's: how to resume), or "".
  std::string interrupt_note;
};

// One part of the input, as next() reads it.
struct Part {
  std::size_t index = 0;      // its file is part_name(index)
  std::size_t first_row = 0;  // of the run (dropout masks depend on it)
  std::vector<TextLine> lines;  // (rows,)
  bool kept = false;          // resuming: the file on disk is intact; add() is not called for it
};

// What the directory's bookkeeping cost, beyond computing and writing the
// parts (bench/manifest.py).
struct PartsDirStats {
  std::size_t parts = 0, rows = 0;
  std::size_t kept = 0;          // of the parts: a resumed run's, found intact and not written again
  double manifest_seconds = 0;   // manifest and journal writes, part-path checks and removals
  double part_hash_seconds = 0;  // reading each part back for its SHA-256
};

class PartsDirSink : public TensorSink {
 public:
  // Nothing is touched until begin(). `reader` gives the rows and must not
  // have been read from yet; it outlives the sink.
  PartsDirSink(PartsDirOptions options, LineReader& reader);
  ~PartsDirSink() override;
  PartsDirSink(const PartsDirSink&) = delete;
  PartsDirSink& operator=(const PartsDirSink&) = delete;

  // Creates and locks the directory; refuses one holding another run (or,
  // with resume, a run made otherwise than `run.config` and this reader say).
  void begin(const SinkRun& run) override;
  // The next part's lines; nullopt once the input is done.
  std::optional<Part> next();
  // The tensors of the part next() returned last (one not kept), in emit order.
  void add(const SinkBatch& batch) override;
  // Parts are rows of text: tables are refused (an internal error).
  void add_tables(const SinkTables& tables) override;
  // Removes parts beyond the run's end, writes the complete manifest.
  void finish() override;

  const PartsDirStats& stats() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// "part-00042.npz" for index 42.
std::string part_name(std::size_t index);

// Every file a run with `parts` parts writes in `dir` (manifest, journal,
// lock, parts).
std::vector<std::string> parts_dir_files(const std::string& dir, std::size_t parts);

// Whether `path` is, or would be, one of the files a run writes in `dir`
// (any part number; also a hard link or symlink to one): an input there
// would be replaced by the run.
bool is_parts_dir_file(const std::string& dir, const std::string& path);

// Refuses (UsageError), before any work, an input that is or would be one of
// the files a run writes in `dir`. `inputs` are (name, PATH[:TENSOR]) pairs,
// named as the caller spells them ("--weights").
void refuse_inputs_in_parts_dir(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& inputs);

// embedpe merge --output-dir: the complete parts directories of shards 1..N
// of one run, in order (merge_shards has checked that they belong together),
// joined into `output_dir` (new, or empty) as one directory of an unsharded
// run: their parts in turn, renamed part-00000.npz onward (hard links where
// the file system allows, else copies), with line ranges in the file's lines.
// Each part keeps its rows, so parts at a shard's end may be shorter than
// shard_rows (the shards must share one), and the manifest says
// "merged_shards": N, which encode --resume refuses. `input_sha256` is the
// whole input's, if the caller read it. The directory is made as an
// OutputDirectory: whole or not at all.
struct JoinedShard {
  std::string dir;
  std::size_t line_offset = 0;  // added to its line numbers (shard_seek shards count from their first line)
};
struct JoinStats {
  std::size_t parts = 0, rows = 0;
};
JoinStats join_parts_dirs(const std::string& output_dir, const std::vector<JoinedShard>& shards,
                          const std::optional<std::string>& input_sha256);

}  // namespace embedpe
