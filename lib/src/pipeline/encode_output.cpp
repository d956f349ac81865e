// Where an encode run writes: check_encode_output and encode_to (encoder.h).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "embedpe/encoder.h"
#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/shards.h"
#include "embedpe/message.h"
#include "embedpe/weights.h"
#include "gguf.h"
#include "test_pause.h"

namespace embedpe {

std::vector<std::pair<std::string, std::string>> encode_inputs(const TextSpec& text, const std::string& model,
                                                               const LayerSpec& layer, const std::string& pretrained) {
  std::vector<std::pair<std::string, std::string>> inputs = text_inputs(text, model);
  // Before the layer's: its files are pretrained's, as the user gave them (every part of a split GGUF).
  if (!pretrained.empty() && is_gguf_file(pretrained)) {
    for (const std::string& part : WeightFile::open(pretrained)->gguf()->part_paths()) {
      inputs.emplace_back("pretrained", part);
    }
  } else if (!pretrained.empty()) {
    inputs.emplace_back("pretrained", pretrained);
  }
  for (auto& input : layer_inputs(layer)) inputs.push_back(std::move(input));
  return inputs;
}

void check_encode_output(const EncodeOutput& output, DType dtype, int precision, bool given_texts, bool shard_seek) {
  const bool dir = !output.output_dir.empty();
  if (!dir && !output.format) throw UsageError("give format for a file output", {"format"});
  if (dtype == DType::bfloat16 && (dir || !output.format->traits.bfloat16)) {
    Message m;
    m << "dtype bf16: " << Verbatim{"NumPy has no bfloat16 dtype"} << ", so "
      << (dir ? "output_dir's .npz parts cannot hold it" : ".npy/.npz cannot hold it")
      << "; use format json, jsonl or safetensors, or dtype f32 and convert (e.g. torch.from_numpy(a).bfloat16())";
    throw m.usage_error({"dtype", "output_dir", "format"});
  }
  if (dir) {
    if (output.path != "-") throw UsageError("give output_path or output_dir, not both", {"output_path", "output_dir"});
    if (output.format && std::string_view(output.format->name) != "npz") {
      throw UsageError("output_dir writes .npz parts; drop format", {"output_dir", "format"});
    }
    if (given_texts) throw UsageError("output_dir is for input corpora", {"output_dir", "input"});
  } else if (output.resume) {
    throw UsageError("resume continues an output_dir run", {"resume", "output_dir"});
  }
  if (precision && (dir || output.format->traits.binary)) {
    const std::string keeps =
        dir ? std::string("output_dir's .npz parts keep") : "." + std::string(output.format->name) + " keeps";
    throw UsageError("precision rounds floats written as text (json, jsonl); " + keeps + " them exact: drop precision",
                     {"precision", "output_dir"});
  }
  // JSON Lines from a shard_seek shard number lines from the shard's start;
  // only merge, reading the record beside a file, makes them the file's.
  if (shard_seek && !dir && output.format->name == std::string("jsonl") && !output_is_replaced_file(output.path)) {
    throw UsageError(
        "shard_seek numbers JSON Lines from the part's first line, which embedpe merge turns into the "
        "file's from the record it writes beside -o FILE: give -o FILE, or leave out shard_seek",
        {"shard_seek"});
  }
}

std::optional<PartsDirStats> encode_to(const Encoder& encoder, TextSource& source, const EncodeOutput& output,
                                       const EncodeRunOptions& options, bool record_shard) {
  if (!output.output_dir.empty()) {
    return encode_parts(encoder, source,
                        {.output_dir = output.output_dir,
                         .shard_rows = output.shard_rows,
                         .resume = output.resume,
                         .interrupt_note = output.interrupt_note},
                        options);
  }
  if (!output.format) throw UsageError("give format for a file output", {"format"});
  // A shard's output records which part of which input it holds, for merge:
  // inside the file where the format holds it, else in a file beside it that
  // is committed with the output as a pair.
  std::optional<ShardRecorder> record;
  if (record_shard && source.reader()) record.emplace(*source.reader());
  const bool inside = record && output.format->traits.holds_record;
  if (record && !inside) check_shard_record_path(output.path);  // before any work
  if (!record || inside) check_stale_shard_record(output.path);
  pause_for_test("encoder-built");  // the weights mapped, not yet hashed
  // Hashed before the run reads them, so that the record says what was used.
  nlohmann::ordered_json identity = record ? encoder.joinable_config() : nlohmann::ordered_json();
  if (record && options.precision) identity["precision"] = options.precision;  // text's digits: shards must agree
  EncodeRunOptions run = options;
  const std::string format = output.format->name;
  if (inside) run.record = [&] { return record->record(format, identity); };
  // An earlier shard's record beside this path describes another file.
  run.companion = record && !inside ? record->beside(output.path, format, identity)
                                    : without_stale_shard_record(output.path);
  std::unique_ptr<TensorSink> sink = output.format->make(output.path);
  encode(encoder, source, *output.format, *sink, run);
  return std::nullopt;
}

}  // namespace embedpe
