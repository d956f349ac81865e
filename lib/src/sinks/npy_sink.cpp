// --format npy: one tensor. Written whole when the input is one batch;
// otherwise streamed batch by batch, its header first written for zero rows
// (padded to the width any row count can take) and completed at the end.
// Tables: their one tensor, without their members.
// merge: .npy shards, or one tensor of output_dir shards' parts, into one .npy.
#include <algorithm>

#include "embedpe/tensor_io.h"
#include "sinks/file_sink.h"
#include "sinks/shard_join.h"

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

// Shards into one .npy, streamed: the header for all rows, then the data of
// each file in turn. Parts are .npz: their one emitted tensor (or "output").
std::size_t join_npy(OutputFile& out, const ShardJoin& j) {
  std::string member;
  if (j.parts) {
    const nlohmann::ordered_json emit = j.config.value("emit", nlohmann::ordered_json::array());
    member = emit.size() == 1 ? emit[0].get<std::string>() : "output";
    if (std::find(emit.begin(), emit.end(), nlohmann::ordered_json(member)) == emit.end()) {
      refuse_shard(j.files.front().shard, "its parts hold no output tensor to write as one .npy; merge into .npz");
    }
  }
  // Pass 1: headers. Zero-row shards (an empty shard) may have any trailing shape.
  std::vector<NpyLayout> layouts;
  std::optional<std::size_t> shaped;
  std::size_t rows = 0;
  for (const ShardFile& f : j.files) {
    f.peek([&](std::string_view file) {
      if (member.empty()) {
        layouts.push_back(npy_layout(file.substr(0, std::min<std::size_t>(file.size(), 1 << 20)), file.size(), f.shard));
      } else {
        std::string keep;
        const std::optional<std::string_view> npy = npz_member(file, f.path, member, keep);
        if (!npy) refuse_shard(f.shard, f.path + " holds no " + member);
        layouts.push_back(npy_layout(*npy, npy->size(), f.shard));
      }
    });
    const NpyLayout& l = layouts.back();
    if (l.shape[0] == 0) continue;
    if (!shaped) {
      shaped = layouts.size() - 1;
    } else if (!same_rows(l.shape, layouts[*shaped].shape) || l.dtype != layouts[*shaped].dtype) {
      refuse_shape(f.shard, f.path, member.empty() ? "tensor" : member, j.files[*shaped].path);
    }
    rows += l.shape[0];
  }
  TensorRef all{"", layouts[shaped.value_or(0)].dtype, layouts[shaped.value_or(0)].shape, nullptr};
  all.shape[0] = rows;
  out.write(npy_header(all));
  // Pass 2: the data, from the bytes whose checksum is verified as they are
  // read (a header that changed since pass 1 fails that check too).
  for (std::size_t k = 0; k < j.files.size(); ++k) {
    const ShardFile& f = j.files[k];
    const std::size_t begin = layouts[k].data_offset, end = begin + layouts[k].data_bytes;
    if (member.empty()) {
      f.read([&](std::size_t at, std::string_view bytes) {
        const std::size_t from = std::clamp(begin, at, at + bytes.size());
        const std::size_t to = std::clamp(end, at, at + bytes.size());
        out.write(bytes.substr(from - at, to - from));
      });
    } else {
      const std::string file = read_whole(f);
      std::string keep;
      const std::optional<std::string_view> npy = npz_member(file, f.path, member, keep);
      if (!npy || npy->size() < end) refuse_shard(f.shard, f.path + " holds no " + member);
      out.write(npy->substr(begin, end - begin));
    }
  }
  return rows;
}

}  // namespace

const SinkFormat& npy_sink_format() {
  static const SinkFormat f{"npy", {".npy"}, {.binary = true, .one_tensor = true, .bfloat16 = false, .joins_parts = true},
                            [](const std::string& path) { return std::make_unique<NpySink>(path); }, join_npy};
  return f;
}

}  // namespace embedpe
