#include "mapped_block.h"

#include <sys/mman.h>

#include <cstdint>
#include <utility>

namespace embedpe {

void advise_huge_pages(void* p, std::size_t bytes) {
#ifdef MADV_HUGEPAGE
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  if (bytes < MappedBlock::kHugePage || begin + bytes < begin) return;
  const std::uintptr_t first = (begin + MappedBlock::kHugePage - 1) / MappedBlock::kHugePage * MappedBlock::kHugePage;
  const std::uintptr_t last = (begin + bytes) / MappedBlock::kHugePage * MappedBlock::kHugePage;
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

MappedBlock::MappedBlock(std::size_t bytes, std::size_t huge_up_to) {
  if (bytes == 0) return;
  const bool huge = bytes <= huge_up_to;
  // A huge block is rounded up to whole huge pages and placed on a 2 MiB
  // boundary: reserve one huge page more, then give back the ends.
  const std::size_t size = huge ? (bytes + kHugePage - 1) / kHugePage * kHugePage : bytes;
  const std::size_t reserve = huge ? size + kHugePage : size;
  if (reserve < size) return;
  void* p = ::mmap(nullptr, reserve, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return;
  char* start = static_cast<char*>(p);
  if (huge) {
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    start += (kHugePage - at % kHugePage) % kHugePage;
    if (start > static_cast<char*>(p)) ::munmap(p, static_cast<std::size_t>(start - static_cast<char*>(p)));
    char* end = start + size;
    char* reserved_end = static_cast<char*>(p) + reserve;
    if (reserved_end > end) ::munmap(end, static_cast<std::size_t>(reserved_end - end));
#ifdef MADV_HUGEPAGE
    ::madvise(start, size, MADV_HUGEPAGE);
#endif
  }
  data_ = start;
  size_ = size;
}

MappedBlock::MappedBlock(MappedBlock&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

MappedBlock& MappedBlock::operator=(MappedBlock&& other) noexcept {
  if (this != &other) {
    if (data_) ::munmap(data_, size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

MappedBlock::~MappedBlock() {
  if (data_) ::munmap(data_, size_);
}

}  // namespace embedpe
