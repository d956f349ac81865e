// An output that appears whole or not at all.
//
//   embedpe::OutputFile out("batch.npz");   // or "-" for standard output
//   out.write(bytes);
//   out.commit();                            // renames the temporary into place
//
// A file path is written to a temporary file in the same directory and
// renamed over the target on commit(), so an error (or an exception that
// skips commit()) never leaves a partial file at the target path: the
// destructor removes the temporary. Write errors (a full disk, /dev/full, a
// closed pipe) throw embedpe::Error naming the output.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "embedpe/error.h"

namespace embedpe {

class OutputFile {
 public:
  explicit OutputFile(std::string path);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  void write(const void* data, std::size_t size);
  void write(std::string_view text) { write(text.data(), text.size()); }
  // Overwrites bytes already written (e.g. a header completed at the end).
  // Only for files: throws UsageError for standard output.
  void rewrite(std::size_t offset, std::string_view bytes);
  // Whether rewrite() works: a file path, not standard output or a device.
  bool can_rewrite() const { return !temp_path_.empty(); }
  void commit();

  const std::string& path() const { return path_; }
  bool is_stdout() const { return path_ == "-"; }

 private:
  void flush();
  void write_fd(const char* data, std::size_t size);

  std::string path_;
  std::string temp_path_;  // empty for stdout
  int fd_ = -1;
  std::vector<char> buffer_;
  std::size_t used_ = 0;
  bool committed_ = false;
};

// Writing to a pipe whose reader has gone (`embedpe ... | head -1`): not an
// error to report; main() ends the process quietly, as SIGPIPE would.
class BrokenPipe : public Error {
 public:
  BrokenPipe() : Error("broken pipe") {}
};

// The temporary file currently being written, or nullptr; a signal handler
// may unlink it (see app/main.cpp).
const char* active_temporary_path() noexcept;

}  // namespace embedpe
