#include "embedpe/memory.h"

#include <unistd.h>

#include <cstdio>
#include <limits>

#include "embedpe/error.h"

namespace embedpe {

std::size_t checked_product(std::initializer_list<std::size_t> dims, const std::string& what) {
  std::size_t product = 1;
  for (std::size_t d : dims) {
    if (d != 0 && product > std::numeric_limits<std::size_t>::max() / d) {
      throw UsageError(what + " is too large: its size overflows 64 bits; use smaller dimensions");
    }
    product *= d;
  }
  return product;
}

std::size_t physical_memory_bytes() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<std::size_t>(pages) * static_cast<std::size_t>(page);
}

void check_allocation(std::size_t bytes, const std::string& what) {
  std::size_t limit = physical_memory_bytes();
  if (limit != 0 && bytes > limit) {
    char text[160];
    std::snprintf(text, sizeof text, " would need %.1f GiB but this machine has %.1f GiB",
                  static_cast<double>(bytes) / 1073741824.0, static_cast<double>(limit) / 1073741824.0);
    throw UsageError(what + text + "; lower --seq-len or --d-model, or encode fewer lines at a time");
  }
}

}  // namespace embedpe
