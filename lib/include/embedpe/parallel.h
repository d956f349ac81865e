// Splitting independent work over threads.
//
//   embedpe::parallel_for(rows, threads, [&](std::size_t begin, std::size_t end) {
//     for (std::size_t r = begin; r < end; ++r) work(r);
//   });
//
// [0, n) is cut into at most `threads` contiguous chunks, each run on its own
// thread (the first on the caller's). Results must not depend on the split:
// every caller here writes disjoint rows, so outputs are identical for any
// thread count. If chunks throw, the exception of the earliest chunk is
// rethrown, so errors are reported the same way too.
#pragma once

#include <cstddef>
#include <functional>

namespace embedpe {

void parallel_for(std::size_t n, std::size_t threads, const std::function<void(std::size_t, std::size_t)>& fn);

// The cores this process may run on.
std::size_t available_cores();

}  // namespace embedpe
