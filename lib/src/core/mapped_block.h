// Private: a block of zeroed memory from one anonymous mapping, reserved but
// not committed, for caches whose first touches are most of their cost.
//
//   embedpe::MappedBlock block(bytes, embedpe::MappedBlock::kHugeUpTo);
//   if (block) use(block.data());   // else: no memory; do without the cache
//
// A block of at most huge_up_to bytes is asked for transparent huge pages and
// placed on a 2 MiB boundary: one fault per 2 MiB instead of 512, which on a
// VM whose faults cost 10-20 µs each is the difference between 0.3 ms and
// 7 ms for 2 MiB (docs/PERFORMANCE.md). A larger block keeps 4 KiB pages, so
// that a sparse user commits only what it touches.
#pragma once

#include <cstddef>

namespace embedpe {

// Asks for huge pages on the whole 2 MiB-aligned stretches of [p, p + bytes),
// memory not yet touched (a fresh malloc'd buffer, say): its first touches
// then fault once per 2 MiB. A hint: nothing changes where it is not taken.
void advise_huge_pages(void* p, std::size_t bytes);

class MappedBlock {
 public:
  static constexpr std::size_t kHugePage = std::size_t(2) << 20;

  MappedBlock() = default;
  MappedBlock(std::size_t bytes, std::size_t huge_up_to);
  MappedBlock(MappedBlock&& other) noexcept;
  MappedBlock& operator=(MappedBlock&& other) noexcept;
  MappedBlock(const MappedBlock&) = delete;
  MappedBlock& operator=(const MappedBlock&) = delete;
  ~MappedBlock();

  explicit operator bool() const { return data_ != nullptr; }
  void* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace embedpe
