// --format npy: one tensor. Written whole when the input is one batch;
// otherwise streamed batch by batch, its header first written for zero rows
// (padded to the width any row count can take) and completed at the end.
// Tables: their one tensor, without their members.
#include <algorithm>

#include "embedpe/tensor_io.h"
#include "sinks/file_sink.h"

namespace embedpe {
namespace {

class NpySink : public FileSink {
 public:
  using FileSink::FileSink;

  void add(const SinkBatch& b) override {
    const TensorRef& t = b.tensors.front();
    if (!run().streamed) {
      write_npy(out(), t);
      return;
    }
    if (!proto_) {
      proto_ = t;
      TensorRef widest = t;
      widest.shape[0] = static_cast<std::size_t>(-1);  // as many digits as any count can take
      header_size_ = npy_header(widest).size();
      TensorRef empty = t;
      empty.shape[0] = 0;
      out().write(npy_header(empty, header_size_));
    } else if (!std::equal(t.shape.begin() + 1, t.shape.end(), proto_->shape.begin() + 1, proto_->shape.end())) {
      throw InternalError("streamed batches differ in shape");
    }
    out().write(t.data, t.bytes());
    rows_ += t.shape[0];
  }

  void add_tables(const SinkTables& t) override {
    if (t.tensors.size() != 1) throw InternalError("a .npy holds one tensor, not " + std::to_string(t.tensors.size()));
    write_npy(out(), t.tensors.front());
  }

 private:
  // A .npy over several batches is completed at the end: refuse a target
  // that cannot be gone back to before opening it (a FIFO would block).
  void check(const SinkRun& r) override {
    if (!r.streamed) return;
    const std::string n = std::to_string(r.batch_size);
    if (!r.seq_len) {
      throw UsageError("the input has more than batch_size " + n +
                           " lines: streaming them into one .npy needs a fixed seq_len (or use format jsonl, "
                           "output_dir, or a larger batch_size)",
                       {"batch_size", "seq_len", "format", "output_dir"});
    }
    if (!output_is_replaced_file(path())) {
      throw UsageError("a .npy of more than batch_size " + n + " lines is completed at the end, which " +
                           (path() == "-" ? std::string("standard output") : path()) +
                           " cannot do: give output_path FILE (or use format jsonl, or a larger batch_size)",
                       {"batch_size", "output_path", "format"});
    }
  }

  void complete() override {
    if (!proto_) return;
    TensorRef done = *proto_;
    done.shape[0] = rows_;
    out().rewrite(0, npy_header(done, header_size_));
  }

  std::optional<TensorRef> proto_;  // the first batch's tensor: dtype and row shape
  std::size_t header_size_ = 0;
  std::size_t rows_ = 0;
};

}  // namespace

const SinkFormat& npy_sink_format() {
  static const SinkFormat f{"npy", {".npy"}, {.binary = true, .one_tensor = true, .bfloat16 = false},
                            [](const std::string& path) { return std::make_unique<NpySink>(path); }};
  return f;
}

}  // namespace embedpe
