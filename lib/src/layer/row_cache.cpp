#include "row_cache.h"

#include <sys/mman.h>

namespace embedpe {

RowCache::RowCache(std::size_t rows, std::size_t width, std::size_t limit_bytes, std::size_t huge_page_limit)
    : width_(width) {
  if (rows == 0 || width == 0 || width > limit_bytes / sizeof(float) / rows) return;
  const std::size_t bytes = rows * width * sizeof(float) + rows;
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return;  // no cache: rows are computed each time
#ifdef MADV_HUGEPAGE
  if (bytes <= huge_page_limit) ::madvise(p, bytes, MADV_HUGEPAGE);
#else
  (void)huge_page_limit;
#endif
  mapping_ = p;
  mapping_bytes_ = bytes;
  cache_ = static_cast<float*>(p);
  state_ = static_cast<std::uint8_t*>(p) + rows * width * sizeof(float);  // zero pages: all empty
}

RowCache::~RowCache() {
  if (mapping_) ::munmap(mapping_, mapping_bytes_);
}

}  // namespace embedpe
