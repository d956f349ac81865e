// --format json: one document with the run's config, the tensors' shapes and
// dtypes, the tokens, then each tensor as nested arrays (json_writer.h).
// Tables (pe's) are their members, then their tensors.
#include "json_writer.h"
#include "sinks/file_sink.h"

namespace embedpe {
namespace {

class JsonSink : public FileSink {
 public:
  using FileSink::FileSink;

  void add(const SinkBatch& b) override {
    only_once();
    nlohmann::ordered_json shapes = nlohmann::ordered_json::object(), dtypes = nlohmann::ordered_json::object();
    for (const TensorRef& t : b.tensors) {
      shapes[t.name] = t.shape;
      dtypes[t.name] = dtype_name(t.dtype);
    }
    write_json(out(),
               {{"config", config_with_rows(b.batch)}, {"shapes", shapes}, {"dtypes", dtypes}, {"tokens", b.batch.pieces}},
               b.tensors, run().threads, run().precision);
  }

  void add_tables(const SinkTables& t) override {
    only_once();
    write_json(out(), t.members, t.tensors, run().threads, run().precision);
  }
};

}  // namespace

const SinkFormat& json_sink_format() {
  static const SinkFormat f{"json", {".json"}, {.whole_input = true},
                            [](const std::string& path) { return std::make_unique<JsonSink>(path); }};
  return f;
}

}  // namespace embedpe
