// libFuzzer target: reading corpora — lines and JSONL records, UTF-8 checks,
// BOM/CRLF handling, shards — through the streaming LineReader.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "embedpe/error.h"
#include "embedpe/text_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  // The first byte picks the options; the rest is the file.
  const std::uint8_t mode = data[0];
  const int fd = memfd_create("fuzz-input", 0);
  if (fd < 0) return 0;
  if (::write(fd, data + 1, size - 1) != static_cast<ssize_t>(size - 1)) {
    ::close(fd);
    return 0;
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  embedpe::InputOptions options;
  options.format = (mode & 1) ? embedpe::InputFormat::jsonl : embedpe::InputFormat::lines;
  options.skip_empty = mode & 2;
  options.shard_count = 1 + ((mode >> 2) & 3);
  options.shard_index = 1 + ((mode >> 4) % options.shard_count);
  try {
    embedpe::LineReader reader({path}, options);
    std::size_t total = 0;
    for (auto batch = reader.next(3); !batch.empty(); batch = reader.next(3)) {
      for (const auto& line : batch) {
        if (embedpe::find_invalid_utf8(line.text)) __builtin_trap();  // only valid text gets through
        total += line.text.size();
      }
    }
    if (total > size) __builtin_trap();
  } catch (const embedpe::Error&) {
  }
  ::close(fd);
  return 0;
}
