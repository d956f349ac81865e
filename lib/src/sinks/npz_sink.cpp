// --format npz: every tensor of the whole input as NAME.npy in one
// uncompressed zip (tensor_io.h), then the run's config as JSON in the text
// member "config" (a 0-d unicode array: numpy.load reads it without
// allow_pickle) and a shard's record in "shard" (SinkRun::record); tables
// likewise, with each of their members ("config", ...) as JSON text.
// merge: .npz shards, or output_dir shards' parts, into one .npz.
#include <map>

#include "embedpe/error.h"
#include "embedpe/tensor_io.h"
#include "sinks/file_sink.h"
#include "sinks/shard_join.h"

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

// Shards or parts into one .npz: the whole output in memory, as one run
// holds it. The merged file holds the config one run's holds: for parts
// (which hold none) their manifest's, else the first shard's "config"
// member; no shard's record.
std::size_t join_npz(OutputFile& out, const ShardJoin& j) {
  std::optional<std::string> config;
  if (j.parts) config = j.config.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  struct Tensor {
    std::string name;
    NpyLayout layout;
    std::string data;
    std::string first;     // the piece (file or part) that set its shape
    std::size_t rows = 0;  // sequences so far
  };
  std::vector<Tensor> tensors;
  std::vector<std::string> names;
  std::size_t all_rows = 0;
  // Each tensor's bytes in all, at most: reserved once, not grown by doubling
  // (for a gigabyte that doubled the merge's time in copies and page faults).
  std::map<std::string, std::size_t> capacity;
  for (const ShardFile& f : j.files) {
    f.peek([&](std::string_view file) {
      for (const NpzEntry& e : npz_entries(file, f.path)) capacity[e.name] += e.size;
    });
  }
  for (const ShardFile& f : j.files) {
    const std::string& shard = f.shard;
    const std::string& path = f.path;
    const std::string file = read_whole(f);
    struct Member {
      std::string name;
      std::string_view npy;
    };
    std::vector<Member> members;
    std::vector<std::string> these;
    const std::vector<NpzEntry> entries = npz_entries(file, path);
    std::vector<std::string> keep(entries.size());  // inflated members, if any
    for (std::size_t k = 0; k < entries.size(); ++k) {
      const std::string_view npy = npz_member(file, path, entries[k].name, keep[k]).value();
      // Text is what a file says about itself, not rows: its config (kept
      // once) and a shard's record (which one run's file does not hold).
      if (npy_holds_text(npy, path + " member " + entries[k].name + ".npy")) {
        if (entries[k].name == "config" && !config) config = npy_text(npy, path + " member config.npy");
        continue;
      }
      members.push_back({entries[k].name, npy});
      these.push_back(entries[k].name);
    }
    if (names.empty() && tensors.empty()) {
      names = these;
      for (const Member& m : members) tensors.push_back({m.name, {}, {}, "", 0});
    } else if (these != names) {
      refuse_shard(shard, path + " holds other tensors than the first shard's");
    }
    // Rows of this piece: those of its first per-row tensor.
    std::size_t rows = 0;
    std::vector<NpyLayout> layouts;
    for (const Member& m : members) {
      layouts.push_back(npy_layout(m.npy, m.npy.size(), shard));
      if (!per_position_tensor(m.name)) rows = layouts.back().shape[0];
    }
    bool empty_so_far = true;  // every piece before this one had zero rows
    for (const Tensor& t : tensors) empty_so_far = empty_so_far && (t.first.empty() || t.rows == 0);
    for (std::size_t k = 0; k < members.size(); ++k) {
      Tensor& t = tensors[k];
      const NpyLayout& l = layouts[k];
      const std::string_view data = std::string_view(members[k].npy).substr(l.data_offset, l.data_bytes);
      if (empty_so_far) {  // the first piece with rows (or the first piece) sets the shapes
        if (t.first.empty() || rows > 0) {
          t.layout = l;
          t.first = path;
          t.rows = rows;
          if (!per_position_tensor(t.name)) t.data.reserve(capacity[t.name]);
          t.data.assign(data);
        }
        continue;
      }
      if (rows == 0) continue;  // an empty shard adds nothing
      if (per_position_tensor(t.name)) {
        if (l.shape != t.layout.shape || l.dtype != t.layout.dtype || data != t.data)
          refuse_shape(shard, path, t.name, t.first);
        continue;
      }
      if (!same_rows(l.shape, t.layout.shape) || l.dtype != t.layout.dtype) refuse_shape(shard, path, t.name, t.first);
      t.layout.shape[0] += l.shape[0];
      t.rows += rows;
      t.data.append(data);
    }
    all_rows += rows;
  }
  std::vector<TensorRef> refs;
  for (const Tensor& t : tensors) refs.push_back({t.name, t.layout.dtype, t.layout.shape, t.data.data()});
  std::vector<NpzText> texts;
  if (config) texts.push_back({"config", *config});
  write_npz(out, refs, texts);
  return all_rows;
}

// The record a shard's .npz holds as its "shard" member, once every member
// has its CRC-32 (the zip's): no checksum of the whole file is recorded
// inside it, and merge checks that what it copies is these very bytes.
std::optional<std::string> npz_record(std::string_view file, const std::string& path) {
  std::string keep;
  std::optional<std::string_view> member;
  try {
    member = npz_member(file, path, "shard", keep);
  } catch (const Error&) {
    return std::nullopt;  // not an .npz at all: merge says the record is missing
  }
  if (!member) return std::nullopt;
  for (const NpzEntry& e : npz_entries(file, path)) {
    try {
      check_npz_entry(e, path);
    } catch (const Error&) {
      refuse_shard(path, "its member " + e.name + ".npy is corrupt (CRC-32 mismatch); run that shard again");
    }
  }
  return npy_text(*member, path + " member shard.npy");
}

}  // namespace

const SinkFormat& npz_sink_format() {
  static const SinkFormat f{"npz", {".npz"}, {.whole_input = true, .binary = true, .bfloat16 = false, .max_bytes = kMaxNpzBytes, .holds_record = true, .joins_parts = true},
                            [](const std::string& path) { return std::make_unique<NpzSink>(path); }, join_npz, npz_record};
  return f;
}

}  // namespace embedpe
