// --format npz: every tensor of the whole input as NAME.npy in one
// uncompressed zip (tensor_io.h); tables likewise, without their members.
#include "embedpe/tensor_io.h"
#include "sinks/file_sink.h"

namespace embedpe {
namespace {

class NpzSink : public FileSink {
 public:
  using FileSink::FileSink;

  void add(const SinkBatch& b) override {
    only_once();
    write_npz(out(), b.tensors);
  }

  void add_tables(const SinkTables& t) override {
    only_once();
    write_npz(out(), t.tensors);
  }
};

}  // namespace

const SinkFormat& npz_sink_format() {
  static const SinkFormat f{"npz", {".npz"}, {.whole_input = true, .binary = true, .bfloat16 = false, .max_bytes = kMaxNpzBytes},
                            [](const std::string& path) { return std::make_unique<NpzSink>(path); }};
  return f;
}

}  // namespace embedpe
