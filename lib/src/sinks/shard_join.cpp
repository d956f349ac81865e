// What the formats' joins share (shard_join.h).
#include "sinks/shard_join.h"

#include <algorithm>

#include "embedpe/error.h"
#include "embedpe/tensor_io.h"
#include "embedpe/message.h"

namespace embedpe {

void refuse_shard(const std::string& shard, const std::string& why) {
  Message m;
  m << "shard " << Verbatim{shard} << ": " << why;
  throw m.error();
}

bool per_position_tensor(const std::string& name) {
  return name == "positional_encoding" || name == "rope_cos" || name == "rope_sin";
}

namespace {

DType dtype_of(const std::string& descr, const std::string& shard) {
  for (DType d : {DType::float32, DType::float16, DType::float64, DType::int64, DType::int8}) {
    const char* nd = dtype_info(d).numpy_descr;
    if (nd && descr == nd) return d;
  }
  refuse_shard(shard, "it holds dtype " + descr + ", which embedpe does not write");
}

}  // namespace

NpyLayout npy_layout(std::string_view npy, std::size_t file_bytes, const std::string& shard) {
  const NpyHeader h = parse_npy_header(npy, shard);
  if (h.fortran_order || h.shape.empty()) refuse_shard(shard, "its .npy is not C-ordered rows");
  NpyLayout l{dtype_of(h.descr, shard), h.shape, h.data_offset, 0};
  l.data_bytes = TensorRef{"", l.dtype, l.shape, nullptr}.bytes();
  if (l.data_offset + l.data_bytes != file_bytes) refuse_shard(shard, "its .npy's size does not match its header");
  return l;
}

bool same_rows(const std::vector<std::size_t>& a, const std::vector<std::size_t>& b) {
  return a.size() == b.size() && std::equal(a.begin() + 1, a.end(), b.begin() + 1);
}

void refuse_shape(const std::string& shard, const std::string& piece, const std::string& tensor,
                  const std::string& other) {
  refuse_shard(
      shard,
      (piece == shard ? std::string("its ") : piece + "'s ") + tensor + " rows are not shaped as " + other +
          "'s (without a fixed seq_len each shard, and each part, pads to its own longest line): encode with seq_len");
}

std::optional<std::string_view> npz_member(std::string_view file, const std::string& path, const std::string& name,
                                           std::string& keep) {
  for (const NpzEntry& e : npz_entries(file, path)) {
    if (e.name != name) continue;
    if (e.method == 0 && e.data.size() == e.size) return e.data;
    keep = std::move(read_npz(file, path, {name}).at(0).npy);
    return std::string_view(keep);
  }
  return std::nullopt;
}

std::string read_whole(const ShardFile& f) {
  std::string all;
  all.reserve(f.bytes);
  f.read([&](std::size_t, std::string_view bytes) { all.append(bytes); });
  return all;
}

}  // namespace embedpe
