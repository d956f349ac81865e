// embedpe encode --output-dir DIR: the corpus as the parts directory
// (embedpe/parts_dir.h: part-NNNNN.npz of --shard-rows rows, manifest.json,
// --resume), computed part by part.
//
//   PartsDirStats s = run_output_dir(ctx, source, [&](const Batch& b) { progress.add(b); });
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "embedpe/encoder.h"
#include "embedpe/parts_dir.h"
#include "embedpe/text_input.h"
#include "embedpe/tokenizer.h"
#include "encode.h"

namespace embedpe::cli {

// `input` reads --input files (its reader is not null). `on_batch` sees each
// part computed (not those a resumed run keeps).
// Computes the parts the directory does not hold yet, through `encoder`.
PartsDirStats run_output_dir(const EncodeCommand& cmd, const Encoder& encoder, TextSource& input,
                             const std::function<void(const Batch&)>& on_batch);

// Refuses (UsageError) --output-dir combined with what it cannot do, and
// --resume without it.
void check_output_dir_flags(const EncodeCommand& cmd);
// The --summary line about the parts, manifest and hashing.
void print_output_dir_summary(const PartsDirStats& stats);

// Refuses (UsageError, before any work) inputs, as (flag, PATH[:TENSOR])
// pairs, that are or would be one of the files a run writes in `dir`.
void refuse_inputs_in_output_dir(const std::string& dir,
                                 const std::vector<std::pair<std::string, std::string>>& inputs);

}  // namespace embedpe::cli
