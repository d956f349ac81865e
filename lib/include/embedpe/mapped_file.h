// A whole input file, memory-mapped read-only: what the weight readers
// (weights.h), the GGUF reader, decode and diff map through.
//
//   embedpe::MappedFile f("model.safetensors");
//   std::string_view bytes = f.bytes();
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace embedpe {

class FileMapping;

// A read-only memory map of a whole file, an input (a regular file, not
// empty; noted so that no output replaces it), mapped by the library's one
// file mapping (src/io/in_file.h).
class MappedFile {
 public:
  explicit MappedFile(const std::string& path);
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();
  std::string_view bytes() const;

 private:
  std::unique_ptr<FileMapping> map_;
};

// The path of the mapped file whose pages hold `address`, or nullptr.
// Async-signal-safe, for a SIGBUS handler: reading a mapping past the end of
// a file that was truncated while mapped raises SIGBUS (see app/main.cpp).
const char* mapped_file_at(const void* address) noexcept;

}  // namespace embedpe
