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
// merge: .safetensors shards into one file, as one run over the whole input
// writes it (its config's "sequences" and "truncated" summed).

#include <cstdint>
#include <cstdio>

#include "crc32.h"
#include "embedpe/error.h"
#include "sinks/file_sink.h"
#include "sinks/shard_join.h"

namespace embedpe {
namespace {

// CRC-32 (zlib's) of the tensors' bytes in order, as 8 hex digits: a shard's
// metadata holds it beside its record, as an .npz's members hold theirs.
std::string data_crc32(const std::vector<TensorRef>& tensors) {
  Crc32 crc;
  for (const TensorRef& t : tensors) crc.add(t.data, t.bytes());
  return crc.hex();
}

void write_safetensors(OutputFile& out, const nlohmann::ordered_json& metadata, const std::vector<TensorRef>& tensors) {
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
  out.write(length);
  out.write(text);
  for (const TensorRef& t : tensors) out.write(t.data, t.bytes());
}

class SafetensorsSink : public FileSink {
 public:
  using FileSink::FileSink;

  void add(const SinkBatch& b) override {
    only_once();
    nlohmann::ordered_json metadata = {{"config", config_with_rows(b.batch).dump()}};
    if (const std::optional<std::string> record = record_text()) {
      metadata["shard"] = *record;
      metadata["shard_crc32"] = data_crc32(b.tensors);  // what merge checks the tensors by
    }
    write_safetensors(out(), metadata, b.tensors);
  }

  // Each member as JSON text: a table's config, and what else describes it
  // (pe's positions).
  void add_tables(const SinkTables& t) override {
    only_once();
    nlohmann::ordered_json metadata = nlohmann::ordered_json::object();
    for (const auto& [key, value] : t.members.items()) metadata[key] = value.dump();
    write_safetensors(out(), metadata, t.tensors);
  }
};

// A .safetensors file's header and its tensors' bytes (views into `file`).
struct Parsed {
  nlohmann::ordered_json metadata;
  std::vector<TensorRef> tensors;
};

std::optional<Parsed> parse(std::string_view file, const std::string& path, const std::string& shard) {
  if (file.size() < 8) return std::nullopt;
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < 8; ++i) n |= std::uint64_t(static_cast<unsigned char>(file[i])) << (8 * i);
  if (n > file.size() - 8) return std::nullopt;
  nlohmann::ordered_json header;
  try {
    header = nlohmann::ordered_json::parse(file.substr(8, n));
  } catch (const nlohmann::ordered_json::exception&) {
    return std::nullopt;
  }
  if (!header.is_object()) return std::nullopt;
  Parsed p;
  const std::string_view data = file.substr(8 + n);
  for (const auto& [name, t] : header.items()) {
    if (name == "__metadata__") {
      p.metadata = t;
      continue;
    }
    try {
      const std::optional<DType> dtype = dtype_from_safetensors(t.at("dtype").get<std::string>());
      if (!dtype) refuse_shard(shard, path + " holds " + name + " as " + t.at("dtype").get<std::string>() + ", which embedpe does not write");
      TensorRef ref{name, *dtype, t.at("shape").get<std::vector<std::size_t>>(), nullptr};
      const auto offsets = t.at("data_offsets").get<std::vector<std::size_t>>();
      if (ref.shape.empty() || offsets.size() != 2 || offsets[0] > offsets[1] || offsets[1] > data.size() ||
          offsets[1] - offsets[0] != ref.bytes()) {
        refuse_shard(shard, path + "'s header does not match its data (" + name + ")");
      }
      ref.data = data.data() + offsets[0];
      p.tensors.push_back(std::move(ref));
    } catch (const nlohmann::ordered_json::exception&) {
      refuse_shard(shard, path + "'s header is not one embedpe wrote (" + name + ")");
    }
  }
  return p;
}

// The record in a shard's metadata, once its tensors have their CRC-32.
std::optional<std::string> safetensors_record(std::string_view file, const std::string& path) {
  const std::optional<Parsed> p = parse(file, path, path);
  if (!p || !p->metadata.is_object() || !p->metadata.contains("shard") || !p->metadata["shard"].is_string()) {
    return std::nullopt;
  }
  const nlohmann::ordered_json crc = p->metadata.value("shard_crc32", nlohmann::ordered_json());
  if (!crc.is_string()) {
    refuse_shard(path, "its metadata has no CRC-32 of its tensors (shard_crc32: written by an older embedpe, or "
                       "edited); run that shard again");
  }
  if (crc.get<std::string>() != data_crc32(p->tensors)) {
    refuse_shard(path, "its tensors do not have their recorded CRC-32 (corrupt or replaced); run that shard again");
  }
  return p->metadata["shard"].get<std::string>();
}

// Each tensor's rows of every shard in turn (those per position once, the
// same in every shard), under the first shard's config with the rows and
// truncated sequences of all.
std::size_t join_safetensors(OutputFile& out, const ShardJoin& j) {
  std::vector<std::string> files;  // kept: the tensors point into them
  std::vector<Parsed> parsed;
  for (const ShardFile& f : j.files) {
    files.push_back(read_whole(f));
    std::optional<Parsed> p = parse(files.back(), f.path, f.shard);
    if (!p) refuse_shard(f.shard, f.path + " is not a .safetensors file embedpe wrote");
    parsed.push_back(std::move(*p));
  }
  nlohmann::ordered_json config;
  std::size_t rows = 0, truncated = 0;
  std::optional<std::size_t> shaped;  // the first file with rows sets the shapes
  std::vector<std::size_t> file_rows;
  for (std::size_t k = 0; k < parsed.size(); ++k) {
    const ShardFile& f = j.files[k];
    const nlohmann::ordered_json& m = parsed[k].metadata;
    try {
      const nlohmann::ordered_json c = nlohmann::ordered_json::parse(m.at("config").get<std::string>());
      if (k == 0) config = c;
      truncated += c.at("truncated").get<std::size_t>();
    } catch (const nlohmann::ordered_json::exception&) {
      refuse_shard(f.shard, f.path + " holds no config embedpe wrote");
    }
    std::size_t n = 0;
    std::vector<std::string> names;
    for (const TensorRef& t : parsed[k].tensors) {
      names.push_back(t.name);
      if (!per_position_tensor(t.name)) n = t.shape[0];
    }
    std::vector<std::string> first;
    for (const TensorRef& t : parsed[0].tensors) first.push_back(t.name);
    if (names != first) refuse_shard(f.shard, f.path + " holds other tensors than the first shard's");
    file_rows.push_back(n);
    rows += n;
    if (n > 0 && !shaped) shaped = k;
  }
  const std::size_t base = shaped.value_or(0);
  std::vector<std::string> data(parsed[base].tensors.size());
  std::vector<TensorRef> all = parsed[base].tensors;
  for (std::size_t t = 0; t < all.size(); ++t) {
    const TensorRef& model = parsed[base].tensors[t];
    const bool once = per_position_tensor(model.name);
    if (!once) all[t].shape[0] = 0;
    for (std::size_t k = 0; k < parsed.size(); ++k) {
      if (file_rows[k] == 0 && k != base) continue;  // an empty shard adds nothing
      const TensorRef& x = parsed[k].tensors[t];
      const std::string_view bytes(static_cast<const char*>(x.data), x.bytes());
      if (once) {
        if (k == base) {
          data[t].assign(bytes);
        } else if (x.shape != model.shape || x.dtype != model.dtype || bytes != data[t]) {
          refuse_shape(j.files[k].shard, j.files[k].path, x.name, j.files[base].path);
        }
        continue;
      }
      if (!same_rows(x.shape, model.shape) || x.dtype != model.dtype) {
        refuse_shape(j.files[k].shard, j.files[k].path, x.name, j.files[base].path);
      }
      all[t].shape[0] += x.shape[0];
      data[t].append(bytes);
    }
    all[t].data = data[t].data();
  }
  config["sequences"] = rows;
  config["truncated"] = truncated;
  write_safetensors(out, {{"config", config.dump()}}, all);
  return rows;
}

}  // namespace

const SinkFormat& safetensors_sink_format() {
  static const SinkFormat f{"safetensors", {".safetensors"}, {.whole_input = true, .binary = true, .holds_record = true},
                            [](const std::string& path) { return std::make_unique<SafetensorsSink>(path); },
                            join_safetensors, safetensors_record};
  return f;
}

}  // namespace embedpe
