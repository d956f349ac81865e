// libFuzzer target: reading corpora — lines and JSONL records, UTF-8 checks,
// BOM/CRLF handling, shards, the line-length limit — through the streaming
// LineReader. Beyond "no crash": only valid text gets through, and the raw
// bytes the reader reports consuming are exactly the file (all shards
// together), so per-part input hashes (--output-dir) cover every byte.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

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
  if (mode & 0x40) options.max_line_bytes = 1 + (mode >> 7) * 15;  // 1 or 16 bytes
  const std::string_view file(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string raw;  // every shard's raw bytes, in order
  bool complete = true;
  for (std::size_t k = 1; k <= options.shard_count; ++k) {
    options.shard_index = k;
    try {
      embedpe::LineReader reader({path}, options);
      reader.set_raw_sink([&](std::size_t, std::string_view bytes) { raw.append(bytes); });
      std::size_t total = 0;
      for (auto batch = reader.next(3); !batch.empty(); batch = reader.next(3)) {
        for (const auto& line : batch) {
          if (embedpe::find_invalid_utf8(line.text)) __builtin_trap();  // only valid text gets through
          if (options.format == embedpe::InputFormat::lines && line.text.size() > options.max_line_bytes) {
            __builtin_trap();
          }
          total += line.text.size();
        }
      }
      if (total > size) __builtin_trap();
    } catch (const embedpe::Error&) {
      complete = false;
    }
  }
  if (complete && raw != file) __builtin_trap();  // the shards cover the file, each byte once
  ::close(fd);
  return 0;
}
