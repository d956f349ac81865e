#include "embedpe/output_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <vector>

#include "embedpe/error.h"
#include "embedpe/message.h"
#include "output_temporaries.h"
#include "test_pause.h"

namespace embedpe {
namespace {

constexpr std::size_t kBufferSize = 1 << 20;
constexpr int kMaxSymlinkHops = 40;  // as the kernel's MAXSYMLINKS
const char kTempSuffix[] = ".embedpe-XXXXXX";

// The temporaries being written, in fixed storage so that a signal handler
// can unlink them without allocating. A slot is free (0), being filled (1),
// holds a file's path (2) or a directory's (3).
struct TemporarySlot {
  std::atomic<int> state{0};
  char path[PATH_MAX];
};
constexpr int kSlots = 16;
TemporarySlot g_slots[kSlots];

std::string directory_of(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string errno_text(int error) { return std::strerror(error); }

// The descriptor a path names, if it is one of this process's:
// /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N, /proc/<our pid>/fd/N.
std::optional<int> descriptor_alias(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  const std::string pid_dir = "/proc/" + std::to_string(::getpid()) + "/fd/";
  for (const std::string& prefix : {std::string("/dev/fd/"), std::string("/proc/self/fd/"),
                                    std::string("/proc/thread-self/fd/"), pid_dir}) {
    if (path.size() <= prefix.size() || path.compare(0, prefix.size(), prefix) != 0) continue;
    int fd = -1;
    const char* first = path.data() + prefix.size();
    const char* last = path.data() + path.size();
    auto r = std::from_chars(first, last, fd);
    if (r.ec == std::errc() && r.ptr == last && fd >= 0) return fd;
  }
  return std::nullopt;
}

// What an output path names once symbolic links are followed one at a time
// (so that a link to /dev/stdout is seen as a descriptor, not as the file
// the descriptor happens to point at).
struct Target {
  enum Kind { descriptor, direct, file } kind = file;
  int fd = -1;           // descriptor
  std::string path;      // direct: to open; file: to replace
  bool exists = false;   // file
  struct stat st {};     // file, when it exists
};

Target resolve(const std::string& where, const std::string& output) {
  std::string cur = where;
  for (int hop = 0; hop < kMaxSymlinkHops; ++hop) {
    if (auto fd = descriptor_alias(cur)) return {Target::descriptor, *fd, cur};
    struct stat st;
    if (::lstat(cur.c_str(), &st) != 0) {
      const int error = errno;
      if (error == ENOENT) return {Target::file, -1, cur, false};
      throw Error("cannot write output " + output + ": " + errno_text(error));
    }
    if (S_ISLNK(st.st_mode)) {
      std::string link(PATH_MAX, '\0');
      const ssize_t n = ::readlink(cur.c_str(), link.data(), link.size());
      if (n < 0) throw Error("cannot write output " + output + ": " + errno_text(errno));
      link.resize(static_cast<std::size_t>(n));
      cur = link.front() == '/' ? link : directory_of(cur) + "/" + link;
      continue;
    }
    if (S_ISDIR(st.st_mode)) throw Error("cannot write output " + output + ": it is a directory; give a file name");
    if (S_ISREG(st.st_mode)) return {Target::file, -1, cur, true, st};
    return {Target::direct, -1, cur};  // a device, a FIFO, a socket
  }
  throw Error("cannot write output " + output + ": " + errno_text(ELOOP));
}

// ".NAME.embedpe-XXXXXX" in `dir`, NAME shortened if needed to fit the
// directory's NAME_MAX.
std::string temporary_template(const std::string& dir, const std::string& base) {
  long name_max = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  if (name_max <= 0) name_max = NAME_MAX;
  const std::size_t room = static_cast<std::size_t>(name_max) - 1 - (sizeof kTempSuffix - 1);
  return dir + "/." + base.substr(0, room) + kTempSuffix;
}

mode_t current_umask() {
  // umask() can only be read by setting it; read it once, before any thread
  // of ours could create files.
  static const mode_t mask = [] {
    const mode_t m = ::umask(0);
    ::umask(m);
    return m;
  }();
  return mask;
}

sigset_t termination_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

std::atomic<bool> g_no_clobber{false};

// Whether an output at `path` would replace or remove what is there: any
// entry (a regular file, a symbolic link even if dangling, a directory), but
// not a descriptor, device, FIFO or socket, which are written in place.
bool clobbers(const std::string& path) {
  if (path.empty() || path == "-" || descriptor_alias(path)) return false;
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return false;  // nothing there (or unreachable: the writer says why)
  try {
    const Target t = resolve(path, path);
    return t.kind == Target::file;  // a regular file, or a link to one or to nothing
  } catch (const Error&) {
    return true;  // a directory, a link loop: something is there
  }
}

// "PARAM PATH already exists ...", or with `appeared`, that it appeared while
// the output was written (a concurrent run, the race RENAME_NOREPLACE closes).
[[noreturn]] void refuse_clobbering(const std::string& path, const std::string& param, bool appeared) {
  Message m;
  m << param << " " << Verbatim{path}
    << (appeared ? " appeared while this run wrote it, and no_clobber keeps it: nothing was written; "
                 : " already exists, and no_clobber keeps it: ")
    << "remove it or choose another " << param;
  throw m.usage_error({param, "no_clobber"});
}

// rename(2) that never replaces `to`: RENAME_NOREPLACE; where the file system
// does not support it (EINVAL), link(2) then unlink(2) for a file (link never
// replaces either), and for a directory, or a file system without hard
// links, a last look at `to` just before a plain rename (a window of a few
// microseconds instead of the whole run). 0, or -1 and errno (EEXIST: `to` exists).
int rename_noreplace(int from_dir, const char* from, int to_dir, const char* to, bool directory) {
  if (::renameat2(from_dir, from, to_dir, to, RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return -1;
  if (!directory) {
    if (::linkat(from_dir, from, to_dir, to, 0) == 0) {
      ::unlinkat(from_dir, from, 0);
      return 0;
    }
    if (errno == EEXIST) return -1;
  }
  struct stat st;
  if (::fstatat(to_dir, to, &st, AT_SYMLINK_NOFOLLOW) == 0) {
    errno = EEXIST;
    return -1;
  }
  return ::renameat(from_dir, from, to_dir, to);
}

// Every regular file this process has read as an input, and every regular
// file an open output would write or replace, by device and inode: the one
// check every writing command passes through (OutputFile's constructor and
// commit, note_input), so that no command can replace what it reads.
struct Identity {
  dev_t dev = 0;
  ino_t ino = 0;
  std::string name;
  const void* owner = nullptr;  // the OutputFile, for outputs
};
std::mutex g_identities_mutex;
std::vector<Identity> g_inputs;
std::vector<Identity> g_outputs;

[[noreturn]] void refuse_same_file(const std::string& output, const std::string& input) {
  const std::string out = output == "-" ? "standard output" : "the output " + output;
  throw UsageError(out + " is the same file as the input " + (input == "-" ? "<stdin>" : input) +
                       "; writing it would destroy the input: choose another output",
                   {"output_path"});
}

// Throws if the regular file `st` is an input read so far.
void refuse_if_input(const struct stat& st, const std::string& output) {
  if (!S_ISREG(st.st_mode)) return;
  std::lock_guard lock(g_identities_mutex);
  for (const Identity& in : g_inputs) {
    if (in.dev == st.st_dev && in.ino == st.st_ino) refuse_same_file(output, in.name);
  }
}

// Notes the output `owner` writes to the regular file `st` (refusing it if it is an input).
void note_output(const struct stat& st, const std::string& output, const void* owner) {
  if (!S_ISREG(st.st_mode)) return;
  refuse_if_input(st, output);
  std::lock_guard lock(g_identities_mutex);
  g_outputs.push_back({st.st_dev, st.st_ino, output, owner});
}

void forget_output(const void* owner) {
  std::lock_guard lock(g_identities_mutex);
  std::erase_if(g_outputs, [owner](const Identity& o) { return o.owner == owner; });
}

}  // namespace

namespace {

// Removes the files in the directory open as `fd`, without allocating
// (getdents64 into a static buffer, unlinkat): async-signal-safe. Entries
// are listed again until none is left, as removing them while listing may
// skip some.
void remove_entries_now(int fd) noexcept {
  {
    alignas(dirent64) static char buffer[16384];
    for (bool removed = true; removed;) {
      removed = false;
      ::lseek(fd, 0, SEEK_SET);
      for (;;) {
        const long n = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer);
        if (n <= 0) break;
        for (long at = 0; at < n;) {
          const auto* d = reinterpret_cast<const dirent64*>(buffer + at);
          const char* name = d->d_name;
          if (!(name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))) {
            removed = ::unlinkat(fd, name, 0) == 0 || removed;
          }
          at += d->d_reclen;
        }
      }
    }
  }
}

// Removes the directory `path` and the files in it (async-signal-safe).
void remove_directory_now(const char* path) noexcept {
  const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (fd >= 0) {
    remove_entries_now(fd);
    ::close(fd);
  }
  ::rmdir(path);
}

// A free slot, claimed (state 1); -1 if none.
int claim_slot() noexcept {
  for (int i = 0; i < kSlots; ++i) {
    int free = 0;
    if (g_slots[i].state.compare_exchange_strong(free, 1)) return i;
  }
  return -1;
}

// What create_registered gave: the slot holding the temporary's name, or -1
// and the errno of the failed creation.
struct Registered {
  int slot = -1;
  int error = 0;
};

// Claims a slot, then makes the temporary `name` with create(name) (true when
// made, errno set otherwise) with SIGINT/SIGTERM/SIGHUP held back, so that a
// handler on this thread never misses a temporary that exists; the slot then
// holds the name with `state` (2: a file, 3: a directory). Throws Error
// "cannot write WHAT: too many outputs open at once" if no slot is free.
template <class Create>
Registered create_registered(std::string& name, int state, const std::string& what, Create&& create) {
  const int slot = claim_slot();
  if (slot < 0) throw Error("cannot write " + what + ": too many outputs open at once");
  const sigset_t block = termination_signals();
  sigset_t previous;
  pthread_sigmask(SIG_BLOCK, &block, &previous);
  const bool made = create(name);
  const int error = errno;
  if (made) {
    std::memcpy(g_slots[slot].path, name.c_str(), name.size() + 1);
    g_slots[slot].state.store(state);
  } else {
    g_slots[slot].state.store(0);
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return made ? Registered{slot, 0} : Registered{-1, error};
}

}  // namespace

void remove_temporaries() noexcept {
  for (auto& slot : g_slots) {
    const int state = slot.state.load();
    if (state == 2) ::unlink(slot.path);
    if (state == 3) remove_directory_now(slot.path);
  }
}

std::size_t temporaries_in_progress() noexcept {
  std::size_t n = 0;
  for (auto& slot : g_slots) n += slot.state.load() >= 2;
  return n;
}

void set_no_clobber(bool on) { g_no_clobber.store(on); }

bool no_clobber() { return g_no_clobber.load(); }

void refuse_existing_output(const std::string& path, const std::string& param) {
  if (no_clobber() && clobbers(path)) refuse_clobbering(path, param, false);
}

OutputFile::OutputFile(std::string path) : OutputFile(path, path) {}

OutputFile::OutputFile(std::string path, std::string shown, Existing existing)
    : path_(std::move(shown)), buffer_(std::make_unique_for_overwrite<char[]>(kBufferSize)) {
  if (path_.empty()) throw UsageError("output_path must not be empty (use - for standard output)", {"output_path"});
  no_clobber_ = existing == Existing::per_setting && no_clobber();
  if (no_clobber_ && clobbers(path)) refuse_clobbering(path_, "output_path", false);
  // Written straight to a descriptor: refused if that is a file read as an input.
  const auto note_descriptor = [this] {
    struct stat st;
    if (::fstat(fd_, &st) == 0) note_output(st, path_, this);
  };
  if (is_stdout()) {
    fd_ = STDOUT_FILENO;
    note_descriptor();
    return;
  }
  const Target target = resolve(path == "-" ? path_ : path, path_);
  if (target.kind == Target::descriptor) {
    fd_ = ::fcntl(target.fd, F_DUPFD_CLOEXEC, 3);
    if (fd_ < 0) fail(errno_text(errno));
    own_fd_ = true;
    note_descriptor();
    return;
  }
  if (target.kind == Target::direct) {
    fd_ = ::open(target.path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd_ < 0) fail(errno_text(errno));
    own_fd_ = true;
    note_descriptor();
    return;
  }

  target_ = target.path;
  const std::string dir = directory_of(target_);
  if (target.exists) note_output(target.st, path_, this);  // the file it will replace
  if (target.exists) {
    mode_ = target.st.st_mode & 07777;
    uid_ = target.st.st_uid;
    gid_ = target.st.st_gid;
    keep_owner_ = true;
  } else {
    mode_ = 0666 & ~current_umask();
  }
  std::string name = temporary_template(dir, base_of(target_));
  if (name.size() >= PATH_MAX) fail(errno_text(ENAMETOOLONG));

  const Registered made = create_registered(name, 2, "output " + path_, [this](std::string& n) {
    fd_ = ::mkostemp(n.data(), O_CLOEXEC);
    return fd_ >= 0;
  });
  slot_ = made.slot;
  if (fd_ < 0) fail(errno_text(made.error) + " (in directory " + dir + ")");
  temp_path_ = std::move(name);
  own_fd_ = true;
}

OutputFile::~OutputFile() {
  forget_output(this);
  if (!committed_) {
    if (own_fd_ && fd_ >= 0) ::close(fd_);
    if (!temp_path_.empty()) ::unlink(temp_path_.c_str());
  }
  if (slot_ >= 0) g_slots[slot_].state.store(0);
}

std::string OutputFile::display_name() const { return is_stdout() ? "standard output" : path_; }

void OutputFile::fail(const std::string& why) const {
  throw Error("cannot write output " + (is_stdout() ? std::string("to standard output") : path_) + ": " + why);
}

void OutputFile::write_fd(const char* data, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd_, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EPIPE) throw BrokenPipe();
      if (errno == EFBIG) fail("file too large (over the file-size limit, see ulimit -f)");
      fail(errno_text(errno));
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

void OutputFile::flush() {
  write_fd(buffer_.get(), used_);
  used_ = 0;
}

void OutputFile::write(const void* data, std::size_t size) {
  if (size == 0) return;  // an empty tensor's data() may be null
  const char* p = static_cast<const char*>(data);
  if (tap_) tap_(std::string_view(p, size));
  if (size >= kBufferSize) {
    flush();
    write_fd(p, size);
    return;
  }
  if (used_ + size > kBufferSize) flush();
  std::memcpy(buffer_.get() + used_, p, size);
  used_ += size;
}

void OutputFile::rewrite(std::size_t offset, std::string_view bytes) {
  if (tap_) throw InternalError("an output read as it is written cannot be rewritten");
  if (temp_path_.empty()) {
    throw UsageError("cannot go back and complete " + display_name() + ": give output_path FILE (a regular file)",
                     {"output_path"});
  }
  flush();
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::pwrite(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(errno_text(errno));
    }
    done += static_cast<std::size_t>(n);
  }
}

void OutputFile::commit() {
  if (committed_) return;
  flush();
  if (temp_path_.empty()) {
    const int fd = fd_;
    fd_ = -1;
    committed_ = true;
    if (own_fd_ && ::close(fd) != 0) fail(errno_text(errno));
    return;
  }
  // The SQLite / git discipline: the data reaches the disk before the name
  // points at it, and the new name reaches the disk before we say we are done.
  if (::fsync(fd_) != 0) fail(errno_text(errno));
  if (keep_owner_ && ::fchown(fd_, uid_, gid_) != 0 && ::geteuid() == 0) fail(errno_text(errno));
  // After fchown, which may clear set-user-ID bits.
  if (::fchmod(fd_, mode_) != 0) fail(errno_text(errno));
  // Again at the last moment: the file now at the target may have been read
  // as an input since the output was opened.
  refuse_replacing_input(target_);
  // With a companion, SIGINT/SIGTERM/SIGHUP wait from before it is placed
  // until this file's rename is done: a signal then finds both files in
  // place or neither, never the companion alone (only SIGKILL or a crash can).
  struct HoldSignals {
    sigset_t previous;
    bool held = false;
    ~HoldSignals() {
      if (held) pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    }
  } hold;
  if (companion_) {
    const sigset_t block = termination_signals();
    hold.held = pthread_sigmask(SIG_BLOCK, &block, &hold.previous) == 0;
  }
  const std::function<void()> take_back = companion_ ? companion_(fd_) : nullptr;
  if (companion_) pause_for_test("companion-placed");  // the companion in place, this file not yet
  const int fd = fd_;
  fd_ = -1;
  int failed = ::close(fd) == 0 ? 0 : errno;
  bool clobbered = false;
  if (failed == 0 && no_clobber_) {
    pause_for_test("output-rename");  // the file written, not yet in place
    if (rename_noreplace(AT_FDCWD, temp_path_.c_str(), AT_FDCWD, target_.c_str(), false) != 0) {
      failed = errno;
      clobbered = failed == EEXIST;
    }
  } else if (failed == 0 && ::rename(temp_path_.c_str(), target_.c_str()) != 0) {
    failed = errno;
  }
  if (failed != 0) {
    if (take_back) take_back();  // the companion goes with the file it describes
    if (clobbered) refuse_clobbering(path_, "output_path", true);  // the destructor removes the temporary
    fail(errno_text(failed));
  }
  committed_ = true;
  temp_path_.clear();
  if (slot_ >= 0) g_slots[slot_].state.store(0);
  slot_ = -1;
  const int dir = ::open(directory_of(target_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    const int synced = ::fsync(dir);
    const int error = errno;
    ::close(dir);
    if (synced != 0 && error != EINVAL) fail("the file is in place, but its directory could not be synced: " +
                                            errno_text(error));
  }
}

bool output_is_replaced_file(const std::string& path) {
  if (path.empty() || path == "-") return false;
  try {
    return resolve(path, path).kind == Target::file;
  } catch (const Error&) {
    return true;  // OutputFile will report it
  }
}

void note_input(int fd, const std::string& path) {
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
  std::lock_guard lock(g_identities_mutex);
  for (const Identity& out : g_outputs) {
    if (out.dev == st.st_dev && out.ino == st.st_ino) refuse_same_file(out.name, path);
  }
  for (const Identity& in : g_inputs) {
    if (in.dev == st.st_dev && in.ino == st.st_ino) return;
  }
  g_inputs.push_back({st.st_dev, st.st_ino, path, nullptr});
}

void forget_inputs() {
  std::lock_guard lock(g_identities_mutex);
  g_inputs.clear();
}

void refuse_replacing_input(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) refuse_if_input(st, path);
}

void refuse_output_over_inputs(const std::string& output,
                               const std::vector<std::pair<std::string, std::string>>& inputs) {
  struct stat out;
  const bool known = output == "-" ? ::fstat(STDOUT_FILENO, &out) == 0 : ::stat(output.c_str(), &out) == 0;
  if (!known || !S_ISREG(out.st_mode)) return;  // a new file, a pipe, a device: nothing to destroy
  for (const auto& [flag, path] : inputs) {
    if (path.empty()) continue;
    struct stat in;
    if ((path == "-" ? ::fstat(STDIN_FILENO, &in) : ::stat(path.c_str(), &in)) != 0) continue;
    if (in.st_dev == out.st_dev && in.st_ino == out.st_ino) {
      const std::string name = output == "-" ? "standard output" : "the output " + output;
      throw UsageError(name + " is the same file as " + flag + " " + (path == "-" ? "<stdin>" : path) +
                       "; writing it would destroy the input: choose another output");
    }
  }
}

HeldDirectory::HeldDirectory(std::string path) : path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct stat st;
  if (fd_ < 0 || ::fstat(fd_, &st) != 0) {
    const int error = errno;
    if (fd_ >= 0) ::close(fd_);
    throw Error("cannot open output_dir " + path_ + ": " + errno_text(error), {"output_dir"});
  }
  dev_ = st.st_dev;
  ino_ = st.st_ino;
  via_ = "/proc/self/fd/" + std::to_string(fd_);
  struct stat through;
  if (::stat(via_.c_str(), &through) != 0 || through.st_dev != dev_ || through.st_ino != ino_) via_ = path_;
}

HeldDirectory::~HeldDirectory() { ::close(fd_); }

bool HeldDirectory::moved() const {
  struct stat st;
  return ::stat(path_.c_str(), &st) != 0 || st.st_dev != dev_ || st.st_ino != ino_;
}

OutputDirectory::OutputDirectory(std::string path) : path_(std::move(path)), no_clobber_(no_clobber()) {
  if (path_.empty()) throw UsageError("output_dir must not be empty", {"output_dir"});
  while (path_.size() > 1 && path_.back() == '/') path_.pop_back();
  check_target();
  std::string name = temporary_template(directory_of(path_), base_of(path_));
  if (name.size() >= PATH_MAX) throw Error("cannot write output_dir " + path_ + ": " + errno_text(ENAMETOOLONG));
  const Registered made = create_registered(name, 3, "output_dir " + path_,
                                            [](std::string& n) { return ::mkdtemp(n.data()) != nullptr; });
  slot_ = made.slot;
  const auto refuse = [&](int error) {
    throw Error(
        "cannot write output_dir " + path_ + ": " + errno_text(error) + " (in directory " + directory_of(path_) + ")",
        {"output_dir"});
  };
  if (slot_ < 0) refuse(made.error);
  if (::chmod(name.c_str(), 0777 & ~current_umask()) != 0) {  // mkdtemp makes it 0700
    const int error = errno;
    remove_directory_now(name.c_str());
    g_slots[slot_].state.store(0);
    slot_ = -1;
    refuse(error);
  }
  temp_path_ = std::move(name);
  try {
    temp_ = std::make_unique<HeldDirectory>(temp_path_);
    parent_ = std::make_unique<HeldDirectory>(directory_of(path_));
  } catch (...) {
    remove_directory_now(temp_path_.c_str());
    g_slots[slot_].state.store(0);
    slot_ = -1;
    throw;
  }
}

const std::string& OutputDirectory::temp_path() const { return temp_->via(); }

OutputDirectory::~OutputDirectory() {
  if (!committed_ && temp_ && parent_) {
    // Through the descriptors: found even if the directories were moved.
    remove_entries_now(temp_->fd());
    ::unlinkat(parent_->fd(), base_of(temp_path_).c_str(), AT_REMOVEDIR);
  } else if (!committed_ && !temp_path_.empty()) {
    remove_directory_now(temp_path_.c_str());
  }
  if (slot_ >= 0) g_slots[slot_].state.store(0);
}

void OutputDirectory::check_target(bool again) const {
  if (no_clobber_ && clobbers(path_)) refuse_clobbering(path_, "output_dir", again);
  struct stat st;
  if (::lstat(path_.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    throw Error("cannot write output_dir " + path_ + ": " + errno_text(errno), {"output_dir"});
  }
  if (S_ISLNK(st.st_mode)) {
    throw UsageError("output_dir " + path_ + " is a symbolic link; give a new directory (or an empty one)",
                     {"output_dir"});
  }
  if (!S_ISDIR(st.st_mode)) throw UsageError("output_dir " + path_ + " exists and is not a directory", {"output_dir"});
  DIR* d = ::opendir(path_.c_str());
  if (!d) throw Error("cannot list output_dir " + path_ + ": " + errno_text(errno), {"output_dir"});
  bool empty = true;
  while (const dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) empty = false;
  }
  ::closedir(d);
  if (!empty)
    throw UsageError("output_dir " + path_ + " is not empty; give a new directory (or an empty one)", {"output_dir"});
}

void OutputDirectory::commit() {
  if (committed_) throw InternalError("output_dir committed twice");
  // Every file in it (copies are not fsynced one by one), then the directory.
  if (::syncfs(temp_->fd()) != 0 || (::fsync(temp_->fd()) != 0 && errno != EINVAL)) {
    throw Error("cannot sync output_dir " + path_ + ": " + errno_text(errno), {"output_dir"});
  }
  check_target(true);  // again: it may have appeared meanwhile
  // The files went to the temporary directory through its descriptor: it must
  // still be where the rename takes it from, in the directory that path_ names.
  if (temp_->moved() || parent_->moved()) {
    throw Error("cannot write output_dir " + path_ + ": its directory " + parent_->path() +
                    " (or the temporary directory in it) was moved or replaced while the files were written; "
                    "nothing was written, run it again",
                {"output_dir"});
  }
  // rename(2) replaces an empty directory, and refuses one that is not;
  // with no_clobber, nothing is replaced.
  if (no_clobber_) pause_for_test("output-dir-rename");  // the directory filled, not yet in place
  const int renamed =
      no_clobber_ ? rename_noreplace(parent_->fd(), base_of(temp_path_).c_str(), parent_->fd(), base_of(path_).c_str(), true)
                  : ::renameat(parent_->fd(), base_of(temp_path_).c_str(), parent_->fd(), base_of(path_).c_str());
  if (renamed != 0) {
    const int error = errno;
    if (no_clobber_ && error == EEXIST) refuse_clobbering(path_, "output_dir", true);
    if (error == ENOTEMPTY || error == EEXIST) {
      throw UsageError("output_dir " + path_ + " was filled by another run while this one wrote; give a new directory",
                       {"output_dir"});
    }
    throw Error("cannot write output_dir " + path_ + ": " + errno_text(error), {"output_dir"});
  }
  committed_ = true;
  if (slot_ >= 0) g_slots[slot_].state.store(0);
  slot_ = -1;
  if (::fsync(parent_->fd()) != 0 && errno != EINVAL) {
    throw Error("cannot sync " + parent_->path() + ": " + errno_text(errno), {"output_dir"});
  }
}

}  // namespace embedpe
