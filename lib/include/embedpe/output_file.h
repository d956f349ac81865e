// An output that appears whole or not at all.
//
//   embedpe::OutputFile out("batch.npz");   // or "-" for standard output
//   out.write(bytes);
//   out.commit();                            // fsyncs, then renames the temporary into place
//
// What happens depends on what the path names (docs/RELIABILITY.md has the
// table):
//  - "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: written
//    straight to that descriptor, wherever it points (a redirected file, a
//    pipe, a terminal); nothing is renamed.
//  - anything else that is not a regular file once symbolic links are
//    followed (a device such as /dev/null, a FIFO): opened and written
//    directly, no temporary and no rename.
//  - a regular file, or a name that does not exist yet: written to a
//    temporary in the same directory as the file (after following symbolic
//    links, so a link is kept and its target replaced, as `>` and editors
//    do), fsynced, given the old file's permissions (and owner, as root) or
//    0666 & ~umask for a new file, renamed over the target, and the
//    directory fsynced.
// An error (or an exception that skips commit()) never leaves a partial file
// at the target path: the destructor removes the temporary. Write errors (a
// full disk, /dev/full, a closed pipe, the file-size limit) throw
// embedpe::Error naming the output. rewrite() (going back to complete a
// header) needs a replaced regular file: can_rewrite() says whether it has one.
//
// With set_no_clobber(true) (the embedpe tool's --no-clobber, as cp -n), an
// output never replaces or removes what exists at its path: OutputFile's
// constructor refuses an existing entry (see refuse_existing_output), and
// commit() renames with RENAME_NOREPLACE, so that a file which appears while
// the output is written is kept and the temporary removed.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "embedpe/error.h"

namespace embedpe {

// What an output does with a file already at its path.
enum class Existing {
  per_setting,  // replaces it, unless set_no_clobber(true): every output a user names
  replaced,     // replaces it whatever the setting: a file of a directory the run
                // made or continues and holds locked (a parts directory's manifest)
};

// --no-clobber, for the whole process (the embedpe tool runs one command):
// read by every OutputFile and OutputDirectory when it is made.
void set_no_clobber(bool on);
bool no_clobber();

// With no_clobber(): throws UsageError "PARAM PATH already exists, and
// no_clobber keeps it ..." if `path` names anything an output would replace
// or remove: a regular file, a symbolic link (even a dangling one), a
// directory. Standard output ("-"), /dev/stdout and /dev/fd/N, devices
// (/dev/null), FIFOs and sockets are written in place, never replaced: they
// are not refused. `param` names the output in the message ("output_path",
// "output_dir"). Without no_clobber() it does nothing.
void refuse_existing_output(const std::string& path, const std::string& param = "output_path");

class OutputFile {
 public:
  explicit OutputFile(std::string path);
  // Writes `path`, named `shown` in messages: a file reached through a
  // directory descriptor held open (/proc/self/fd/N/NAME, so that a
  // directory renamed meanwhile is still the one written) is shown by the
  // name the user gave.
  OutputFile(std::string path, std::string shown, Existing existing = Existing::per_setting);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  void write(const void* data, std::size_t size);
  void write(std::string_view text) { write(text.data(), text.size()); }
  // Overwrites bytes already written (e.g. a header completed at the end).
  // Only for replaced regular files: throws UsageError otherwise.
  void rewrite(std::size_t offset, std::string_view bytes);
  // Whether rewrite() works: a replaced regular file, not a descriptor or device.
  bool can_rewrite() const { return !temp_path_.empty(); }
  // Every byte given to write() from now on also goes to `tap`, in order: a
  // checksum of what is written, taken as it is written (never by reading
  // the file again, which may be another file by then). No rewrite() after.
  void on_write(std::function<void(std::string_view)> tap) { tap_ = std::move(tap); }

  // A file committed with this one, as a pair (a shard output and its record
  // beside it): commit() calls `companion` once every byte of this file is
  // written and synced, just before the rename, with a descriptor that reads
  // those bytes (to checksum what will appear, never a name that may point
  // elsewhere by then). It puts the companion in place (or removes a stale
  // one) and returns what takes that back, which commit() runs if its own
  // rename then fails. If it throws, nothing is renamed. Only a replaced
  // regular file has a companion: it is not called for a descriptor or device.
  using Companion = std::function<std::function<void()>(int fd)>;
  void commit_with(Companion companion) { companion_ = std::move(companion); }
  void commit();

  const std::string& path() const { return path_; }
  bool is_stdout() const { return path_ == "-"; }
  // What messages call the output: the path, or "standard output".
  std::string display_name() const;

 private:
  void flush();
  void write_fd(const char* data, std::size_t size);
  [[noreturn]] void fail(const std::string& why) const;

  std::string path_;
  std::string target_;     // the regular file replaced on commit (symbolic links followed)
  std::string temp_path_;  // empty when written directly
  int fd_ = -1;
  bool own_fd_ = false;    // close fd_ when done (not for standard output)
  bool keep_owner_ = false;
  mode_t mode_ = 0;        // given to the file on commit
  uid_t uid_ = 0;
  gid_t gid_ = 0;
  int slot_ = -1;          // in the table of temporaries a signal handler removes
  std::unique_ptr<char[]> buffer_;  // kBufferSize bytes, not zeroed: pages are touched only as output fills them
  std::size_t used_ = 0;
  bool committed_ = false;
  bool no_clobber_ = false;  // commit() never replaces a file that appeared meanwhile
  std::function<void(std::string_view)> tap_;
  Companion companion_;
};

// Writing to a pipe whose reader has gone (`embedpe ... | head -1`): not an
// error to report; main() ends the process quietly, as SIGPIPE would.
class BrokenPipe : public Error {
 public:
  BrokenPipe() : Error("broken pipe") {}
};

// A directory held open for a whole run (embedpe encode --output-dir): its
// files are reached through the descriptor (at(NAME) is /proc/self/fd/N/NAME),
// so that every file of the run lands in the directory the run began in, even
// if that is renamed meanwhile and another made at its name; moved() says
// whether the path the user gave still names it. Without /proc, at() falls
// back to the path itself and moved() is the only guard.
class HeldDirectory {
 public:
  // Opens the directory `path` (following a symbolic link); Error if it cannot.
  explicit HeldDirectory(std::string path);
  HeldDirectory(const HeldDirectory&) = delete;
  HeldDirectory& operator=(const HeldDirectory&) = delete;
  ~HeldDirectory();
  const std::string& path() const { return path_; }
  int fd() const { return fd_; }
  // Where to open NAME in it, and what messages call that.
  std::string at(const std::string& name) const { return via_ + "/" + name; }
  const std::string& via() const { return via_; }
  std::string shown(const std::string& name) const { return path_ + "/" + name; }
  // Whether `path` no longer names this directory (renamed, removed or replaced).
  bool moved() const;

 private:
  std::string path_, via_;
  int fd_ = -1;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
};

// A directory that appears whole or not at all (embedpe merge --output-dir):
// its files are made in a temporary directory beside `path`, and commit()
// fsyncs it and renames it into place. `path` must not exist, or be an empty
// directory; a symbolic link there is refused. An error, an exception that
// skips commit(), or SIGINT/SIGTERM/SIGHUP (with app/main.cpp's handlers)
// removes the temporary directory and everything in it. With no_clobber(),
// `path` must not exist at all (not even as an empty directory), and commit()
// renames with RENAME_NOREPLACE.
class OutputDirectory {
 public:
  explicit OutputDirectory(std::string path);
  OutputDirectory(const OutputDirectory&) = delete;
  OutputDirectory& operator=(const OutputDirectory&) = delete;
  ~OutputDirectory();
  // Where to make the files until commit(): the temporary directory, reached
  // through a descriptor held open (HeldDirectory).
  const std::string& temp_path() const;
  void commit();

 private:
  // `again`: at commit, where what exists appeared while the run wrote.
  void check_target(bool again = false) const;
  std::string path_, temp_path_;
  bool no_clobber_ = false;
  std::unique_ptr<HeldDirectory> temp_, parent_;  // commit() renames temp_ within parent_
  int slot_ = -1;
  bool committed_ = false;
};

// Whether OutputFile(path) would write a temporary and replace a regular
// file (so that rewrite() works), judged without opening anything: false for
// "-", descriptors, devices and FIFOs. Errors (a directory, a link loop) are
// left to OutputFile.
bool output_is_replaced_file(const std::string& path);

// Nothing replaces an input, structurally: every reader of an input file
// calls note_input on its descriptor, and every OutputFile compares the file
// it writes or replaces (a descriptor's file, the existing target, again just
// before its rename) with every input noted so far; note_input compares with
// every output open. A match is UsageError "the output X is the same file as
// the input Y ...", whichever came first. Only regular files are compared.
void note_input(int fd, const std::string& path);
// Refuses (UsageError) replacing or removing `path` if it is a noted input.
void refuse_replacing_input(const std::string& path);
// Inputs are noted for the life of the process (the embedpe tool runs one
// command). A program that runs several jobs, or deletes inputs whose inodes
// may be reused, forgets them between jobs.
void forget_inputs();

// Refuses (UsageError) an output that is the same file as one of `inputs`:
// same device and inode once symbolic links are followed, so hard links,
// symlinks and "./" spellings are all caught. "-" compares standard output
// when it is a regular file (`embedpe ... >> corpus.txt`). Inputs that do
// not exist, "-" and "" are ignored. `inputs` holds (flag, path) pairs; the
// message names both.
void refuse_output_over_inputs(const std::string& output,
                               const std::vector<std::pair<std::string, std::string>>& inputs);

// For programs that write outputs (the embedpe tool calls it first thing):
// SIGINT, SIGTERM and SIGHUP remove the temporaries of outputs not yet
// committed, then the process dies of the signal, as a shell expects; SIGBUS
// from a memory-mapped weights file that was truncated while read is one
// line on stderr naming it and exit status 1; SIGPIPE and SIGXFSZ are
// ignored, so that writing fails instead (BrokenPipe, "file too large") and
// the temporary is removed.
void install_signal_cleanup();

}  // namespace embedpe
