// --format npz: every tensor of the whole input as NAME.npy in one
// uncompressed zip (tensor_io.h), then the run's config as JSON in the text
// member "config" (a 0-d unicode array: numpy.load reads it without
// allow_pickle) and a shard's record in "shard" (SinkRun::record); tables
// likewise, with each of their members ("config", ...) as JSON text.
#include "embedpe/tensor_io.h"
#include "sinks/file_sink.h"

namespace embedpe {
namespace {

class NpzSink : public FileSink {
 public:
  using FileSink::FileSink;

  void add(const SinkBatch& b) override {
    only_once();
    // The run's config (the rows are the tensors' to count), and a shard's record.
    std::vector<NpzText> texts = {{"config", json_text(run().config)}};
    if (const std::optional<std::string> record = record_text()) texts.push_back({"shard", *record});
    write_npz(out(), b.tensors, texts);
  }

  void add_tables(const SinkTables& t) override {
    only_once();
    std::vector<NpzText> texts;
    for (const auto& [key, value] : t.members.items()) texts.push_back({key, json_text(value)});
    write_npz(out(), t.tensors, texts);
  }

 private:
  static std::string json_text(const nlohmann::ordered_json& value) {
    return value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  }
};

}  // namespace

const SinkFormat& npz_sink_format() {
  static const SinkFormat f{"npz", {".npz"}, {.whole_input = true, .binary = true, .bfloat16 = false, .max_bytes = kMaxNpzBytes, .holds_record = true},
                            [](const std::string& path) { return std::make_unique<NpzSink>(path); }};
  return f;
}

}  // namespace embedpe
