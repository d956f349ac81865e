// Shape arithmetic that cannot overflow silently, and a guard that refuses
// allocations the machine cannot hold before they are attempted.
//
//   std::size_t n = embedpe::checked_product({batch, seq_len, d_model}, "output");
//   embedpe::check_allocation(n * sizeof(float), "output");
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <vector>

#include "embedpe/message.h"

namespace embedpe {

// The product of `dims`; throws UsageError naming `what` if it overflows.
std::size_t checked_product(std::initializer_list<std::size_t> dims, const std::string& what);

// Physical memory of this machine in bytes (0 if unknown).
std::size_t physical_memory_bytes();

// What this process may hold: physical memory, or the address-space limit
// (ulimit -v, RLIMIT_AS) when that is lower. 0 if unknown.
std::size_t memory_budget_bytes();

// Throws UsageError if `bytes` exceeds memory_budget_bytes(), saying how much
// was asked for and `hint` (what to lower), so that an absurd option fails at
// once instead of swapping or being killed. `parameters` are those the hint
// names (embedpe/error.h): "lower d_model" with {"d_model"}. With
// `what_is_text`, `what` is a description whose words are not parameters
// ("... at d_model 512"): a front end respells only the hint.
void check_allocation(std::size_t bytes, const std::string& what, const std::string& hint,
                      std::vector<std::string> parameters = {}, bool what_is_text = false);
// The same with a hint that holds words of its own (message.h's Verbatim).
void check_allocation(std::size_t bytes, const std::string& what, const Message& hint,
                      std::vector<std::string> parameters, bool what_is_text = false);
// The same with the input layer's hint: lower seq_len or d_model, or encode
// fewer lines at a time.
void check_allocation(std::size_t bytes, const std::string& what);

// a + b, or a UsageError naming `what` if it overflows.
std::size_t checked_sum(std::initializer_list<std::size_t> terms, const std::string& what);

}  // namespace embedpe
