// Columns [first, first + count) of rows of d_model values: the columns a
// report or a PE view shows (lookup --dims, pe --dims).
//
//   embedpe::check_dims({.first = 4, .count = 8}, 64);  // fine
//   embedpe::dims_text({4, 8});                         // "4:12"
#pragma once

#include <cstddef>
#include <string>

namespace embedpe {

struct Dims {
  std::size_t first = 0, count = 0;
};

// UsageError naming parameter `dims` if they go beyond d_model.
void check_dims(Dims dims, std::size_t d_model);

// "first:end", end excluded, as the command line writes a span.
std::string dims_text(Dims dims);

}  // namespace embedpe
