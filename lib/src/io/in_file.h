// The library's one reader of files it did not just write (shard outputs and
// records, parts, manifests, merge's inputs), with one policy: a FIFO is
// refused, never waited on (O_NONBLOCK); anything but a regular file is
// refused; with Links::refuse, so is a symbolic link (a part or a manifest
// is never one). Each opened file is noted as an input (note_input), so that
// no output replaces it, unless it is Use::own: a file of the run's own that
// it replaces (a parts directory's manifest and parts).
//
//   const InFile f(path);                 // throws an Error naming the file
//   f.each_chunk(0, f.size(), [&](std::string_view piece) { ... });
//   std::string_view all = f.map();       // mapped, not copied
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace embedpe {

// A read-only private mapping of a whole open file: the library's one mmap of
// a file (InFile::map, and mapped_file.h's MappedFile, which decode, diff and the
// weight and GGUF readers map through). While it lives it is listed where
// mapped_file_at() (mapped_file.h) finds it, so that a SIGBUS from a file cut
// short under it names the file.
class FileMapping {
 public:
  FileMapping() = default;
  // Maps `size` (> 0) bytes of `fd`, listed as `name`; empty (errno says why)
  // when mmap fails. `fd` may be closed afterwards.
  FileMapping(int fd, std::size_t size, const std::string& name);
  FileMapping(FileMapping&& other) noexcept;
  FileMapping& operator=(FileMapping&& other) noexcept;
  FileMapping(const FileMapping&) = delete;
  FileMapping& operator=(const FileMapping&) = delete;
  ~FileMapping();

  explicit operator bool() const { return data_ != nullptr; }
  std::string_view bytes() const { return {data_, size_}; }

 private:
  void release() noexcept;
  const char* data_ = nullptr;
  std::size_t size_ = 0;
  int slot_ = -1;  // in the table mapped_file_at() reads; -1 with more mappings than slots
};

class InFile {
 public:
  enum class Links { follow, refuse };
  enum class Use { input, own };
  static constexpr std::size_t kChunk = std::size_t(4) << 20;  // bytes each_chunk reads at a time

  // `shown`: the file's name in messages (default `path`). `not_regular`,
  // if given, throws the caller's own error for a symbolic link (with
  // Links::refuse) or anything that is not a regular file; else the error
  // is "cannot read SHOWN: it is ...".
  explicit InFile(const std::string& path, Links links = Links::follow, std::string shown = "",
                  const std::function<void()>& not_regular = {}, Use use = Use::input);
  // nullopt when nothing is at `path`; otherwise as the constructor.
  static std::optional<InFile> if_exists(const std::string& path, Links links, std::string shown = "",
                                         const std::function<void()>& not_regular = {}, Use use = Use::input);
  InFile(InFile&& other) noexcept;
  InFile(const InFile&) = delete;
  InFile& operator=(const InFile&) = delete;
  InFile& operator=(InFile&&) = delete;
  ~InFile();

  std::size_t size() const { return size_; }
  int fd() const { return fd_; }
  // `n` bytes at `offset`; fewer only at the end of the file.
  std::string read_at(std::size_t offset, std::size_t n) const;
  // Calls `f` with consecutive pieces of [offset, offset + n); the file must hold them.
  template <typename F>
  void each_chunk(std::size_t offset, std::size_t n, F&& f) const {
    for (std::size_t done = 0; done < n;) {
      const std::string piece = read_at(offset + done, n - done < kChunk ? n - done : kChunk);
      if (piece.empty()) fail("it is shorter than it was");
      f(std::string_view(piece));
      done += piece.size();
    }
  }
  // The whole file as it is now (read whole if it grew since it was opened).
  std::string all() const;
  // The whole file, mapped: no copy of a part of hundreds of megabytes.
  std::string_view map() const;

  [[noreturn]] void fail(const std::string& why) const;

 private:
  struct Missing {};
  InFile(const std::string& path, Links links, std::string shown, const std::function<void()>& not_regular, Use use,
         bool missing_is_none);
  std::string shown_;
  int fd_ = -1;
  std::size_t size_ = 0;
  mutable FileMapping map_;
};

}  // namespace embedpe
