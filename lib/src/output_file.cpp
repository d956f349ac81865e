#include "embedpe/output_file.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "embedpe/error.h"

namespace embedpe {
namespace {

constexpr std::size_t kBufferSize = 1 << 20;

// One output is written at a time; the path is kept in a static buffer so a
// signal handler can read it without allocating.
char g_temporary[4096];
std::atomic<bool> g_has_temporary{false};

std::string directory_of(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string errno_text() { return std::strerror(errno); }

}  // namespace

const char* active_temporary_path() noexcept {
  return g_has_temporary.load() ? g_temporary : nullptr;
}

OutputFile::OutputFile(std::string path) : path_(std::move(path)), buffer_(kBufferSize) {
  if (path_.empty()) throw UsageError("--output must not be empty (use - for standard output)");
  if (is_stdout()) {
    fd_ = STDOUT_FILENO;
    return;
  }
  struct stat st;
  if (::stat(path_.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    throw Error("cannot write output " + path_ + ": it is a directory; give a file name");
  }
  if (::stat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    // A device or FIFO (e.g. /dev/stdout, /dev/full): no rename possible,
    // write it directly.
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) throw Error("cannot write output " + path_ + ": " + errno_text());
    return;
  }
  std::string base = path_.substr(path_.rfind('/') == std::string::npos ? 0 : path_.rfind('/') + 1);
  temp_path_ = directory_of(path_) + "/." + base + ".embedpe-XXXXXX";
  if (temp_path_.size() >= sizeof g_temporary) throw Error("output path is too long: " + path_);
  // Hold SIGINT/SIGTERM back between creating the temporary and recording
  // its name, so that a handler never misses a file that already exists.
  sigset_t block, previous;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &block, &previous);
  fd_ = ::mkostemp(temp_path_.data(), O_CLOEXEC);
  const int error = errno;
  if (fd_ >= 0) {
    std::memcpy(g_temporary, temp_path_.c_str(), temp_path_.size() + 1);
    g_has_temporary.store(true);
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (fd_ < 0) {
    errno = error;
    throw Error("cannot write output " + path_ + ": " + errno_text() + " (in directory " + directory_of(path_) + ")");
  }
}

OutputFile::~OutputFile() {
  if (!temp_path_.empty() && !committed_) {
    g_has_temporary.store(false);
    ::close(fd_);
    ::unlink(temp_path_.c_str());
  } else if (fd_ > STDOUT_FILENO && !committed_) {
    ::close(fd_);
  }
}

void OutputFile::write_fd(const char* data, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd_, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EPIPE) throw BrokenPipe();
      throw Error("cannot write output " + (is_stdout() ? std::string("to standard output") : path_) + ": " +
                  errno_text());
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

void OutputFile::flush() {
  write_fd(buffer_.data(), used_);
  used_ = 0;
}

void OutputFile::write(const void* data, std::size_t size) {
  if (size == 0) return;  // an empty tensor's data() may be null
  const char* p = static_cast<const char*>(data);
  if (size >= buffer_.size()) {
    flush();
    write_fd(p, size);
    return;
  }
  if (used_ + size > buffer_.size()) flush();
  std::memcpy(buffer_.data() + used_, p, size);
  used_ += size;
}

void OutputFile::rewrite(std::size_t offset, std::string_view bytes) {
  if (temp_path_.empty()) throw UsageError("cannot go back and complete " + path_ + ": give --output FILE");
  flush();
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::pwrite(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error("cannot write output " + path_ + ": " + errno_text());
    }
    done += static_cast<std::size_t>(n);
  }
}

void OutputFile::commit() {
  if (committed_) return;
  flush();
  if (temp_path_.empty()) {
    if (fd_ > STDOUT_FILENO && ::close(fd_) != 0) throw Error("cannot write output " + path_ + ": " + errno_text());
    committed_ = true;
    return;
  }
  // mkstemp creates 0600; give the file the mode a plain open() would have.
  mode_t mask = ::umask(0);
  ::umask(mask);
  if (::fchmod(fd_, 0666 & ~mask) != 0 || ::close(fd_) != 0) {
    throw Error("cannot write output " + path_ + ": " + errno_text());
  }
  fd_ = -1;
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    std::string why = errno_text();
    ::unlink(temp_path_.c_str());
    g_has_temporary.store(false);
    committed_ = true;  // nothing left to clean up
    throw Error("cannot write output " + path_ + ": " + why);
  }
  g_has_temporary.store(false);
  committed_ = true;
}

}  // namespace embedpe
