// How many threads work uses when nobody chose a number.
//
//   std::size_t threads = options.threads ? *options.threads : embedpe::default_threads();
#pragma once

#include <cstddef>

namespace embedpe {

// The cores this process may run on, or as many threads as can run when a
// process or memory limit stops the pool short of that; at least 1.
std::size_t default_threads();

}  // namespace embedpe
