// A pause point for tests that race another process against a run, made
// deterministic. The library only calls a hook here; the hook is defined in
// tests/test_pause_hook.cpp, which is linked into the test programs (the
// unit tests and the tool's test build, embedpe_test_hooks), never into the
// installed library or tool: there `embedpe_test_pause` is a weak symbol
// that no object defines, so it is null and pause_for_test does nothing.
// What the hook does with EMBEDPE_TEST_PAUSE=POINT:FIFO is said beside it.
#pragma once

#include <cstddef>
#include <string_view>

extern "C" void embedpe_test_pause(const char* point, std::size_t size) __attribute__((weak));

namespace embedpe {

inline void pause_for_test(std::string_view point) {
  if (embedpe_test_pause) embedpe_test_pause(point.data(), point.size());
}

}  // namespace embedpe
