// Catching a library error whole, to look at its message and the parameters
// it names (embedpe/error.h), not only at a substring of what().
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "embedpe/error.h"

namespace test {

struct Caught {
  std::string message;
  std::vector<std::string> parameters;
  int exit_code = 0;
};

// What `f` throws; a failed check (and an empty Caught) if it throws no
// embedpe::Error.
template <class F>
Caught caught(F&& f) {
  try {
    f();
  } catch (const embedpe::Error& e) {
    return {e.what(), e.parameters(), e.exit_code()};
  }
  FAIL_CHECK("no embedpe::Error thrown");
  return {};
}

}  // namespace test
