// What a shard's record (shard_record.cpp) and merge (merge.cpp) share:
// the record's version, "K/N", and CRC-32 as text. Private to the library.
#pragma once

#include <cstddef>
#include <string>

namespace embedpe {

inline constexpr int kShardRecordVersion = 1;

// "K/N": the one spelling of a shard, in records, manifests and messages.
std::string shard_label(std::size_t index, std::size_t count);

// The last component of a path.
std::string base_name(const std::string& path);

}  // namespace embedpe
