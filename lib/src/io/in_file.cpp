#include "in_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/message.h"

namespace embedpe {

InFile::InFile(const std::string& path, Links links, std::string shown, const std::function<void()>& not_regular,
               Use use)
    : InFile(path, links, std::move(shown), not_regular, use, false) {}

InFile::InFile(const std::string& path, Links links, std::string shown, const std::function<void()>& not_regular,
               Use use, bool missing_is_none)
    : shown_(shown.empty() ? path : std::move(shown)) {
  const bool follow = links == Links::follow;
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW));
  if (fd_ < 0 && errno == ENOENT && missing_is_none) throw Missing{};
  if (fd_ < 0 && errno == ELOOP && !follow) {
    if (not_regular) not_regular();
    fail("it is a symbolic link, not a file embedpe wrote");
  }
  if (fd_ < 0) fail(std::string("cannot open it: ") + std::strerror(errno));
  struct stat st;
  if (::fstat(fd_, &st) != 0) {
    const int e = errno;
    ::close(fd_);
    fd_ = -1;
    fail(std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    if (not_regular) not_regular();
    fail("it is not a regular file");
  }
  size_ = static_cast<std::size_t>(st.st_size);
  if (use == Use::own) return;
  try {
    note_input(fd_, path);
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

std::optional<InFile> InFile::if_exists(const std::string& path, Links links, std::string shown,
                                        const std::function<void()>& not_regular, Use use) {
  try {
    return InFile(path, links, std::move(shown), not_regular, use, true);
  } catch (const Missing&) {
    return std::nullopt;
  }
}

InFile::InFile(InFile&& other) noexcept
    : shown_(std::move(other.shown_)), fd_(other.fd_), size_(other.size_), map_(other.map_) {
  other.fd_ = -1;
  other.map_ = nullptr;
}

InFile::~InFile() {
  if (map_) ::munmap(map_, size_);
  if (fd_ >= 0) ::close(fd_);
}

std::string InFile::read_at(std::size_t offset, std::size_t n) const {
  std::string buf(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd_, buf.data() + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) fail(std::string("read failed: ") + std::strerror(errno));
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  buf.resize(got);
  return buf;
}

std::string InFile::all() const {
  // One byte more than its size: a file that grew since it was opened is read whole.
  std::string data(size_ + 1, '\0');
  std::size_t got = 0;
  for (;;) {
    if (got == data.size()) data.resize(data.size() * 2);
    const ssize_t n = ::pread(fd_, data.data() + got, data.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(std::string("read failed: ") + std::strerror(errno));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got < size_) fail("it is shorter than it was");
  data.resize(got);
  return data;
}

std::string_view InFile::map() const {
  if (!map_ && size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
    if (p == MAP_FAILED) fail(std::string("cannot map it: ") + std::strerror(errno));
    ::madvise(p, size_, MADV_SEQUENTIAL);
    map_ = p;
  }
  return {static_cast<const char*>(map_), size_};
}

void InFile::fail(const std::string& why) const {
  Message m;
  m << "cannot read " << Verbatim{shown_} << ": " << why;
  throw m.error();
}

}  // namespace embedpe
