#include "in_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <limits.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/mapped_file.h"
#include "embedpe/message.h"
#include "mapped_block.h"

namespace embedpe {

// ------------------------------------------------------------ FileMapping

namespace {

// The files mapped now, in fixed storage a signal handler can read. A slot is
// free (0), being filled (1) or describes a mapping (2).
struct MappingSlot {
  std::atomic<int> state{0};
  const char* begin = nullptr;
  std::size_t size = 0;
  char path[PATH_MAX];
};
constexpr int kMappingSlots = 16;
MappingSlot g_mappings[kMappingSlots];

}  // namespace

const char* mapped_file_at(const void* address) noexcept {
  const char* a = static_cast<const char*>(address);
  for (auto& m : g_mappings) {
    if (m.state.load() == 2 && a >= m.begin && a < m.begin + m.size) return m.path;
  }
  return nullptr;
}

FileMapping::FileMapping(int fd, std::size_t size, const std::string& name) {
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) return;
  data_ = static_cast<const char*>(p);
  size_ = size;
  for (int i = 0; i < kMappingSlots && slot_ < 0; ++i) {
    int free = 0;
    if (g_mappings[i].state.compare_exchange_strong(free, 1)) slot_ = i;
  }
  if (slot_ >= 0) {  // with more files than slots, a fault names no file
    MappingSlot& m = g_mappings[slot_];
    m.begin = data_;
    m.size = size_;
    const std::size_t n = std::min(name.size(), sizeof m.path - 1);
    std::memcpy(m.path, name.data(), n);
    m.path[n] = '\0';
    m.state.store(2);
  }
}

FileMapping::FileMapping(FileMapping&& other) noexcept
    : data_(other.data_), size_(other.size_), slot_(other.slot_) {
  other.data_ = nullptr;
  other.size_ = 0;
  other.slot_ = -1;
}

FileMapping& FileMapping::operator=(FileMapping&& other) noexcept {
  if (this != &other) {
    release();
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(slot_, other.slot_);
  }
  return *this;
}

FileMapping::~FileMapping() { release(); }

void FileMapping::release() noexcept {
  if (slot_ >= 0) g_mappings[slot_].state.store(0);
  if (data_) ::munmap(const_cast<char*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
  slot_ = -1;
}

// ------------------------------------------------------------ MappedFile

MappedFile::MappedFile(const std::string& path) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw Error("cannot open weight file " + path + ": " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error("weight file " + path + " is not a regular file");
  }
  try {
    note_input(fd, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  const std::size_t size = static_cast<std::size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    throw Error("weight file " + path + " is empty");
  }
  map_ = std::make_unique<FileMapping>(fd, size, path);
  const int e = errno;
  ::close(fd);
  if (!*map_) throw Error("cannot map weight file " + path + ": " + std::strerror(e));
}

MappedFile::~MappedFile() = default;

std::string_view MappedFile::bytes() const { return map_->bytes(); }

// ------------------------------------------------------------ InFile

InFile::InFile(const std::string& path, Links links, std::string shown, const std::function<void()>& not_regular,
               Use use)
    : InFile(path, links, std::move(shown), not_regular, use, false) {}

InFile::InFile(const std::string& path, Links links, std::string shown, const std::function<void()>& not_regular,
               Use use, bool missing_is_none)
    : shown_(shown.empty() ? path : std::move(shown)) {
  const bool follow = links == Links::follow;
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW));
  if (fd_ < 0 && errno == ENOENT) {
    // A link to nothing is there, not missing (an HF cache snapshot whose blob is gone).
    struct stat link;
    const bool dangling = ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
    if (!dangling && missing_is_none) throw Missing{};
    if (dangling) fail("cannot open it: it is a symbolic link to nothing (its target is not there)");
    errno = ENOENT;
  }
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
    : shown_(std::move(other.shown_)), fd_(other.fd_), size_(other.size_), map_(std::move(other.map_)) {
  other.fd_ = -1;
}

InFile::~InFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::string InFile::read_at(std::size_t offset, std::size_t n) const {
  // A large read's first touches fault once per 2 MiB where the kernel gives
  // huge pages (a 9 MB tokenizer.json: 2,200 faults of 10-20 us each otherwise).
  std::string buf;
  buf.reserve(n);
  advise_huge_pages(buf.data(), n);
  buf.resize(n);
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
    FileMapping m(fd_, size_, shown_);
    if (!m) fail(std::string("cannot map it: ") + std::strerror(errno));
    ::madvise(const_cast<char*>(m.bytes().data()), size_, MADV_SEQUENTIAL);
    map_ = std::move(m);
  }
  return map_ ? map_.bytes() : std::string_view();
}

void InFile::fail(const std::string& why) const {
  Message m;
  m << "cannot read " << Verbatim{shown_} << ": " << why;
  throw m.error();
}

}  // namespace embedpe
