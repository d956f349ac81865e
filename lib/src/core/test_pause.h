// A pause point for tests that race another process against a run, made
// deterministic: with EMBEDPE_TEST_PAUSE=POINT:FIFO in the environment, a run
// reaching pause_for_test("POINT") opens FIFO for writing (blocking until the
// test opens it to read), closes it, then opens it for reading (blocking until
// the test, done with what it does meanwhile, opens it to write). Without the
// variable (any normal run) it does nothing. Only the tests set it.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string_view>

namespace embedpe {

inline void pause_for_test(std::string_view point) {
  const char* spec = std::getenv("EMBEDPE_TEST_PAUSE");
  if (!spec) return;
  const std::string_view s(spec);
  if (s.size() <= point.size() + 1 || s.substr(0, point.size()) != point || s[point.size()] != ':') return;
  const char* fifo = spec + point.size() + 1;
  for (int flags : {O_WRONLY, O_RDONLY}) {
    const int fd = ::open(fifo, flags | O_CLOEXEC);
    if (fd >= 0) ::close(fd);
  }
}

}  // namespace embedpe
