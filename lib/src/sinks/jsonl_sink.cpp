// --format jsonl: one JSON object per input line, written batch by batch.
// Without a fixed seq_len each record has the sequence's own length, padded
// only up to pad_to_multiple_of, so records do not depend on batching.
// Records are rendered on run.threads threads, a few megabytes at a time, and
// written in order.
// merge: JSON Lines shards into one file, each record's "line" numbered as
// the whole input's.
#include <algorithm>

#include "json_writer.h"
#include "embedpe/message.h"
#include "parallel.h"
#include "sinks/file_sink.h"
#include "sinks/shard_join.h"

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

// A JSON Lines shard, its records' "line" raised by its line_offset. A sharded run
// reads one input, so each record starts {"line":N, (no "source").
std::size_t copy_jsonl(OutputFile& out, const ShardFile& f) {
  std::size_t rows = 0;
  if (!f.own_lines) {  // the file's line numbers already
    f.read([&](std::size_t, std::string_view piece) {
      out.write(piece);
      rows += static_cast<std::size_t>(std::count(piece.begin(), piece.end(), '\n'));
    });
    return rows;
  }
  static constexpr std::string_view head = "{\"line\":";
  const std::size_t lines = f.lines;
  std::size_t previous = 0, records = 0;
  auto record = [&](std::string_view r) {
    std::size_t i = head.size(), n = 0;
    while (i < r.size() && i < head.size() + 18 && r[i] >= '0' && r[i] <= '9')
      n = n * 10 + static_cast<std::size_t>(r[i++] - '0');
    if (r.substr(0, head.size()) != head || i == head.size() || i >= r.size() || r[i] != ',') {
      refuse_shard(f.shard, "record " + std::to_string(records + 1) +
                         " does not start {\"line\":N, (not written by embedpe encode --shard)");
    }
    // Its own lines, in order, within the count its record gives.
    if (n <= previous || n > lines) {
      refuse_shard(f.shard, "record " + std::to_string(records + 1) + " is line " + std::to_string(n) + ", after line " +
                         std::to_string(previous) + " of the " + std::to_string(lines) +
                         " its record says it read (corrupt?)");
    }
    previous = n;
    ++records;
    out.write(head);
    out.write(std::to_string(n + f.line_offset));
    out.write(r.substr(i));
    ++rows;
  };
  std::string carry;  // a record cut by a chunk boundary
  f.read([&](std::size_t, std::string_view piece) {
    for (std::size_t at = 0; at < piece.size();) {
      const std::size_t nl = piece.find('\n', at);
      if (nl == std::string_view::npos) {
        carry.append(piece.substr(at));
        break;
      }
      if (carry.empty()) {
        record(piece.substr(at, nl + 1 - at));
      } else {
        carry.append(piece.substr(at, nl + 1 - at));
        record(carry);
        carry.clear();
      }
      at = nl + 1;
    }
  });
  if (!carry.empty()) refuse_shard(f.shard, "its last record has no line end (truncated?)");
  if (!f.skip_empty && records != lines) {
    refuse_shard(f.shard, "it holds " + std::to_string(records) + " records of the " + std::to_string(lines) +
                       " lines its record says it read (corrupt?)");
  }
  return rows;
}

std::size_t join_jsonl(OutputFile& out, const ShardJoin& j) {
  std::size_t rows = 0;
  for (const ShardFile& f : j.files) rows += copy_jsonl(out, f);
  return rows;
}

}  // namespace

const SinkFormat& jsonl_sink_format() {
  static const SinkFormat f{"jsonl", {".jsonl"}, {.streams = true, .tables = false},
                            [](const std::string& path) { return std::make_unique<JsonlSink>(path); }, join_jsonl};
  return f;
}

}  // namespace embedpe
