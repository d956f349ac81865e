// --format safetensors: every emitted tensor of the whole input in one file
// laid out as the safetensors format specifies (github.com/huggingface/safetensors):
// an 8-byte little-endian header length, then a JSON header
//
//   {"__metadata__": {"config": "<the run's config as JSON text>"},
//    "input_ids": {"dtype": "I64", "shape": [2, 7], "data_offsets": [0, 112]}, ...}
//
// padded with spaces to a multiple of 8 bytes, then the tensors' bytes back
// to back in emit order (offsets count from the end of the header).
// Metadata values must be strings, so the config (the JSON output's
// "config": model, layer, dtype, emit, plus sequences and truncated) is
// stored as one JSON text under "config" (tables: each of their members as
// JSON text under its name). A shard's record (SinkRun::record) is JSON text
// under "shard". bfloat16 is written as BF16.
#include <cstdint>

#include "sinks/file_sink.h"

namespace embedpe {
namespace {

class SafetensorsSink : public FileSink {
 public:
  using FileSink::FileSink;

  void add(const SinkBatch& b) override {
    only_once();
    nlohmann::ordered_json metadata = {{"config", config_with_rows(b.batch).dump()}};
    if (const std::optional<std::string> record = record_text()) metadata["shard"] = *record;
    write(metadata, b.tensors);
  }

  // Each member as JSON text: a table's config, and what else describes it
  // (pe's positions).
  void add_tables(const SinkTables& t) override {
    only_once();
    nlohmann::ordered_json metadata = nlohmann::ordered_json::object();
    for (const auto& [key, value] : t.members.items()) metadata[key] = value.dump();
    write(metadata, t.tensors);
  }

 private:
  void write(const nlohmann::ordered_json& metadata, const std::vector<TensorRef>& tensors) {
    nlohmann::ordered_json header = {{"__metadata__", metadata}};
    std::size_t offset = 0;
    for (const TensorRef& t : tensors) {
      header[t.name] = {{"dtype", dtype_info(t.dtype).safetensors},
                        {"shape", t.shape},
                        {"data_offsets", {offset, offset + t.bytes()}}};
      offset += t.bytes();
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');  // keeps the data 8-byte aligned
    std::string length(8, '\0');
    for (std::size_t i = 0; i < 8; ++i) length[i] = static_cast<char>((std::uint64_t(text.size()) >> (8 * i)) & 0xFF);
    out().write(length);
    out().write(text);
    for (const TensorRef& t : tensors) out().write(t.data, t.bytes());
  }
};

}  // namespace

const SinkFormat& safetensors_sink_format() {
  static const SinkFormat f{"safetensors", {".safetensors"}, {.whole_input = true, .binary = true, .holds_record = true},
                            [](const std::string& path) { return std::make_unique<SafetensorsSink>(path); }};
  return f;
}

}  // namespace embedpe
