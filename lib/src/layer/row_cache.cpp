#include "row_cache.h"

namespace embedpe {

RowCache::RowCache(std::size_t rows, std::size_t width, std::size_t limit_bytes, std::size_t huge_page_limit)
    : width_(width) {
  if (rows == 0 || width == 0 || width > limit_bytes / sizeof(float) / rows) return;
  block_ = MappedBlock(rows * width * sizeof(float) + rows, huge_page_limit);
  if (!block_) return;  // no cache: rows are computed each time
  cache_ = static_cast<float*>(block_.data());
  state_ = static_cast<std::uint8_t*>(block_.data()) + rows * width * sizeof(float);  // zero pages: all empty
}

}  // namespace embedpe
