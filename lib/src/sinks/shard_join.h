// Joining the shards of one run into one file (embedpe merge): what merge
// (pipeline/merge.cpp) hands a format's SinkFormat::join once it has checked
// that the shards are one run's, in order, and that each file is the one its
// record describes. A format that merge can write defines its join beside its
// sink, in src/sinks/NAME_sink.cpp; merge names no format itself.
//
//   ShardJoin j{.files = {...}, .config = config};
//   const std::size_t rows = format.join(out, j);  // the output not yet committed
//
// Joined files are byte-identical to one run's over the whole input.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "embedpe/dtype.h"
#include "embedpe/output_file.h"

namespace embedpe {

// One file of a shard: the shard's output, or one part of an output_dir shard.
struct ShardFile {
  std::string shard;                // the shard as given, for messages
  std::string path;
  std::size_t bytes = 0;            // its recorded size
  std::optional<std::size_t> rows;  // a part's, from its manifest
  // Line numbers (formats that record them): a shard_seek shard counts its
  // own lines from 1, to be raised by line_offset; `lines` is how many it read.
  bool own_lines = false;
  std::size_t line_offset = 0, lines = 0;
  bool skip_empty = false;
  // The whole file once, in order, each chunk to use(offset, bytes). Throws
  // if the bytes are not those merge checked (the file replaced since).
  std::function<void(const std::function<void(std::size_t, std::string_view)>&)> read;
  // A look at the whole file before it is read (headers, sizes): unchecked,
  // so what is written must come from read.
  std::function<void(const std::function<void(std::string_view)>&)> peek;
};

struct ShardJoin {
  std::vector<ShardFile> files;   // in order
  bool parts = false;             // the files are output_dir parts (.npz), not the format's own files
  nlohmann::ordered_json config;  // the run's, from the first shard's record (parts: their manifest)
};

// "shard SHARD: WHY", as an Error.
[[noreturn]] void refuse_shard(const std::string& shard, const std::string& why);

// Tensors with one row per position, the same in every shard (SinkRun::per_position).
bool per_position_tensor(const std::string& name);

// A .npy's header and the layout of its data, checked against its size.
struct NpyLayout {
  DType dtype = DType::float32;
  std::vector<std::size_t> shape;
  std::size_t data_offset = 0, data_bytes = 0;
};
NpyLayout npy_layout(std::string_view npy, std::size_t file_bytes, const std::string& shard);

// Whether two shapes hold rows of one shape (all but the first dimension).
bool same_rows(const std::vector<std::size_t>& a, const std::vector<std::size_t>& b);
[[noreturn]] void refuse_shape(const std::string& shard, const std::string& piece, const std::string& tensor,
                               const std::string& other);

// The .npy bytes of member `name` of the .npz `file`: a view where the
// member is stored (as embedpe writes), else inflated into `keep`. nullopt
// if it has no such member.
std::optional<std::string_view> npz_member(std::string_view file, const std::string& path, const std::string& name,
                                           std::string& keep);

// The whole file, read (and checked) through ShardFile::read.
std::string read_whole(const ShardFile& f);

}  // namespace embedpe
