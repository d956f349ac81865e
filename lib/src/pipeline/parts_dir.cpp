// The parts directory (embedpe/parts_dir.h): parts, manifest, journal, lock
// and resuming.
#include "embedpe/parts_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/shards.h"
#include "embedpe/tensor_io.h"
#include "embedpe/version.h"
#include "embedpe/weights.h"
#include "in_file.h"
#include "json_difference.h"
#include "manifest.h"
#include "embedpe/message.h"
#include "shard_record.h"
#include "output_temporaries.h"
#include "sha256.h"
#include "test_pause.h"

namespace embedpe {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kLock = ".lock";


// ---------------------------------------------------------------- files

// The part file at `path`: nullopt if absent; its bytes if a regular file.
// Anything else (a FIFO would block an open, a symlink could point at an
// input) is an error naming it.
std::optional<std::string> read_part(const std::string& at, const std::string& path) {
  return read_small_file(at, path, "part");
}

struct PartFile {
  std::size_t index = 0;
  std::string name;
  bool regular = false;
};

// The files in DIR named like parts, whatever their type (never opened).
// `at`: where to list DIR (HeldDirectory::at), if not at its name.
std::vector<PartFile> part_files_in(const std::string& dir, const std::string& at = "") {
  const std::string& where = at.empty() ? dir : at;
  std::vector<PartFile> out;
  DIR* d = ::opendir(where.c_str());
  if (!d) throw (Message() << "cannot list output_dir " << Verbatim{dir} << ": " << std::strerror(errno)).error({"output_dir"});
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (!is_part_name(name)) continue;
    bool regular = e->d_type == DT_REG;
    if (e->d_type == DT_UNKNOWN) {
      struct stat st;
      regular = ::lstat((where + "/" + name).c_str(), &st) == 0 && S_ISREG(st.st_mode);
    }
    out.push_back({std::strtoull(name.c_str() + 5, nullptr, 10), name, regular});
  }
  ::closedir(d);
  return out;
}

// The temporary of a run's manifest or part (OutputFile's ".NAME.embedpe-XXXXXX").
bool is_run_temporary(std::string_view name) {
  static constexpr std::string_view kSuffix = ".embedpe-";
  if (name.size() < 1 + kSuffix.size() + 6 || name[0] != '.') return false;
  const std::size_t at = name.size() - 6 - kSuffix.size();
  if (name.substr(at, kSuffix.size()) != kSuffix) return false;
  const std::string target(name.substr(1, at - 1));
  return target == kManifest || is_part_name(target);
}

// A run's own file: its lock, manifest, journal, parts, or their temporaries.
bool is_run_file(std::string_view name) {
  return name == kLock || name == kManifest || name == kJournal || is_part_name(std::string(name)) ||
         is_run_temporary(name);
}

// The first entry of the held directory that is not a run's own file; "" if
// there is none.
std::string first_foreign_entry(const HeldDirectory& held) {
  DIR* d = ::opendir(held.at(".").c_str());
  if (!d) {
    throw(Message() << "cannot list output_dir " << Verbatim{held.path()} << ": " << std::strerror(errno))
        .error({"output_dir"});
  }
  std::string found;
  while (const dirent* e = ::readdir(d)) {
    const std::string_view name = e->d_name;
    if (name != "." && name != ".." && !is_run_file(name)) {
      found = name;
      break;
    }
  }
  ::closedir(d);
  return found;
}

// Removes the temporaries (OutputFile's ".NAME.embedpe-XXXXXX") of the
// manifest and parts that a run killed by SIGKILL or a crash left in `dir`:
// only a run holding the lock writes there, so none is in use.
void remove_stale_temporaries(const HeldDirectory& held) {
  const std::string& dir = held.path();
  DIR* d = ::opendir(held.at(".").c_str());
  if (!d)
    throw(Message() << "cannot list output_dir " << Verbatim{dir} << ": " << std::strerror(errno))
        .error({"output_dir"});
  std::vector<std::string> stale;
  while (const dirent* e = ::readdir(d)) {
    if (is_run_temporary(e->d_name)) stale.emplace_back(e->d_name);
  }
  ::closedir(d);
  for (const std::string& name : stale) {
    struct stat st;
    const std::string path = dir + "/" + name, at = held.at(name);
    if (::lstat(at.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::unlink(at.c_str()) != 0 && errno != ENOENT) {
      throw Error("cannot remove " + path + " (left by an interrupted run): " + std::strerror(errno));
    }
  }
}

// An exclusive flock() on DIR/.lock for the whole run. A run that is refused
// (or writes nothing) removes the lock file if it made it: remove_if_made(),
// while still holding the lock. So that a run never holds a lock on a file
// another run has just removed, the lock counts only once the path still
// names the file locked; else it is taken again.
class DirLock {
 public:
  explicit DirLock(const HeldDirectory& held) : at_(held.at(kLock)) {
    const std::string& dir = held.path();
    const std::string path = held.shown(kLock);
    for (int attempt = 0;; ++attempt) {
      fd_ = ::open(at_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
      made_ = fd_ >= 0;
      if (fd_ < 0 && errno == EEXIST) fd_ = ::open(at_.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
      if (fd_ < 0 && errno == ENOENT && attempt < 100) continue;  // removed between the two opens
      if (fd_ < 0) throw Error("cannot create " + path + ": " + std::strerror(errno));
      if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        const int e = errno;
        ::close(fd_);  // made or not, it is the file the holder locked: it stays
        made_ = false;
        if (e == EWOULDBLOCK) {
          Message m;
          m << "another embedpe run is writing to output_dir " << Verbatim{dir} << " (it holds " << Verbatim{path}
            << "); wait for it to finish, or choose another output_dir";
          throw m.error({"output_dir"});
        }
        throw Error("cannot lock " + path + ": " + std::strerror(e));
      }
      struct stat locked, now;
      if (::fstat(fd_, &locked) == 0 && ::lstat(at_.c_str(), &now) == 0 && locked.st_dev == now.st_dev &&
          locked.st_ino == now.st_ino) {
        return;
      }
      ::close(fd_);  // removed by a run that held it: take the file now there
      if (attempt >= 100) throw Error("cannot lock " + path + ": it keeps being replaced");
    }
  }
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;
  ~DirLock() { ::close(fd_); }
  // The run leaves nothing: the lock file goes too if this run made it.
  void remove_if_made() {
    if (made_) ::unlink(at_.c_str());
    made_ = false;
  }

 private:
  std::string at_;
  int fd_ = -1;
  bool made_ = false;
};

// Appends one JSON line per finished part (one write(2) each).
class Journal {
 public:
  Journal(std::string at, std::string path) : at_(std::move(at)), path_(std::move(path)) {
    fd_ = ::open(at_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd_ < 0) throw Error("cannot write " + path_ + ": " + std::strerror(errno));
  }
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;
  ~Journal() {
    if (fd_ >= 0) ::close(fd_);
  }
  void append(PartRecord& p) {
    const std::string line = part_text(p) + "\n";
    std::size_t done = 0;
    while (done < line.size()) {
      const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw Error("cannot write " + path_ + ": " + std::strerror(errno));
      done += static_cast<std::size_t>(n);
    }
  }
  // The run is complete and manifest.json holds every part.
  void remove() {
    ::close(fd_);
    fd_ = -1;
    ::unlink(at_.c_str());
  }

 private:
  std::string at_, path_;
  int fd_ = -1;
};

// ---------------------------------------------------------------- resume checks

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

// `what` is a parameter, or "config KEY" (a key of the run's config: the
// user's words).
[[noreturn]] void refuse(const std::string& manifest_path, const std::string& what, const std::string& then,
                         const std::string& now) {
  const bool config = what.rfind("config ", 0) == 0;
  auto setting = [&](Message& m) -> Message& { return config ? m << Verbatim{what} : m << what; };
  Message m;
  m << "resume: " << Verbatim{manifest_path} << " was written with ";
  setting(m) << " " << Verbatim{then} << ", this run has ";
  setting(m) << " " << Verbatim{now} << "; run the same command to " << Verbatim{"resume"}
             << ", or choose another output_dir";
  std::vector<std::string> parameters = {"resume", "output_dir"};
  if (!config) parameters.push_back(what);
  throw m.usage_error(std::move(parameters));
}

void check_same_run(const Manifest& old, const Manifest& now, const std::string& manifest_path) {
  const Reading &a = old.reading, &b = now.reading;
  if (a.inputs != b.inputs) refuse(manifest_path, "input", joined(a.inputs), joined(b.inputs));
  if (a.shard != b.shard) refuse(manifest_path, "shard", a.shard, b.shard);
  if (a.shard_seek != b.shard_seek) {
    refuse(manifest_path, "shard_seek", a.shard_seek ? "on" : "off", b.shard_seek ? "on" : "off");
  }
  if (a.input_format != b.input_format) refuse(manifest_path, "input_format", a.input_format, b.input_format);
  if (b.input_format == "jsonl" && a.field != b.field) refuse(manifest_path, "field", a.field, b.field);
  if (a.skip_empty != b.skip_empty) {
    refuse(manifest_path, "skip_empty", a.skip_empty ? "on" : "off", b.skip_empty ? "on" : "off");
  }
  if (old.shard_rows != now.shard_rows) {
    refuse(manifest_path, "shard_rows", std::to_string(old.shard_rows), std::to_string(now.shard_rows));
  }
  if (const std::vector<JsonDifference> d = json_differences(old.config, now.config); !d.empty()) {
    refuse(manifest_path, "config " + d.front().path, d.front().then, d.front().now);
  }
  for (std::size_t i = 0; i < old.inputs.size(); ++i) {
    const auto& x = old.inputs[i];
    const auto& y = now.inputs[i];
    if (x.bytes && y.bytes && *x.bytes != *y.bytes) {
      Message m;
      m << "resume: input " << Verbatim{y.path} << " is " << std::to_string(*y.bytes) << " bytes, but was "
        << std::to_string(*x.bytes) << " when " << Verbatim{manifest_path}
        << " was written: it changed, so the parts would not match it; choose another output_dir";
      throw m.usage_error({"resume", "output_dir"});
    }
  }
}

[[noreturn]] void refuse_changed_input(const std::string& dir, const PartRecord& p, const std::string& manifest_path) {
  std::string where;
  for (const auto& r : p.lines) {
    where += (where.empty() ? "" : ", ") + r.source + " lines " + std::to_string(r.first_line) + "-" +
             std::to_string(r.last_line);
  }
  Message m;
  m << "resume: the input of " << Verbatim{dir + "/" + p.file} << " (" << Verbatim{where.empty() ? "no lines" : where}
    << ") changed since " << Verbatim{manifest_path}
    << " was written, so the parts would not match it; choose another output_dir";
  throw m.usage_error({"resume", "output_dir"});
}

std::vector<LineRange> line_ranges(const std::vector<TextLine>& lines, const LineReader& reader) {
  std::vector<LineRange> out;
  for (const auto& l : lines) {
    const std::string name = reader.display_name(l.source);
    if (out.empty() || out.back().source != name) {
      out.push_back({name, l.line, l.line});
    } else {
      out.back().last_line = l.line;
    }
  }
  return out;
}

// Reads the inputs once more, as this run will, and compares every part
// the old run recorded (rows, lines, input hash) and each input's hash if the
// old run finished: a resume never mixes parts of two different inputs.
// Not for stdin, which cannot be read twice (the main pass compares it).
void verify_input_unchanged(const Manifest& old, const LineReader& reader, const std::string& dir,
                            const std::string& manifest_path) {
  LineReader again(reader.paths(), reader.options());
  Sha256 part;
  std::vector<Sha256> whole(reader.paths().size());
  again.set_raw_sink([&](std::size_t source, std::string_view raw) {
    part.update(raw);
    whole[source].update(raw);
  });
  std::size_t index = 0;
  for (;; ++index) {
    const std::vector<TextLine> lines = again.next(old.shard_rows);
    if (lines.empty()) break;
    const std::string hash = part.hex();
    part = Sha256();
    if (index >= old.parts.size()) {
      if (old.complete) {
        Message m;
        m << "resume: the input now gives more than the " << std::to_string(old.parts.size()) << " parts "
          << Verbatim{manifest_path} << " recorded as complete; it changed, so choose another output_dir";
        throw m.usage_error({"resume", "output_dir"});
      }
      continue;
    }
    const PartRecord& p = old.parts[index];
    if (p.rows != lines.size() || p.lines != line_ranges(lines, again) || p.input_sha256 != hash) {
      refuse_changed_input(dir, p, manifest_path);
    }
  }
  if (index < old.parts.size()) refuse_changed_input(dir, old.parts[index], manifest_path);
  for (std::size_t i = 0; i < old.inputs.size(); ++i) {
    if (old.complete && old.inputs[i].sha256 && *old.inputs[i].sha256 != whole[i].hex()) {
      Message m;
      m << "resume: input " << Verbatim{old.inputs[i].path} << " has another SHA-256 than when "
        << Verbatim{manifest_path} << " was written: it changed, so choose another output_dir";
      throw m.usage_error({"resume", "output_dir"});
    }
  }
}


class Stopwatch {
 public:
  explicit Stopwatch(double& total) : total_(total), start_(std::chrono::steady_clock::now()) {}
  ~Stopwatch() { total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  double& total_;
  std::chrono::steady_clock::time_point start_;
};


[[noreturn]] void not_a_directory(const std::string& dir) {
  throw (Message() << "output_dir " << Verbatim{dir} << " exists and is not a directory").usage_error({"output_dir"});
}

// Creates `dir` unless it exists; whether this call created it. With
// no_clobber() and a new run (not `continuing` one with resume), `dir` must
// not exist: mkdir(2) makes it, or the run is refused (even if it appeared
// a moment ago).
bool make_directory(const std::string& dir, bool continuing) {
  if (no_clobber() && !continuing) {
    refuse_existing_output(dir, "output_dir");
    pause_for_test("output-dir-create");  // checked, not yet made
    if (::mkdir(dir.c_str(), 0777) == 0) return true;
    if (errno == EEXIST) {
      Message m;
      m << "output_dir " << Verbatim{dir} << " appeared while this run started, and no_clobber keeps it: nothing was "
        << "written; remove it or choose another output_dir";
      throw m.usage_error({"output_dir", "no_clobber"});
    }
    throw (Message() << "cannot create output_dir " << Verbatim{dir} << ": " << std::strerror(errno))
        .error({"output_dir"});
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) not_a_directory(dir);
    return false;
  }
  // EEXIST: a concurrent run created it first; the lock decides.
  const bool created = ::mkdir(dir.c_str(), 0777) == 0;
  if (!created && errno != EEXIST) {
    throw (Message() << "cannot create output_dir " << Verbatim{dir} << ": " << std::strerror(errno))
        .error({"output_dir"});
  }
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) not_a_directory(dir);
  return created;
}

}  // namespace

struct PartsDirSink::State {
  PartsDirOptions options;
  LineReader& reader;
  std::string dir, manifest_path, journal_path;  // as messages name them
  bool created = false;  // by begin(): removed again if nothing was written
  bool stdin_input = false;
  std::optional<HeldDirectory> held;  // every file is written through it
  std::optional<DirLock> lock;
  Manifest progress;                // this run, with the parts so far
  std::vector<PartRecord> previous;  // the resumed run's parts
  std::vector<PartFile> existing;    // part files found by begin(); we hold the lock, so no other can appear
  std::optional<Journal> journal;    // opened once the first part is read: from then on the run has begun
  Sha256 part_input;                 // of the raw bytes of the part being read
  std::vector<Sha256> whole;         // of each input's raw bytes
  std::vector<std::size_t> whole_bytes;  // how many
  std::size_t index = 0, first_row = 0;
  std::optional<PartRecord> pending;  // the part next() returned, until add()
  PartsDirStats stats;
  std::string interrupt_note;  // said by the signal handlers while the run is under way

  ~State() {
    if (!interrupt_note.empty()) set_interrupt_note(nullptr);
  }

  State(PartsDirOptions o, LineReader& r) : options(std::move(o)), reader(r) {}

  // The run begins: manifest.json ("complete": false, the resumed run's
  // parts) and an empty journal.
  void start() {
    pause_for_test("parts-dir-start");  // the first part read, nothing written yet
    Stopwatch w(stats.manifest_seconds);
    check_in_place();
    progress.parts = previous;
    write_manifest(held->at(kManifest), manifest_path, progress);
    journal.emplace(held->at(kJournal), journal_path);
    progress.parts.clear();
    // From here an interrupted run can be resumed: say so if a signal ends it.
    if (!options.interrupt_note.empty()) {
      interrupt_note = options.interrupt_note + "\n";
      set_interrupt_note(interrupt_note.c_str());
    }
  }

  // The files go to the directory the run began in (held), wherever it is
  // now; a run whose output_dir was renamed (and perhaps another made at its
  // name) stops here, before anything claims to be complete at that name.
  void check_in_place() const {
    if (!held->moved()) return;
    Message m;
    m << "output_dir " << Verbatim{dir} << " was moved or replaced while this run wrote to it; the run's parts and "
      << "journal are in the directory that was moved: move it back to " << Verbatim{dir}
      << " and run the same command with " << Verbatim{"resume"};
    throw m.error({"output_dir"});
  }
};

PartsDirSink::PartsDirSink(PartsDirOptions options, LineReader& reader)
    : s_(std::make_unique<State>(std::move(options), reader)) {}

PartsDirSink::~PartsDirSink() {
  // A run that wrote nothing (refused, no text, a read error in the first
  // part) leaves no lock file and no directory it made.
  if (s_->lock && !s_->journal) {
    s_->lock->remove_if_made();
    s_->lock.reset();
    if (s_->created && !s_->held->moved()) ::rmdir(s_->dir.c_str());
  }
}

const PartsDirStats& PartsDirSink::stats() const { return s_->stats; }

void PartsDirSink::begin(const SinkRun& sink_run) {
  State& s = *s_;
  if (s.options.output_dir.empty()) throw UsageError("output_dir must not be empty", {"output_dir"});
  if (s.options.shard_rows == 0) throw UsageError("shard_rows must be at least 1", {"shard_rows"});
  LineReader& reader = s.reader;
  s.dir = s.options.output_dir;
  const std::string& dir = s.dir;
  s.created = make_directory(dir, s.options.resume);
  s.held.emplace(dir);
  // A new run writes into a new or empty directory, never beside a model's
  // or anyone's files; what a run writes itself is judged once it holds the
  // lock (resumed, or refused naming it). Checked before the lock is made.
  struct stat st;
  if (!s.created && ::lstat(s.held->at(kManifest).c_str(), &st) != 0) {
    if (const std::string other = first_foreign_entry(*s.held); !other.empty()) {
      Message m;
      m << "output_dir " << Verbatim{dir} << " is not empty (it holds " << Verbatim{other}
        << "); give a new directory (or an empty one)";
      throw m.usage_error({"output_dir"});
    }
  }
  s.lock.emplace(*s.held);
  remove_stale_temporaries(*s.held);
  s.manifest_path = dir + "/" + kManifest;
  s.journal_path = dir + "/" + kJournal;

  // This run, as the manifest records it.
  Manifest& run = s.progress;
  run.embedpe_version = version();
  run.config = sink_run.config;
  const InputOptions& o = reader.options();
  run.reading = {reader.paths(), o.format == InputFormat::jsonl ? "jsonl" : "lines",
                 o.field,        o.skip_empty,
                 shard_label(o.shard_index, o.shard_count), o.shard_seek && o.shard_count > 1};
  for (const auto& path : reader.paths()) {
    InputRecord in{path, std::nullopt, std::nullopt};
    struct stat input;
    if (path != "-" && ::stat(path.c_str(), &input) == 0 && S_ISREG(input.st_mode)) {
      in.bytes = static_cast<std::size_t>(input.st_size);
    }
    run.inputs.push_back(std::move(in));
  }
  run.shard_rows = s.options.shard_rows;

  // Resuming: the old run's parts, once everything that decides them is
  // known to be the same. Standard input cannot be read twice: its parts are
  // compared as they are read instead.
  s.stdin_input = std::find(reader.paths().begin(), reader.paths().end(), "-") != reader.paths().end();
  if (::lstat(s.held->at(kManifest).c_str(), &st) == 0) {
    if (!s.options.resume) {
      Message m;
      m << Verbatim{dir} << " already holds a manifest.json; continue that run with resume, or choose an empty "
        << "output_dir";
      throw m.usage_error({"resume", "output_dir"});
    }
    Manifest old = load_manifest(dir, s.held->at("."));
    if (old.merged) {
      Message m;
      m << Verbatim{dir} << " was joined by embedpe merge from " << std::to_string(old.merged)
        << " shards: it is complete, and its parts are cut where the shards ended, not every shard_rows rows, so it "
        << "is not resumed; encode into a new output_dir";
      throw m.usage_error({"resume", "output_dir"});
    }
    check_same_run(old, run, s.manifest_path);
    if (!s.stdin_input) verify_input_unchanged(old, reader, dir, s.manifest_path);
    pause_for_test("parts-dir-verified");  // the input checked, not yet read for the run
    s.previous = std::move(old.parts);
  } else {
    const auto stray = part_files_in(dir, s.held->at("."));
    if (!stray.empty() || ::lstat(s.held->at(kJournal).c_str(), &st) == 0) {
      Message m;
      m << Verbatim{dir} << " holds " << Verbatim{stray.empty() ? std::string(kJournal) : stray.front().name}
        << " but no manifest.json, so it is not a run embedpe can " << Verbatim{"resume"}
        << " or replace; choose an empty output_dir";
      throw m.usage_error({"output_dir"});
    }
  }

  // Before anything is written: a part path that is not a regular file (a
  // FIFO would block an open, a symlink could lead anywhere) is an error
  // naming it, wherever it is; it is never opened, replaced or removed.
  {
    Stopwatch w(s.stats.manifest_seconds);
    s.existing = part_files_in(dir, s.held->at("."));
    for (const auto& f : s.existing) {
      if (!f.regular) {
        throw Error(dir + "/" + f.name + " is not a regular file; remove it (it is not a part embedpe wrote)");
      }
    }
  }

  s.whole.resize(reader.paths().size());
  s.whole_bytes.assign(reader.paths().size(), 0);
  reader.set_raw_sink([&s](std::size_t source, std::string_view raw) {
    s.part_input.update(raw);
    s.whole[source].update(raw);
    s.whole_bytes[source] += raw.size();
  });
}

std::optional<Part> PartsDirSink::next() {
  State& s = *s_;
  if (s.pending) throw InternalError("a part of the parts directory was not added");
  std::vector<TextLine> lines = s.reader.next(s.options.shard_rows);
  // The first part's lines are read before anything is written: an input
  // with no text (or a read error) leaves no directory this run created.
  if (lines.empty()) return std::nullopt;
  Part part{s.index, s.first_row, std::move(lines), false};
  const std::string name = part_name(s.index);
  PartRecord p{name, part.lines.size(), line_ranges(part.lines, s.reader), s.part_input.hex(), "", 0, ""};
  s.part_input = Sha256();
  ++s.index;
  s.first_row += part.lines.size();
  // A resumed part: the bytes this run read for it, not only those
  // verify_input_unchanged read before (the input may have changed in
  // between). The first part is compared before anything is written.
  if (part.index < s.previous.size()) {
    const PartRecord& prev = s.previous[part.index];
    if (prev.rows != p.rows || prev.lines != p.lines || prev.input_sha256 != p.input_sha256) {
      refuse_changed_input(s.dir, prev, s.manifest_path);
    }
  }
  if (!s.journal) s.start();
  if (part.index < s.previous.size()) {
    const PartRecord& prev = s.previous[part.index];
    // Each part on its own: one missing or damaged part is redone, and
    // those after it are still kept if intact.
    std::optional<std::string> data;
    {
      Stopwatch w(s.stats.part_hash_seconds);
      data = read_part(s.held->at(name), s.dir + "/" + name);
    }
    if (data && data->size() == prev.bytes && sha256_hex(*data) == prev.sha256) {
      s.progress.parts.push_back(prev);
      ++s.stats.kept;
      part.kept = true;
      return part;
    }
  }
  s.pending = std::move(p);
  return part;
}

void PartsDirSink::add(const SinkBatch& batch) {
  State& s = *s_;
  if (!s.pending) throw InternalError("a batch for the parts directory without a part to hold it");
  PartRecord& p = *s.pending;
  const std::string path = s.dir + "/" + p.file, at = s.held->at(p.file);
  {
    OutputFile out(at, path, Existing::replaced);  // a part this run redoes (see write_manifest)
    // The record is of the bytes written, hashed as they are written.
    Sha256 written;
    std::size_t bytes = 0;
    out.on_write([&](std::string_view piece) {
      Stopwatch w(s.stats.part_hash_seconds);
      written.update(piece);
      bytes += piece.size();
    });
    // NumPy has no bfloat16: bfloat16 tensors are written as the float32 values they hold.
    std::vector<TensorRef> tensors = batch.tensors;
    std::vector<TensorBuffer> wide(tensors.size());
    for (std::size_t k = 0; k < tensors.size(); ++k) {
      if (tensors[k].dtype == DType::bfloat16) tensors[k] = convert(tensors[k], DType::float32, wide[k]);
    }
    write_npz(out, tensors);
    s.check_in_place();
    out.commit();
    p.sha256 = written.hex();
    p.bytes = bytes;
  }
  {
    Stopwatch w(s.stats.manifest_seconds);
    s.journal->append(p);
  }
  s.progress.parts.push_back(std::move(p));
  s.pending.reset();
}

void PartsDirSink::add_tables(const SinkTables&) {
  throw InternalError("tables given to the parts directory, which holds rows of text only");
}

void PartsDirSink::finish() {
  State& s = *s_;
  if (s.pending) throw InternalError("a part of the parts directory was not added");
  if (!s.journal) s.start();  // no part: an empty shard of many is a run of zero parts
  Stopwatch w(s.stats.manifest_seconds);
  // Parts an earlier, longer run left beyond this run's end.
  for (const auto& f : s.existing) {
    if (f.index >= s.progress.parts.size() && ::unlink(s.held->at(f.name).c_str()) != 0 && errno != ENOENT) {
      throw Error("cannot remove " + s.dir + "/" + f.name + " (beyond this run's last part): " + std::strerror(errno));
    }
  }
  // Each input as read: the SHA-256 and number of the bytes read (hashed
  // while reading), not a size taken before (a file may grow meanwhile).
  const bool sharded = s.reader.options().shard_count > 1 && s.progress.inputs.size() == 1;
  for (std::size_t i = 0; i < s.progress.inputs.size(); ++i) {
    InputRecord& in = s.progress.inputs[i];
    in.sha256 = s.whole[i].hex();
    if (in.bytes && !sharded) in.bytes = s.whole_bytes[i];
  }
  if (sharded) {
    // A shard's: the file's size and fingerprint when the reader opened it, through its descriptor.
    s.progress.inputs[0].bytes = s.reader.opened_size();
    s.progress.inputs[0].range = s.reader.consumed_range();
    s.progress.inputs[0].fingerprint = s.reader.fingerprint();
    s.progress.inputs[0].lines = s.reader.lines_consumed();
  }
  s.progress.complete = true;
  pause_for_test("parts-dir-complete");  // every part written, the manifest not yet complete
  s.check_in_place();
  write_manifest(s.held->at(kManifest), s.manifest_path, s.progress);
  s.journal->remove();
  set_interrupt_note(nullptr);  // complete: nothing to resume
  s.stats.parts = s.progress.parts.size();
  for (const auto& p : s.progress.parts) s.stats.rows += p.rows;
}

std::string part_name(std::size_t index) { return part_file_name(index); }

std::vector<std::string> parts_dir_files(const std::string& dir, std::size_t parts) {
  std::vector<std::string> files = {dir + "/" + kManifest, dir + "/" + kJournal, dir + "/" + kLock};
  for (std::size_t i = 0; i < parts; ++i) files.push_back(dir + "/" + part_name(i));
  return files;
}

bool is_parts_dir_file(const std::string& dir, const std::string& path) {
  char resolved_dir[PATH_MAX];
  if (!::realpath(dir.c_str(), resolved_dir)) return false;
  // The input's directory, resolved; its name as given (a symlink named
  // like a part would be replaced, not followed).
  const std::size_t slash = path.find_last_of('/');
  const std::string parent = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  char resolved_parent[PATH_MAX];
  if (!::realpath(parent.c_str(), resolved_parent)) return false;
  if (std::string(resolved_parent) == resolved_dir &&
      (name == kManifest || name == kJournal || name == kLock || is_part_name(name))) {
    return true;
  }
  // A hard link or symlink to one of DIR's existing files.
  struct stat in;
  if (::stat(path.c_str(), &in) != 0) return false;
  auto same_file = [&](const std::string& f) {
    struct stat out;
    return ::stat(f.c_str(), &out) == 0 && out.st_dev == in.st_dev && out.st_ino == in.st_ino;
  };
  for (const auto& f : parts_dir_files(dir, 0)) {
    if (same_file(f)) return true;
  }
  for (const auto& f : part_files_in(dir)) {
    if (same_file(dir + "/" + f.name)) return true;
  }
  return false;
}

void refuse_inputs_in_parts_dir(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& inputs) {
  for (const auto& [name, spec] : inputs) {
    if (spec.empty() || spec == "-") continue;
    const std::string path = parse_tensor_spec(spec).path;
    if (is_parts_dir_file(dir, path)) {
      throw (Message() << Verbatim{name + " " + path} << " is one of the files output_dir " << Verbatim{dir}
                       << " writes (manifest, journal, lock or part), so the run would replace it; choose another "
                          "output_dir")
          .usage_error({"output_dir"});
    }
  }
}

}  // namespace embedpe
