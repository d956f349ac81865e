#include "memory.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <limits>
#include <utility>

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

std::size_t checked_sum(std::initializer_list<std::size_t> terms, const std::string& what) {
  std::size_t sum = 0;
  for (std::size_t t : terms) {
    if (t > std::numeric_limits<std::size_t>::max() - sum) {
      throw UsageError(what + " is too large: its size overflows 64 bits; use smaller dimensions");
    }
    sum += t;
  }
  return sum;
}

namespace {
std::size_t address_space_limit() {
  struct rlimit r;
  if (::getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return 0;
  return static_cast<std::size_t>(r.rlim_cur);
}
}  // namespace

std::size_t memory_budget_bytes() {
  const std::size_t ram = physical_memory_bytes(), as = address_space_limit();
  if (ram == 0) return as;
  return as != 0 && as < ram ? as : ram;
}

void check_allocation(std::size_t bytes, const std::string& what) {
  check_allocation(bytes, what, "lower seq_len or d_model, or encode fewer lines at a time", {"seq_len", "d_model"});
}

void check_allocation(std::size_t bytes, const std::string& what, const std::string& hint,
                      std::vector<std::string> parameters, bool what_is_text) {
  check_allocation(bytes, what, Message() << hint, std::move(parameters), what_is_text);
}

void check_allocation(std::size_t bytes, const std::string& what, const Message& hint,
                      std::vector<std::string> parameters, bool what_is_text) {
  const std::size_t ram = physical_memory_bytes(), as = address_space_limit();
  const bool by_limit = as != 0 && (ram == 0 || as < ram);
  const std::size_t limit = by_limit ? as : ram;
  if (limit != 0 && bytes > limit) {
    char text[200];
    std::snprintf(text, sizeof text, " would need %.1f GiB but %s %.1f GiB",
                  static_cast<double>(bytes) / 1073741824.0,
                  by_limit ? "the address-space limit (ulimit -v) is" : "this machine has",
                  static_cast<double>(limit) / 1073741824.0);
    Message m;
    if (what_is_text) {
      m << Verbatim{what};
    } else {
      m << what;
    }
    m << text << "; " << hint;
    throw m.usage_error(std::move(parameters));
  }
}

}  // namespace embedpe
