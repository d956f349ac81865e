// Where encoded batches go: a TensorSink per output format, found in one
// registry by name or by file extension.
//
//   const embedpe::SinkFormat* f = embedpe::find_sink_format("npz");
//   std::unique_ptr<embedpe::TensorSink> sink = f->make("out.npz");
//   sink->begin(run);                       // checks what the format needs, then opens the output
//   sink->add({batch, lines, tensors});     // once, or per batch when run.streamed
//   sink->finish();                         // completes and commits: the file appears whole or not at all
//
// Tensors that are not rows of text (pe's tables and biases) are given whole
// instead of as batches, to the formats whose traits say they hold them:
//
//   sink->begin({.threads = 4});
//   sink->add_tables({.members = {{"config", config}}, .tensors = {embedpe::tensor_ref("bias", bias)}});
//   sink->finish();
//
// A format is one file, src/sinks/NAME_sink.cpp, defining
// `const SinkFormat& NAME_sink_format()`, plus its NAME in EMBEDPE_SINKS in
// lib/CMakeLists.txt (src/sinks/safetensors_sink.cpp is an example). Callers
// never switch on a format: they read its traits, and merge calls its join.
#pragma once

#include <cstdint>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "embedpe/dtype.h"
#include "embedpe/output_file.h"
#include "embedpe/text_input.h"
#include "embedpe/tokenizer.h"

namespace embedpe {

// What a sink is told once, before any batch.
struct SinkRun {
  nlohmann::ordered_json config;  // how the rows were made (model, layer, dtype, emit): stored with them
  // Names of the inputs rows come from, when there are several: JSON Lines
  // records then say which ("source"). Empty for one input or given texts.
  std::vector<std::string> sources;
  // Tensors with one row per position, (seq_len, d), the same for every
  // sequence (positional_encoding, rope_cos, rope_sin); the others are (rows, ...).
  std::vector<std::string> per_position;
  std::optional<std::size_t> seq_len;  // fixed: every row is padded to it; else a row is its own length,
  std::size_t pad_to_multiple_of = 1;  // padded up to a multiple of this
  std::size_t threads = 1;             // for rendering text
  int precision = 0;                   // significant digits of floats in text formats; 0: shortest round-trip
  // More than one batch will come (the input is longer than batch_size
  // rows): formats that must go back to complete a header refuse what
  // cannot be gone back to, before anything is opened.
  bool streamed = false;
  std::size_t batch_size = 0;
  // A record the output carries about itself (a shard's, for merge), asked
  // for once every row is read; nullopt: none. Formats with
  // SinkTraits::holds_record store it as "shard" (npz: a text member;
  // safetensors: a __metadata__ string); for the others the caller writes it
  // beside the file, through `companion`.
  std::function<std::optional<nlohmann::ordered_json>()> record;
  // A file sink's output is committed with this (OutputFile::commit_with).
  OutputFile::Companion companion;
};

// One batch, computed.
struct SinkBatch {
  const Batch& batch;               // ids, pieces, truncation
  std::span<const TextLine> lines;  // (rows,): where each row came from (texts not needed)
  std::vector<TensorRef> tensors;   // in the output dtype, in emit order
};

// Named tensors with their own description, the whole output at once.
struct SinkTables {
  // Named JSON values describing the tensors, "config" first: JSON writes
  // them before the tensors, safetensors keeps each as a __metadata__ string,
  // NumPy's formats hold the tensors only.
  nlohmann::ordered_json members = nlohmann::ordered_json::object();
  std::vector<TensorRef> tensors;  // one for formats that hold one tensor
};

class TensorSink {
 public:
  virtual ~TensorSink() = default;
  // Checks what the format needs of the run (UsageError naming parameters),
  // then opens the output.
  virtual void begin(const SinkRun& run) = 0;
  // Batches come in order. Formats that hold the whole input get exactly one.
  virtual void add(const SinkBatch& batch) = 0;
  // Instead of batches: every tensor at once (formats with SinkTraits::tables).
  virtual void add_tables(const SinkTables& tables) = 0;
  // Completes the output and commits it.
  virtual void finish() = 0;
};

struct SinkTraits {
  bool whole_input = false;  // one document holds every row: give it the whole input as one batch
  // Records are written as batches come, by a pool task even when there
  // is one batch (else a single batch is written by the caller's thread).
  bool streams = false;
  bool binary = false;       // never to a terminal
  bool one_tensor = false;   // holds a single tensor
  bool bfloat16 = true;      // can hold bfloat16 (NumPy's formats cannot)
  bool tables = true;        // holds named tensors that are not rows of text (add_tables)
  bool view = false;         // for a person at a terminal (summary): no file extension, no tables
  // The largest document it can write, in bytes (0: no limit): .npz without
  // ZIP64 stays under 4 GiB. Checked before any work where sizes are known.
  std::uint64_t max_bytes = 0;
  bool holds_record = false;  // stores SinkRun::record inside the file
  bool joins_parts = false;   // merge also joins output_dir shards (their .npz parts) into it
};

struct ShardJoin;  // src/sinks/shard_join.h

struct SinkFormat {
  const char* name;                    // "npz": --format's word
  std::vector<std::string> extensions; // ".npz"
  SinkTraits traits;
  // A sink writing `path` ("-" for standard output); nothing is opened yet.
  std::function<std::unique_ptr<TensorSink>(const std::string& path)> make;
  // embedpe merge: joins the shards of one run into one file of this format
  // and returns the rows written (src/sinks/shard_join.h). Empty: merge does
  // not write this format.
  std::function<std::size_t(OutputFile& out, const ShardJoin& join)> join = {};
  // For holds_record formats: the shard record the whole file `file` holds,
  // as JSON text; nullopt if it holds none.
  std::function<std::optional<std::string>(std::string_view file, const std::string& path)> read_record = {};
};

// Every format, in registration order.
const std::vector<const SinkFormat*>& sink_formats();
// The format called `name`, or nullptr.
const SinkFormat* find_sink_format(std::string_view name);
// (extension, format name) of every format: what an output's name is checked against.
std::vector<std::pair<std::string, std::string>> sink_extensions();
// The first extension of each format merge joins (join); with `parts`, of
// those that also join output_dir shards (joins_parts).
std::vector<std::string> joinable_extensions(bool parts);

}  // namespace embedpe
