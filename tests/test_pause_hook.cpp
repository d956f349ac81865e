// The test programs' definition of lib/src/core/test_pause.h's hook: with
// EMBEDPE_TEST_PAUSE=POINT:FIFO in the environment, a run reaching
// pause_for_test("POINT") opens FIFO for writing (blocking until the test
// opens it to read), closes it, then opens it for reading (blocking until the
// test, done with what it does meanwhile, opens it to write). Without the
// variable it does nothing.
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <string_view>

extern "C" void embedpe_test_pause(const char* point_data, std::size_t point_size) {
  const std::string_view point(point_data, point_size);
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
