// --format jsonl: one JSON object per input line, written batch by batch.
// Without a fixed seq_len each record has the sequence's own length, padded
// only up to pad_to_multiple_of, so records do not depend on batching.
// Records are rendered on run.threads threads, a few megabytes at a time, and
// written in order.
#include <algorithm>

#include "json_writer.h"
#include "message.h"
#include "parallel.h"
#include "sinks/file_sink.h"

namespace embedpe {
namespace {

class JsonlSink : public FileSink {
 public:
  using FileSink::FileSink;

  void add(const SinkBatch& b) override {
    const Batch& batch = b.batch;
    const std::vector<TensorRef>& tensors = b.tensors;
    auto per_position = [&](const TensorRef& t) {  // (seq_len, d): the same rows for every sequence
      return std::find(run().per_position.begin(), run().per_position.end(), t.name) != run().per_position.end();
    };
    auto render = [&](std::size_t r, std::string& text) {
      const auto [first, len] = batch.own_columns(r, run().seq_len.has_value(), run().pad_to_multiple_of);
      nlohmann::ordered_json head;
      if (!run().sources.empty()) head["source"] = run().sources[b.lines[r].source];
      head["line"] = b.lines[r].line;
      head["tokens"] = batch.pieces[r];
      // A source name need not be UTF-8: invalid bytes become U+FFFD.
      text = head.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
      text.pop_back();  // reopen the object for the tensors
      for (const TensorRef& t : tensors) {
        TensorRef row = t;
        if (per_position(t)) {
          row.shape = {len, t.shape[1]};
        } else {
          std::size_t column = dtype_size(t.dtype);  // bytes of one (b, l)
          for (std::size_t k = 2; k < t.shape.size(); ++k) column *= t.shape[k];
          row.data = static_cast<const char*>(t.data) + (r * t.shape[1] + first) * column;
          row.shape.erase(row.shape.begin());
          row.shape[0] = len;
        }
        text += ",\"" + t.name + "\":";
        try {
          append_tensor_json_line(text, row, run().precision);
        } catch (const Error& e) {  // NaN or infinity: say which record, as its "source" and "line" do
          Message m;
          if (!run().sources.empty()) m << Verbatim{run().sources[b.lines[r].source]} << " ";
          m << "line " << std::to_string(b.lines[r].line) << ": " << e.what();
          throw m.error(e.parameters());
        }
      }
      text += "}\n";
    };
    std::size_t values = 1;  // per record, at most
    for (const TensorRef& t : tensors) {
      values += per_position(t) ? t.elements() : t.elements() / std::max<std::size_t>(1, t.shape[0]);
    }
    constexpr std::size_t kValuesPerThread = std::size_t(1) << 17;  // ~1.5 MB of text
    const std::size_t threads = run().threads;
    const std::size_t round = std::max<std::size_t>(1, threads * kValuesPerThread / values);
    std::vector<std::string> texts(std::min(round, batch.size()));
    for (std::size_t first = 0; first < batch.size(); first += round) {
      const std::size_t n = std::min(round, batch.size() - first);
      parallel_for(n, threads, [&](std::size_t begin, std::size_t end) {
        for (std::size_t k = begin; k < end; ++k) render(first + k, texts[k]);
      });
      for (std::size_t k = 0; k < n; ++k) out().write(texts[k]);
    }
  }
};

}  // namespace

const SinkFormat& jsonl_sink_format() {
  static const SinkFormat f{"jsonl", {".jsonl"}, {.streams = true, .tables = false},
                            [](const std::string& path) { return std::make_unique<JsonlSink>(path); }};
  return f;
}

}  // namespace embedpe
