// What a shard's record (shard_record.cpp) and merge (merge.cpp) share:
// the record's version, "K/N", and CRC-32 as text. Private to the library.
#pragma once

#include <cstddef>
#include <string>

namespace embedpe {

inline constexpr int kShardRecordVersion = 1;

// "K/N": the one spelling of a shard, in records, manifests and messages.
std::string shard_label(std::size_t index, std::size_t count);

// CRC-32 (zlib's) as 8 hex digits. An output is hundreds of times its
// input's size (a token becomes d_model floats), so its integrity check must
// cost little next to writing it: CRC-32 runs at memory speed where SHA-256
// took 4 times the whole encode (docs/SCALING.md). Which input and config a
// shard holds is established by the SHA-256s and the config.
std::string crc32_hex(unsigned long crc);

// The last component of a path.
std::string base_name(const std::string& path);

}  // namespace embedpe
