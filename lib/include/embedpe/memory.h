// Shape arithmetic that cannot overflow silently, and a guard that refuses
// allocations the machine cannot hold before they are attempted.
//
//   std::size_t n = embedpe::checked_product({batch, seq_len, d_model}, "output");
//   embedpe::check_allocation(n * sizeof(float), "output");
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>

namespace embedpe {

// The product of `dims`; throws UsageError naming `what` if it overflows.
std::size_t checked_product(std::initializer_list<std::size_t> dims, const std::string& what);

// Physical memory of this machine in bytes (0 if unknown).
std::size_t physical_memory_bytes();

// Throws UsageError if `bytes` exceeds the machine's physical memory, saying
// how much was asked for, so that an absurd option fails at once instead of
// swapping or being killed.
void check_allocation(std::size_t bytes, const std::string& what);

}  // namespace embedpe
