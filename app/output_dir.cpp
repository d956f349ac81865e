// embedpe encode --output-dir: computes the parts the parts directory asks for.
#include "output_dir.h"

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "embedpe/error.h"
#include "embedpe/weights.h"

namespace embedpe::cli {

void refuse_inputs_in_output_dir(const std::string& dir,
                                 const std::vector<std::pair<std::string, std::string>>& inputs) {
  for (const auto& [flag, spec] : inputs) {
    if (spec.empty() || spec == "-") continue;
    const std::string path = parse_tensor_spec(spec).path;
    if (is_parts_dir_file(dir, path)) {
      throw UsageError(flag + " " + path + " is one of the files --output-dir " + dir +
                       " writes (manifest, journal, lock or part), so the run would replace it; choose another "
                       "--output-dir");
    }
  }
}

void check_output_dir_flags(const EncodeCommand& cmd) {
  if (!cmd.output_dir.empty()) {
    if (cmd.output != "-") throw UsageError("give --output or --output-dir, not both");
    if (cmd.format && std::string_view(cmd.format->name) != "npz") {
      throw UsageError("--output-dir writes .npz parts; drop --format");
    }
    if (cmd.shard_rows == 0) throw UsageError("--shard-rows must be at least 1");
    if (!cmd.text.texts.empty()) throw UsageError("--output-dir is for --input corpora");
  } else if (cmd.resume) {
    throw UsageError("--resume continues an --output-dir run");
  }
}

void print_output_dir_summary(const PartsDirStats& stats) {
  std::fprintf(stderr, "embedpe: --output-dir: %zu parts; manifest and journal %.3f s, part hashes %.3f s\n",
               stats.parts, stats.manifest_seconds, stats.part_hash_seconds);
}

PartsDirStats run_output_dir(const EncodeCommand& cmd, const Encoder& encoder, TextSource& input,
                             const std::function<void(const Batch&)>& on_batch) {
  PartsDirSink dir({.output_dir = cmd.output_dir, .shard_rows = cmd.shard_rows, .resume = cmd.resume},
                   *input.reader());
  dir.begin({.config = encoder.config()});
  std::optional<Part> part = dir.next();
  // As with --output, an input with no text is an error (one empty --shard
  // of many is a run with no parts).
  if (!part && !cmd.text.shard_given) {
    throw UsageError("input " + input.input_names() + " has no text: nothing to encode");
  }
  for (; part; part = dir.next()) {
    if (part->kept) continue;
    auto [texts, origins] = input.take(part->lines);
    EncodedBatch c;
    encoder.compute(texts, origins, part->first_row, c);
    on_batch(c.batch);
    std::vector<TensorBuffer> keep;
    dir.add({c.batch, part->lines, encoder.tensors(c, keep)});
  }
  dir.finish();
  return dir.stats();
}

}  // namespace embedpe::cli
