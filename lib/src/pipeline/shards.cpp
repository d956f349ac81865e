// Shard records (OUTPUT.shard.json) and embedpe merge: see embedpe/shards.h.
#include "embedpe/shards.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "embedpe/dtype.h"
#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/parts_dir.h"
#include "embedpe/tensor_io.h"
#include "embedpe/version.h"
#include "message.h"
#include "parallel.h"
#include "sha256.h"
#include "test_pause.h"

namespace embedpe {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t kChunk = std::size_t(4) << 20;          // bytes read at a time
constexpr std::size_t kMaxRecordBytes = std::size_t(64) << 20;  // a record or manifest larger than this is not ours
constexpr int kRecordVersion = 1;

// Tensors with one row per position, the same in every shard (encoder.cpp's SinkRun::per_position).
bool per_position(const std::string& name) {
  return name == "positional_encoding" || name == "rope_cos" || name == "rope_sin";
}

std::string base_name(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// An open regular file, read in pieces; errors name it. A FIFO is refused,
// never waited on (O_NONBLOCK); with follow_links false, so is a symlink.
class InFile {
 public:
  explicit InFile(const std::string& path, bool follow_links = true) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | (follow_links ? 0 : O_NOFOLLOW));
    if (fd_ < 0 && errno == ELOOP && !follow_links) fail("it is a symbolic link, not a file embedpe wrote");
    if (fd_ < 0) fail(std::string("cannot open it: ") + std::strerror(errno));
    struct stat st;
    if (::fstat(fd_, &st) != 0) fail(std::strerror(errno));
    if (!S_ISREG(st.st_mode)) {
      ::close(fd_);
      fd_ = -1;
      fail("it is not a regular file");
    }
    size_ = static_cast<std::size_t>(st.st_size);
    try {
      note_input(fd_, path_);
    } catch (...) {
      ::close(fd_);
      throw;
    }
  }
  InFile(const InFile&) = delete;
  InFile& operator=(const InFile&) = delete;
  ~InFile() {
    if (map_) ::munmap(map_, size_);
    if (fd_ >= 0) ::close(fd_);
  }
  std::size_t size() const { return size_; }
  int fd() const { return fd_; }
  // `n` bytes at `offset`; fewer only at the end of the file.
  std::string read_at(std::size_t offset, std::size_t n) const {
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
  // Calls `f` with consecutive pieces of [offset, offset + n); the file must hold them.
  template <typename F>
  void each_chunk(std::size_t offset, std::size_t n, F&& f) const {
    for (std::size_t done = 0; done < n;) {
      const std::string piece = read_at(offset + done, std::min(kChunk, n - done));
      if (piece.empty()) fail("it is shorter than it was");
      f(std::string_view(piece));
      done += piece.size();
    }
  }
  std::string all() const {
    std::string s = read_at(0, size_);
    if (s.size() != size_) fail("it is shorter than it was");
    return s;
  }
  // The whole file, mapped: no copy of a part of hundreds of megabytes.
  std::string_view map() const {
    if (!map_ && size_ > 0) {
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
      if (p == MAP_FAILED) fail(std::string("cannot map it: ") + std::strerror(errno));
      ::madvise(p, size_, MADV_SEQUENTIAL);
      map_ = p;
    }
    return {static_cast<const char*>(map_), size_};
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    Message m;
    m << "cannot read " << Verbatim{path_} << ": " << why;
    throw m.error();
  }
  std::string path_;
  int fd_ = -1;
  std::size_t size_ = 0;
  mutable void* map_ = nullptr;
};

// The .npy bytes of member `name` of the .npz `f`: a view of its mapping
// where the member is stored (as embedpe writes), else inflated into `keep`.
// nullopt if it has no such member. The file's checksum was checked whole.
std::optional<std::string_view> npz_member(std::string_view file, const std::string& path, const std::string& name,
                                           std::string& keep) {
  for (const NpzEntry& e : npz_entries(file, path)) {
    if (e.name != name) continue;
    if (e.method == 0 && e.data.size() == e.size) return e.data;
    keep = std::move(read_npz(file, path, {name}).at(0).npy);
    return std::string_view(keep);
  }
  return std::nullopt;
}

std::string file_sha256(const InFile& f) {
  Sha256 h;
  f.each_chunk(0, f.size(), [&](std::string_view piece) { h.update(piece); });
  return h.hex();
}

// CRC-32 (zlib's) of an output file, as 8 hex digits. An output is hundreds of
// times its input's size (a token becomes d_model floats), so its integrity
// check must cost little next to writing it: CRC-32 runs at memory speed where
// SHA-256 took 4 times the whole encode (docs/SCALING.md). Which input and
// config a shard holds is established by the SHA-256s and the config.
std::string crc32_hex(uLong crc) {
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08lx", crc & 0xFFFFFFFFUL);
  return hex;
}

std::string file_crc32(const InFile& f) {
  uLong crc = ::crc32(0L, Z_NULL, 0);
  f.each_chunk(0, f.size(), [&](std::string_view piece) {
    crc = ::crc32_z(crc, reinterpret_cast<const Bytef*>(piece.data()), piece.size());
  });
  return crc32_hex(crc);
}

}  // namespace

// ------------------------------------------------------------ the record

std::string shard_record_path(const std::string& output) { return output + ".shard.json"; }

std::string input_fingerprint(const std::string& path) {
  const InFile f(path);
  return file_fingerprint(f.fd(), f.size(), path);
}

namespace {

// With no_clobber: the record beside `output` would be replaced or removed, so
// an existing one is refused before any work, as the output itself is.
void refuse_existing_record(const std::string& output) {
  struct stat st;
  if (!no_clobber() || ::lstat(shard_record_path(output).c_str(), &st) != 0) return;
  Message m;
  m << "the shard record " << Verbatim{shard_record_path(output)}
    << " beside output_path already exists, and no_clobber keeps it: remove it or choose another output_path";
  throw m.usage_error({"output_path", "no_clobber"});
}

}  // namespace

void check_shard_record_path(const std::string& output) {
  if (!output_is_replaced_file(output)) return;
  refuse_existing_record(output);
  const std::string record = shard_record_path(output);
  const auto refuse_record = [&](const std::string& why) {
    Message m;
    m << "cannot write the shard record " << Verbatim{record} << " beside output_path: " << why
      << "; remove it or choose another output_path";
    throw m.error({"output_path"});
  };
  const std::size_t slash = record.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : record.substr(0, std::max<std::size_t>(slash, 1));
  long name_max = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  if (name_max <= 0) name_max = NAME_MAX;
  if (base_name(record).size() > static_cast<std::size_t>(name_max)) refuse_record(std::strerror(ENAMETOOLONG));
  struct stat st;
  if (::lstat(record.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    refuse_record(std::strerror(errno));
  }
  if (S_ISLNK(st.st_mode) && ::stat(record.c_str(), &st) != 0) {
    refuse_record(errno == ENOENT ? std::string("it is a dangling symbolic link") : std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) refuse_record("it is a directory");
  if (!S_ISREG(st.st_mode)) refuse_record("it is not a regular file (a device, a FIFO or a socket)");
}

void check_stale_shard_record(const std::string& output) {
  if (!output_is_replaced_file(output)) return;
  refuse_existing_record(output);
  if (struct stat st; ::lstat(shard_record_path(output).c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    Message m;
    m << "cannot remove " << Verbatim{shard_record_path(output)}
      << " (the place of an earlier output's record): it is a directory; remove it or choose another output_path";
    throw m.error({"output_path"});
  }
  refuse_replacing_input(shard_record_path(output));
}

OutputFile::Companion without_stale_shard_record(const std::string& output) {
  return [output](int) {
    refuse_replacing_input(shard_record_path(output));
    // A name too long for a record is one no record can have: nothing to remove.
    if (::unlink(shard_record_path(output).c_str()) != 0 && errno != ENOENT && errno != ENAMETOOLONG) {
      throw Error("cannot remove " + shard_record_path(output) + " (the record of an earlier file there): " +
                  std::strerror(errno));
    }
    return std::function<void()>();
  };
}

struct ShardRecorder::State {
  LineReader& reader;
  Sha256 read;             // of every raw byte consumed, line endings included
  std::size_t lines = 0;   // consumed, kept or skipped
};

ShardRecorder::ShardRecorder(LineReader& reader) : s_(new State{reader, {}, 0}) {
  State* s = s_;
  reader.set_raw_sink([s](std::size_t, std::string_view bytes) {
    s->read.update(bytes);
    ++s->lines;
  });
}

ShardRecorder::~ShardRecorder() {
  s_->reader.set_raw_sink(nullptr);
  delete s_;
}

std::optional<Json> ShardRecorder::record(const std::string& format, const Json& config) const {
  const LineReader& r = s_->reader;
  if (r.paths().size() != 1) throw InternalError("a shard record needs exactly one input");
  const std::string& input = r.paths().front();
  if (input == "-") return std::nullopt;  // shard 1/1 of standard input: nothing to identify it by
  pause_for_test("shard-record");  // the input read, its record not yet written
  const InputOptions& o = r.options();
  const auto [begin, end] = r.consumed_range();
  // The input as the reader opened it (its size and fingerprint taken through
  // the descriptor it read), never the file found at its name now.
  if (!r.opened_size()) {
    Message m;
    m << "cannot read " << Verbatim{input} << ": it is not a regular file";
    throw m.error();
  }
  Json reading = {{"input_format", o.format == InputFormat::jsonl ? "jsonl" : "lines"},
                  {"field", o.field},
                  {"skip_empty", o.skip_empty}};
  if (o.shard_seek && o.shard_count > 1) reading["shard_seek"] = true;  // line numbers are the shard's own
  return Json{{"embedpe_shard", kRecordVersion},
              {"embedpe_version", version()},
              {"shard", std::to_string(o.shard_index) + "/" + std::to_string(o.shard_count)},
              {"format", format},
              {"config", config},
              {"reading", reading},
              {"input",
               {{"path", input},
                {"bytes", *r.opened_size()},
                {"fingerprint", r.fingerprint()},
                {"range", {begin, end}},
                {"lines", s_->lines},
                {"sha256", s_->read.hex()}}}};
}

OutputFile::Companion ShardRecorder::beside(const std::string& output, const std::string& format,
                                            const Json& config) const {
  return [this, output, format, config](int fd) -> std::function<void()> {
    std::optional<Json> rec = record(format, config);
    if (!rec) return without_stale_shard_record(output)(fd);  // standard input: no record, and none stale
    // The output's bytes as they will appear, read through the descriptor
    // that wrote them: never the file at its name, which may be another by now.
    uLong crc = ::crc32(0L, Z_NULL, 0);
    std::string chunk(kChunk, '\0');
    std::size_t size = 0;
    for (;;) {
      const ssize_t n = ::pread(fd, chunk.data(), chunk.size(), static_cast<off_t>(size));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw Error("cannot read back output " + output + ": " + std::strerror(errno));
      if (n == 0) break;
      crc = ::crc32_z(crc, reinterpret_cast<const Bytef*>(chunk.data()), static_cast<std::size_t>(n));
      size += static_cast<std::size_t>(n);
    }
    (*rec)["output"] = {{"file", base_name(output)}, {"bytes", size}, {"crc32", crc32_hex(crc)}};
    const std::string path = shard_record_path(output);
    OutputFile f(path);
    // Paths are bytes, not always UTF-8: invalid ones are written as U+FFFD.
    f.write(rec->dump(1, ' ', false, Json::error_handler_t::replace) + "\n");
    f.commit();
    return [path] { ::unlink(path.c_str()); };
  };
}

// ------------------------------------------------------------ merging

namespace {

enum class Kind { npy, npz, jsonl, parts_dir };

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::npy: return "npy";
    case Kind::npz: return "npz";
    case Kind::jsonl: return "jsonl";
    case Kind::parts_dir: return "parts directory";
  }
  return "?";
}

// A file a shard is made of, with the size and hash its record gives it.
struct Piece {
  std::string path;
  std::size_t bytes = 0;
  std::string sha256;  // a part's (its manifest's record)
  std::string crc32;   // a file shard's (its record's)
  std::optional<std::size_t> rows;  // a part's, which its file must hold
};

struct Shard {
  std::string name;  // as given
  Kind kind = Kind::npy;
  std::size_t index = 0, count = 0;
  Json config, reading;
  std::size_t input_bytes = 0;
  std::string fingerprint;
  std::size_t begin = 0, end = 0;
  std::optional<std::size_t> lines;  // of the input consumed, kept or skipped
  std::string range_sha256;          // of the input bytes [begin, end), if recorded
  std::vector<Piece> pieces;  // the output file, or the directory's parts in order
};

[[noreturn]] void refuse(const std::string& shard, const std::string& why) {
  Message m;
  m << "shard " << Verbatim{shard} << ": " << why;
  throw m.error();
}

// The leaves where two JSON values differ, as "model.sha256, seed".
void differences(const Json& a, const Json& b, const std::string& at, std::vector<std::string>& out) {
  if (a.is_object() && b.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      const std::string key = at.empty() ? it.key() : at + "." + it.key();
      if (!b.contains(it.key())) {
        out.push_back(key);
      } else {
        differences(it.value(), b.at(it.key()), key, out);
      }
    }
    for (auto it = b.begin(); it != b.end(); ++it) {
      if (!a.contains(it.key())) out.push_back(at.empty() ? it.key() : at + "." + it.key());
    }
  } else if (a != b) {
    out.push_back(at.empty() ? std::string("the whole") : at);
  }
}

std::string first_difference(const Json& a, const Json& b) {
  std::vector<std::string> all;
  differences(a, b, "", all);
  std::string text;
  for (const std::string& d : all) text += (text.empty() ? "" : ", ") + d;
  return text;
}

// What is copied is what was checked: the piece's file read once, whole and
// in order, through one descriptor; each chunk goes to use(offset, bytes),
// and the bytes read must have the piece's recorded checksum, or the shard
// is refused (before the output is committed). A file replaced or rewritten
// since check_shards looked at it is caught here, not copied.
template <typename F>
void read_verified(const std::string& shard, const Piece& p, F&& use) {
  const InFile f(p.path, /*follow_links=*/!p.crc32.empty());  // a part is never a link
  Sha256 sha;
  uLong crc = ::crc32(0L, Z_NULL, 0);
  const bool part = p.crc32.empty();
  std::size_t at = 0;
  for (;;) {
    const std::string piece = f.read_at(at, kChunk);
    if (piece.empty()) break;
    if (part) {
      sha.update(piece);
    } else {
      crc = ::crc32_z(crc, reinterpret_cast<const Bytef*>(piece.data()), piece.size());
    }
    use(at, std::string_view(piece));
    at += piece.size();
  }
  if (at != p.bytes || (part ? sha.hex() != p.sha256 : crc32_hex(crc) != p.crc32)) {
    refuse(shard, p.path + " changed while it was merged (replaced or rewritten after its check); run that shard "
                           "again, or merge once nothing writes it");
  }
}

// The whole file of a piece, checked as read_verified does.
std::string read_verified_whole(const std::string& shard, const Piece& p) {
  std::string all;
  all.reserve(p.bytes);
  read_verified(shard, p, [&](std::size_t, std::string_view bytes) { all.append(bytes); });
  return all;
}

Json read_json(const std::string& path, const std::string& shard, const std::string& what) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    refuse(shard, "its " + what + " " + path + " is missing (" + std::strerror(errno) +
                      "); merge takes the outputs of encode with shard K/N, each with its record");
  }
  const InFile f(path);
  if (f.size() > kMaxRecordBytes) refuse(shard, "its " + what + " " + path + " is too large to be one embedpe wrote");
  try {
    return Json::parse(f.all());
  } catch (const Json::exception&) {
    refuse(shard, "its " + what + " " + path + " is not valid JSON (corrupt?); run that shard again");
  }
}

// Reads "K/N".
std::pair<std::size_t, std::size_t> parse_shard_label(const Json& v, const std::string& shard) {
  if (!v.is_string()) refuse(shard, "its record has no shard K/N");
  const std::string s = v.get<std::string>();
  const std::size_t slash = s.find('/');
  try {
    if (slash == std::string::npos) throw std::invalid_argument(s);
    std::size_t used = 0;
    const unsigned long k = std::stoul(s.substr(0, slash), &used);
    if (used != slash) throw std::invalid_argument(s);
    const unsigned long n = std::stoul(s.substr(slash + 1), &used);
    if (used != s.size() - slash - 1 || k == 0 || k > n) throw std::invalid_argument(s);
    return {k, n};
  } catch (const std::exception&) {
    refuse(shard, "its record's shard \"" + s + "\" is not K/N with 1 <= K <= N");
  }
}

template <typename T>
T field(const Json& obj, const char* key, const std::string& shard) {
  try {
    return obj.at(key).get<T>();
  } catch (const Json::exception&) {
    refuse(shard, std::string("its record has no valid \"") + key + "\" (corrupt, or not written by embedpe)");
  }
}

// The record an .npz carries inside, its "shard" member (SinkRun::record),
// with the piece it describes: the file's size and CRC-32 taken from the
// same bytes the record was read from, which read_verified checks again as
// merge copies them. nullopt for an .npz without one (the record is beside it).
std::optional<std::pair<Json, Piece>> record_inside(const std::string& path) {
  const InFile f(path);
  const std::string_view bytes = f.map();
  std::string keep;
  std::optional<std::string_view> member;
  try {
    member = npz_member(bytes, path, "shard", keep);
  } catch (const Error&) {
    return std::nullopt;  // not an .npz at all: said as a missing record, below
  }
  if (!member) return std::nullopt;
  // No checksum of the whole file is recorded inside it: each member's own
  // CRC-32 (the zip's) says the file is intact; read_verified then checks
  // that what is copied is these very bytes.
  for (const NpzEntry& e : npz_entries(bytes, path)) {
    try {
      check_npz_entry(e, path);
    } catch (const Error&) {
      refuse(path, "its member " + e.name + ".npy is corrupt (CRC-32 mismatch); run that shard again");
    }
  }
  Json rec;
  try {
    rec = Json::parse(npy_text(*member, path + " member shard.npy"));
  } catch (const Json::exception&) {
    refuse(path, "its shard member is not valid JSON (corrupt?); run that shard again");
  }
  uLong crc = ::crc32(0L, Z_NULL, 0);
  for (std::size_t at = 0; at < bytes.size(); at += kChunk) {
    const std::size_t n = std::min(kChunk, bytes.size() - at);
    crc = ::crc32_z(crc, reinterpret_cast<const Bytef*>(bytes.data() + at), n);
  }
  return std::pair{std::move(rec), Piece{path, bytes.size(), "", crc32_hex(crc)}};
}

Shard load_file_shard(const std::string& path, Kind kind) {
  Shard s{.name = path, .kind = kind};
  std::optional<std::pair<Json, Piece>> inside;
  if (kind == Kind::npz) inside = record_inside(path);
  const Json rec = inside ? inside->first : read_json(shard_record_path(path), path, "record");
  if (!rec.is_object() || !rec.contains("embedpe_shard")) refuse(path, "its record is not an embedpe shard record");
  if (field<int>(rec, "embedpe_shard", path) != kRecordVersion) refuse(path, "its record has an unknown version");
  std::tie(s.index, s.count) = parse_shard_label(rec.value("shard", Json()), path);
  const std::string format = field<std::string>(rec, "format", path);
  if (format != kind_name(kind)) refuse(path, "its record says it is " + format + ", not " + kind_name(kind));
  s.config = field<Json>(rec, "config", path);
  s.reading = field<Json>(rec, "reading", path);
  const Json input = field<Json>(rec, "input", path);
  s.input_bytes = field<std::size_t>(input, "bytes", path);
  s.fingerprint = field<std::string>(input, "fingerprint", path);
  const auto range = field<std::vector<std::size_t>>(input, "range", path);
  if (range.size() != 2 || range[0] > range[1] || range[1] > s.input_bytes) refuse(path, "its record's range is invalid");
  s.begin = range[0];
  s.end = range[1];
  s.lines = field<std::size_t>(input, "lines", path);
  s.range_sha256 = field<std::string>(input, "sha256", path);
  if (inside) {
    s.pieces.push_back(inside->second);
    return s;
  }
  const Json output = field<Json>(rec, "output", path);
  s.pieces.push_back({path, field<std::size_t>(output, "bytes", path), "", field<std::string>(output, "crc32", path)});
  return s;
}

Shard load_dir_shard(const std::string& dir) {
  Shard s{.name = dir, .kind = Kind::parts_dir};
  const Json m = read_json(dir + "/manifest.json", dir, "manifest");
  if (!m.is_object() || field<std::string>(m, "format", dir) != "npz" || !m.contains("parts")) {
    refuse(dir, "its manifest.json is not one embedpe encode output_dir wrote");
  }
  if (!field<bool>(m, "complete", dir)) {
    refuse(dir, "its run is not complete (manifest.json says \"complete\": false); run that shard again with resume");
  }
  s.config = field<Json>(m, "config", dir);
  Json reading = field<Json>(m, "reading", dir);
  std::tie(s.index, s.count) = parse_shard_label(reading.value("shard", Json()), dir);
  const Json inputs = field<Json>(m, "inputs", dir);
  if (!inputs.is_array() || inputs.size() != 1) refuse(dir, "a sharded run reads exactly one input; its manifest lists " + std::to_string(inputs.size()));
  const Json& in = inputs[0];
  s.input_bytes = field<std::size_t>(in, "bytes", dir);
  if (s.count > 1) {
    s.fingerprint = field<std::string>(in, "fingerprint", dir);
    const auto range = field<std::vector<std::size_t>>(in, "range", dir);
    if (range.size() != 2 || range[0] > range[1] || range[1] > s.input_bytes) refuse(dir, "its manifest's range is invalid");
    s.begin = range[0];
    s.end = range[1];
    if (in.contains("lines")) s.lines = field<std::size_t>(in, "lines", dir);
  } else {
    s.end = s.input_bytes;
  }
  if (in.contains("sha256") && in.at("sha256").is_string()) s.range_sha256 = in.at("sha256").get<std::string>();
  // The records below compare reading options; the paths may differ per host.
  reading.erase("inputs");
  reading.erase("shard");
  s.reading = reading;
  // The parts must account for the rows and lines the manifest says the run
  // read: a part list cut short or edited is refused, not merged without it.
  std::size_t rows = 0, last = 0;
  const bool skipping = s.reading.value("skip_empty", false);
  for (const Json& p : field<Json>(m, "parts", dir)) {
    const std::string file = field<std::string>(p, "file", dir);
    if (file.find('/') != std::string::npos || file.empty()) refuse(dir, "its manifest names a part outside it");
    const std::size_t part_rows = field<std::size_t>(p, "rows", dir);
    std::size_t in_lines = 0;
    for (const Json& r : field<Json>(p, "lines", dir)) {
      const std::size_t first = field<std::size_t>(r, "first_line", dir), to = field<std::size_t>(r, "last_line", dir);
      if (first <= last || to < first) {
        refuse(dir, "its manifest's line ranges of " + file + " overlap or go backwards (corrupt?)");
      }
      in_lines += to - first + 1;
      last = to;
    }
    // A range spans its first row's line to its last's: with skip_empty it
    // may include skipped lines.
    if (skipping ? in_lines < part_rows : in_lines != part_rows) {
      refuse(dir, "its manifest gives " + file + " " + std::to_string(part_rows) + " rows but " +
                      std::to_string(in_lines) + " lines (corrupt?)");
    }
    rows += part_rows;
    s.pieces.push_back(
        {dir + "/" + file, field<std::size_t>(p, "bytes", dir), field<std::string>(p, "sha256", dir), "", part_rows});
  }
  if (rows != field<std::size_t>(m, "rows", dir)) {
    refuse(dir, "its manifest's parts hold " + std::to_string(rows) + " rows, not the " +
                    std::to_string(field<std::size_t>(m, "rows", dir)) +
                    " it says the run wrote (a part missing from it?)");
  }
  // A shard_seek shard numbers its own lines; another, the file's.
  const bool own = s.reading.value("shard_seek", false);
  if (s.lines && ((own && last > *s.lines) || (!skipping && rows != *s.lines) || rows > *s.lines)) {
    refuse(dir, "its manifest's parts hold " + std::to_string(rows) + " rows up to line " + std::to_string(last) +
                    ", and it read " + std::to_string(*s.lines) + " lines (a part missing from it?)");
  }
  return s;
}

Shard load_shard(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    Message m;
    m << "shard " << Verbatim{path} << " does not exist (" << std::strerror(errno) << ")";
    throw m.error();
  }
  if (S_ISDIR(st.st_mode)) return load_dir_shard(path);
  std::string ext = path.substr(std::min(path.size(), path.find_last_of('.') == std::string::npos ? path.size() : path.find_last_of('.')));
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".npy") return load_file_shard(path, Kind::npy);
  if (ext == ".npz") return load_file_shard(path, Kind::npz);
  if (ext == ".jsonl") return load_file_shard(path, Kind::jsonl);
  refuse(path, "merge joins .npy, .npz, .jsonl shards or output_dir directories, not " +
                   (ext.empty() ? std::string("a file without an extension") : ext + " files"));
}

// A config as shards of one run must share it: the model by its SHA-256, not
// by the path it had on each host.
Json comparable(Json config) {
  if (config.contains("model") && config["model"].is_object() && config["model"].contains("sha256")) {
    config["model"].erase("source");
  }
  return config;
}

// Whether two names are one file (or directory) now: said instead of "both shard K/N".
bool same_file(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

// Every check that does not need the output: the same run, the whole input once, intact files.
void check_shards(std::vector<Shard>& shards, MergeStats& stats) {
  const Shard& first = shards.front();
  for (const Shard& s : shards) {
    if (s.kind != first.kind) {
      refuse(s.name, std::string("it is a ") + kind_name(s.kind) + " shard and " + first.name + " is a " +
                         kind_name(first.kind) + " one; merge shards of one kind");
    }
    if (s.count != first.count) {
      refuse(s.name, "it is one of " + std::to_string(s.count) + " shards and " + first.name + " one of " +
                         std::to_string(first.count) + ": they are not shards of the same run");
    }
    const std::string d = first_difference(comparable(first.config), comparable(s.config));
    if (!d.empty()) refuse(s.name, "its config differs from " + first.name + "'s at " + d + ": not the same run");
    const std::string r = first_difference(first.reading, s.reading);
    if (!r.empty()) refuse(s.name, "its input was read differently from " + first.name + "'s (" + r + ")");
    if (s.input_bytes != first.input_bytes || s.fingerprint != first.fingerprint) {
      refuse(s.name, "its input is not " + first.name + "'s (size or content differs): not the same input");
    }
  }
  if (first.config.value("training", false)) {
    refuse(first.name, "it was made in training mode, whose dropout masks are drawn per shard, so the shards do not "
                       "join into one run's output");
  }
  std::stable_sort(shards.begin(), shards.end(), [](const Shard& a, const Shard& b) { return a.index < b.index; });
  for (std::size_t k = 0; k < shards.size(); ++k) {
    if (k > 0 && shards[k].index == shards[k - 1].index) {
      if (same_file(shards[k].name, shards[k - 1].name)) {
        refuse(shards[k].name, shards[k].name == shards[k - 1].name
                                   ? "it is given twice; give each shard once"
                                   : "it is " + shards[k - 1].name + ", given twice; give each shard once");
      }
      refuse(shards[k].name, "it and " + shards[k - 1].name + " are both shard " + std::to_string(shards[k].index) +
                                 "/" + std::to_string(shards[k].count));
    }
  }
  const std::size_t n = first.count;
  for (std::size_t k = 1, at = 0; k <= n; ++k) {
    if (at >= shards.size() || shards[at].index != k) {
      Message m;
      m << "shard " << std::to_string(k) << "/" << std::to_string(n) << " is missing (given " << std::to_string(shards.size())
        << " of " << std::to_string(n) << "); give every shard of the run";
      throw m.error();
    }
    ++at;
  }
  std::size_t at = 0;
  for (const Shard& s : shards) {
    if (s.begin != at) {
      refuse(s.name, "it starts at input byte " + std::to_string(s.begin) + ", not " + std::to_string(at) +
                         " where the shard before it ended: the shards do not tile the input");
    }
    at = s.end;
  }
  if (at != first.input_bytes) {
    refuse(shards.back().name, "it ends at input byte " + std::to_string(at) + " of " + std::to_string(first.input_bytes));
  }
  // Every file's size and checksum, read on every core (a directory merge
  // costs little else); the first bad one in shard order is the one named.
  struct Check {
    const Shard* shard;
    const Piece* piece;
    std::size_t size = 0;
    bool intact = false;
    std::optional<std::size_t> rows;  // a part's, as its file holds them
    std::exception_ptr error;
  };
  std::vector<Check> checks;
  for (const Shard& s : shards) {
    for (const Piece& p : s.pieces) checks.push_back({&s, &p});
  }
  parallel_for(checks.size(), usable_threads(available_cores()), [&](std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) {
      Check& c = checks[k];
      try {
        const bool part = c.piece->crc32.empty();
        const InFile f(c.piece->path, /*follow_links=*/!part);  // a part is never a link: encode refuses them too
        c.size = f.size();
        if (c.size != c.piece->bytes) continue;
        c.intact = part ? file_sha256(f) == c.piece->sha256 : file_crc32(f) == c.piece->crc32;
        if (c.intact && c.piece->rows) {
          for (const NpzEntry& e : npz_entries(f.map(), c.piece->path)) {
            if (per_position(e.name)) continue;
            std::string keep;
            const std::string_view npy = npz_member(f.map(), c.piece->path, e.name, keep).value();
            c.rows = parse_npy_header(npy, c.piece->path).shape.at(0);
            break;
          }
        }
      } catch (...) {
        c.error = std::current_exception();
      }
    }
  });
  for (const Check& c : checks) {
    const Piece& p = *c.piece;
    if (c.error) std::rethrow_exception(c.error);
    if (c.size != p.bytes) {
      refuse(c.shard->name, p.path + " has " + std::to_string(c.size) + " bytes, its record says " +
                                std::to_string(p.bytes) + " (truncated or replaced); run that shard again");
    }
    if (!c.intact) {
      refuse(c.shard->name, p.path + " does not have its recorded " + (p.crc32.empty() ? "SHA-256" : "CRC-32") +
                                " (corrupt or replaced); run that shard again");
    }
    if (p.rows && c.rows != p.rows) {
      refuse(c.shard->name, p.path + " holds " + (c.rows ? std::to_string(*c.rows) : std::string("no")) +
                                " rows, its manifest says " + std::to_string(*p.rows) + " (corrupt?)");
    }
    stats.bytes_read += c.size;
  }
}

DType dtype_of(const std::string& descr, const std::string& shard) {
  for (DType d : {DType::float32, DType::float16, DType::float64, DType::int64, DType::int8}) {
    const char* nd = dtype_info(d).numpy_descr;
    if (nd && descr == nd) return d;
  }
  refuse(shard, "it holds dtype " + descr + ", which embedpe does not write");
}

// A .npy's header and the layout of its data, checked against its size.
struct NpyLayout {
  DType dtype = DType::float32;
  std::vector<std::size_t> shape;
  std::size_t data_offset = 0, data_bytes = 0;
};

NpyLayout npy_layout(std::string_view head, std::size_t file_bytes, const std::string& shard) {
  const NpyHeader h = parse_npy_header(head, shard);
  if (h.fortran_order || h.shape.empty()) refuse(shard, "its .npy is not C-ordered rows");
  NpyLayout l{dtype_of(h.descr, shard), h.shape, h.data_offset, 0};
  l.data_bytes = TensorRef{"", l.dtype, l.shape, nullptr}.bytes();
  if (l.data_offset + l.data_bytes != file_bytes) refuse(shard, "its .npy's size does not match its header");
  return l;
}

bool same_rows(const std::vector<std::size_t>& a, const std::vector<std::size_t>& b) {
  return a.size() == b.size() && std::equal(a.begin() + 1, a.end(), b.begin() + 1);
}

[[noreturn]] void refuse_shape(const std::string& shard, const std::string& piece, const std::string& tensor,
                               const std::string& other) {
  refuse(
      shard,
      (piece == shard ? std::string("its ") : piece + "'s ") + tensor + " rows are not shaped as " + other +
          "'s (without a fixed seq_len each shard, and each part, pads to its own longest line): encode with seq_len");
}

// .npy shards (or one tensor of parts) into one .npy, streamed: the data of each in turn.
struct NpySource {
  std::string shard;
  const Piece* piece;
  std::string member;  // a part's tensor; empty for a .npy file
};

void write_npy_merge(OutputFile& out, const std::vector<NpySource>& sources, MergeStats& stats) {
  // Pass 1: headers. Zero-row shards (an empty shard) may have any trailing shape.
  std::vector<NpyLayout> layouts;
  std::optional<std::size_t> shaped;
  std::size_t rows = 0;
  for (const NpySource& s : sources) {
    const std::string& path = s.piece->path;
    const InFile f(path);
    if (s.member.empty()) {
      layouts.push_back(npy_layout(f.read_at(0, std::min<std::size_t>(f.size(), 1 << 20)), f.size(), s.shard));
    } else {
      std::string keep;
      const std::optional<std::string_view> npy = npz_member(f.map(), path, s.member, keep);
      if (!npy) refuse(s.shard, path + " holds no " + s.member);
      layouts.push_back(npy_layout(*npy, npy->size(), s.shard));
    }
    const NpyLayout& l = layouts.back();
    if (l.shape[0] == 0) continue;
    if (!shaped) {
      shaped = layouts.size() - 1;
    } else if (!same_rows(l.shape, layouts[*shaped].shape) || l.dtype != layouts[*shaped].dtype) {
      refuse_shape(s.shard, path, s.member.empty() ? "tensor" : s.member, sources[*shaped].piece->path);
    }
    rows += l.shape[0];
  }
  TensorRef all{"", layouts[shaped.value_or(0)].dtype, layouts[shaped.value_or(0)].shape, nullptr};
  all.shape[0] = rows;
  out.write(npy_header(all));
  // Pass 2: the data, from the bytes whose checksum is verified as they are
  // read (a header that changed since pass 1 fails that check too).
  for (std::size_t k = 0; k < sources.size(); ++k) {
    const NpySource& s = sources[k];
    const std::size_t begin = layouts[k].data_offset, end = begin + layouts[k].data_bytes;
    if (s.member.empty()) {
      read_verified(s.shard, *s.piece, [&](std::size_t at, std::string_view bytes) {
        const std::size_t from = std::clamp(begin, at, at + bytes.size());
        const std::size_t to = std::clamp(end, at, at + bytes.size());
        out.write(bytes.substr(from - at, to - from));
      });
    } else {
      const std::string file = read_verified_whole(s.shard, *s.piece);
      std::string keep;
      const std::optional<std::string_view> npy = npz_member(file, s.piece->path, s.member, keep);
      if (!npy || npy->size() < end) refuse(s.shard, s.piece->path + " holds no " + s.member);
      out.write(npy->substr(begin, end - begin));
    }
  }
  stats.rows = rows;
}

// .npz shards or parts into one .npz: the whole output in memory, as one run holds it.
// The merged file holds the config one run's holds: `config` when given
// (for parts, which hold none: their manifest's), else the first shard's
// "config" member; no shard's record.
void write_npz_merge(OutputFile& out, const std::vector<std::pair<std::string, const Piece*>>& pieces,
                     MergeStats& stats, std::optional<std::string> config) {
  struct Tensor {
    std::string name;
    NpyLayout layout;
    std::string data;
    std::string first;     // the piece (file or part) that set its shape
    std::size_t rows = 0;  // sequences so far
  };
  std::vector<Tensor> tensors;
  std::vector<std::string> names;
  // Each tensor's bytes in all, at most: reserved once, not grown by doubling
  // (for a gigabyte that doubled the merge's time in copies and page faults).
  std::map<std::string, std::size_t> capacity;
  for (const auto& piece : pieces) {
    const InFile f(piece.second->path);
    for (const NpzEntry& e : npz_entries(f.map(), piece.second->path)) capacity[e.name] += e.size;
  }
  for (const auto& [shard, piece] : pieces) {
    const std::string& path = piece->path;
    const std::string file = read_verified_whole(shard, *piece);
    struct Member {
      std::string name;
      std::string_view npy;
    };
    std::vector<Member> members;
    std::vector<std::string> these;
    const std::vector<NpzEntry> entries = npz_entries(file, path);
    std::vector<std::string> keep(entries.size());  // inflated members, if any
    for (std::size_t k = 0; k < entries.size(); ++k) {
      const std::string_view npy = npz_member(file, path, entries[k].name, keep[k]).value();
      // Text is what a file says about itself, not rows: its config (kept
      // once) and a shard's record (which one run's file does not hold).
      if (npy_holds_text(npy, path + " member " + entries[k].name + ".npy")) {
        if (entries[k].name == "config" && !config) config = npy_text(npy, path + " member config.npy");
        continue;
      }
      members.push_back({entries[k].name, npy});
      these.push_back(entries[k].name);
    }
    if (names.empty() && tensors.empty()) {
      names = these;
      for (const Member& m : members) tensors.push_back({m.name, {}, {}, "", 0});
    } else if (these != names) {
      refuse(shard, path + " holds other tensors than the first shard's");
    }
    // Rows of this piece: those of its first per-row tensor.
    std::size_t rows = 0;
    std::vector<NpyLayout> layouts;
    for (const Member& m : members) {
      layouts.push_back(npy_layout(m.npy, m.npy.size(), shard));
      if (!per_position(m.name)) rows = layouts.back().shape[0];
    }
    bool empty_so_far = true;  // every piece before this one had zero rows
    for (const Tensor& t : tensors) empty_so_far = empty_so_far && (t.first.empty() || t.rows == 0);
    for (std::size_t k = 0; k < members.size(); ++k) {
      Tensor& t = tensors[k];
      const NpyLayout& l = layouts[k];
      const std::string_view data = std::string_view(members[k].npy).substr(l.data_offset, l.data_bytes);
      if (empty_so_far) {  // the first piece with rows (or the first piece) sets the shapes
        if (t.first.empty() || rows > 0) {
          t.layout = l;
          t.first = path;
          t.rows = rows;
          if (!per_position(t.name)) t.data.reserve(capacity[t.name]);
          t.data.assign(data);
        }
        continue;
      }
      if (rows == 0) continue;  // an empty shard adds nothing
      if (per_position(t.name)) {
        if (l.shape != t.layout.shape || l.dtype != t.layout.dtype || data != t.data)
          refuse_shape(shard, path, t.name, t.first);
        continue;
      }
      if (!same_rows(l.shape, t.layout.shape) || l.dtype != t.layout.dtype) refuse_shape(shard, path, t.name, t.first);
      t.layout.shape[0] += l.shape[0];
      t.rows += rows;
      t.data.append(data);
    }
    stats.rows += rows;
  }
  std::vector<TensorRef> refs;
  for (const Tensor& t : tensors) refs.push_back({t.name, t.layout.dtype, t.layout.shape, t.data.data()});
  std::vector<NpzText> texts;
  if (config) texts.push_back({"config", *config});
  write_npz(out, refs, texts);
}

// merge --input: the file the shards read, read again whole. Each shard's
// byte range must have the SHA-256 the shard recorded: the fingerprint covers
// only the input's size and ends, so an edit in the middle between two
// shards' runs is found only here. Returns the whole input's SHA-256.
std::string check_input(const std::string& input, const std::vector<Shard>& shards, MergeStats& stats) {
  const InFile in(input);
  const Shard& first = shards.front();
  if (in.size() != first.input_bytes ||
      (!first.fingerprint.empty() && file_fingerprint(in.fd(), in.size(), input) != first.fingerprint)) {
    Message m;
    m << "input " << Verbatim{input} << " is not the file the shards read (its size or fingerprint differs)";
    throw m.error();
  }
  Sha256 whole;
  for (const Shard& s : shards) {
    if (s.range_sha256.empty())
      refuse(s.name, "its record has no SHA-256 of the input it read, to check against input");
    Sha256 range;
    std::size_t lines = 0;
    char last = '\n';
    in.each_chunk(s.begin, s.end - s.begin, [&](std::string_view piece) {
      range.update(piece);
      whole.update(piece);
      lines += static_cast<std::size_t>(std::count(piece.begin(), piece.end(), '\n'));
      last = piece.back();
    });
    if (last != '\n') ++lines;  // a last line without its newline
    if (range.hex() != s.range_sha256) {
      Message m;
      m << "shard " << Verbatim{s.name} << " read other bytes than " << Verbatim{input} << " holds at "
        << std::to_string(s.begin) << "-" << std::to_string(s.end)
        << " (the input changed between the shards' runs?); run that shard again on this input";
      throw m.error();
    }
    if (s.lines && *s.lines != lines) {
      refuse(s.name, "its record says it read " + std::to_string(*s.lines) + " lines, and its bytes of " + input +
                         " hold " + std::to_string(lines) + " (corrupt record?)");
    }
    stats.bytes_read += s.end - s.begin;
  }
  return whole.hex();
}

// What to add to each shard's line numbers for them to be the file's: a
// shard_seek shard counts from its own first line, so the lines of the shards
// before it; 0 for a shard that counted the lines before its range.
std::vector<std::size_t> line_offsets(const std::vector<Shard>& shards) {
  std::vector<std::size_t> offsets;
  std::size_t before = 0;
  for (const Shard& s : shards) {
    const bool own = s.reading.value("shard_seek", false);
    if (own && !s.lines) refuse(s.name, "its record does not say how many input lines it read");
    offsets.push_back(own ? before : 0);
    before += s.lines.value_or(0);
  }
  return offsets;
}

// A JSON Lines shard, its records' "line" raised by `offset`. A sharded run
// reads one input, so each record starts {"line":N, (no "source").
void copy_jsonl(OutputFile& out, const Shard& s, std::size_t offset, MergeStats& stats) {
  if (!s.reading.value("shard_seek", false)) {  // the file's line numbers already
    read_verified(s.name, s.pieces[0], [&](std::size_t, std::string_view piece) {
      out.write(piece);
      stats.rows += static_cast<std::size_t>(std::count(piece.begin(), piece.end(), '\n'));
    });
    return;
  }
  static constexpr std::string_view head = "{\"line\":";
  const std::size_t lines = s.lines.value_or(0);
  std::size_t previous = 0, records = 0;
  auto record = [&](std::string_view r) {
    std::size_t i = head.size(), n = 0;
    while (i < r.size() && i < head.size() + 18 && r[i] >= '0' && r[i] <= '9')
      n = n * 10 + static_cast<std::size_t>(r[i++] - '0');
    if (r.substr(0, head.size()) != head || i == head.size() || i >= r.size() || r[i] != ',') {
      refuse(s.name, "record " + std::to_string(records + 1) +
                         " does not start {\"line\":N, (not written by embedpe encode --shard)");
    }
    // Its own lines, in order, within the count its record gives.
    if (n <= previous || n > lines) {
      refuse(s.name, "record " + std::to_string(records + 1) + " is line " + std::to_string(n) + ", after line " +
                         std::to_string(previous) + " of the " + std::to_string(lines) +
                         " its record says it read (corrupt?)");
    }
    previous = n;
    ++records;
    out.write(head);
    out.write(std::to_string(n + offset));
    out.write(r.substr(i));
    ++stats.rows;
  };
  std::string carry;  // a record cut by a chunk boundary
  read_verified(s.name, s.pieces[0], [&](std::size_t, std::string_view piece) {
    for (std::size_t at = 0; at < piece.size();) {
      const std::size_t nl = piece.find('\n', at);
      if (nl == std::string_view::npos) {
        carry.append(piece.substr(at));
        break;
      }
      if (carry.empty()) {
        record(piece.substr(at, nl + 1 - at));
      } else {
        carry.append(piece.substr(at, nl + 1 - at));
        record(carry);
        carry.clear();
      }
      at = nl + 1;
    }
  });
  if (!carry.empty()) refuse(s.name, "its last record has no line end (truncated?)");
  if (!s.reading.value("skip_empty", false) && records != lines) {
    refuse(s.name, "it holds " + std::to_string(records) + " records of the " + std::to_string(lines) +
                       " lines its record says it read (corrupt?)");
  }
}

// Every shard holds no row: the input has no text, which a single run refuses too.
[[noreturn]] void refuse_no_rows(const std::string& shard) {
  refuse(shard, "no shard holds a row (the input has no text): nothing to merge");
}

// Parts directories into one parts directory (parts_dir.h, join_parts_dirs).
MergeStats merge_into_directory(const MergeOptions& options) {
  if (!options.output.empty())
    throw UsageError("merge writes a file or a directory: give output or output_dir, not both");
  MergeStats stats;
  std::vector<Shard> shards;
  for (const std::string& path : options.shards) {
    shards.push_back(load_shard(path));
    if (shards.back().kind != Kind::parts_dir) {
      Message m;
      m << "merge: " << kind_name(shards.back().kind) << " shards join into a ." << kind_name(shards.back().kind)
        << " file, not the directory " << Verbatim{options.output_dir} << "; output_dir takes output_dir shards";
      throw m.usage_error({"output_dir"});
    }
  }
  stats.shards = shards.size();
  struct stat out;
  if (::stat(options.output_dir.c_str(), &out) == 0) {
    for (const Shard& s : shards) {
      struct stat st;
      if (::stat(s.name.c_str(), &st) == 0 && st.st_dev == out.st_dev && st.st_ino == out.st_ino) {
        Message m;
        m << "merge output_dir " << Verbatim{options.output_dir} << " is shard " << Verbatim{s.name}
          << " itself; write the merged directory elsewhere";
        throw m.usage_error({"output_dir"});
      }
    }
  }
  check_shards(shards, stats);
  std::optional<std::string> whole;
  if (!options.input.empty()) whole = check_input(options.input, shards, stats);
  const std::vector<std::size_t> offsets = line_offsets(shards);
  std::vector<JoinedShard> joined;
  for (std::size_t k = 0; k < shards.size(); ++k) joined.push_back({shards[k].name, offsets[k]});
  std::size_t rows = 0;
  for (const Shard& s : shards) {
    for (const Piece& p : s.pieces) rows += p.rows.value_or(0);
  }
  if (rows == 0) refuse_no_rows(shards.front().name);
  const JoinStats j = join_parts_dirs(options.output_dir, joined, whole);
  stats.rows = j.rows;
  stats.linked = true;
  for (const Shard& s : shards) {
    for (const Piece& p : s.pieces) stats.bytes_written += p.bytes;
  }
  return stats;
}

}  // namespace

MergeStats merge_shards(const MergeOptions& options) {
  if (options.output_dir.empty() && (options.output.empty() || options.output == "-")) {
    throw UsageError("merge writes a file: give output_path OUT.npy, OUT.npz or OUT.jsonl (or output_dir DIR for "
                     "output_dir shards)",
                     {"output_path", "output_dir"});
  }
  if (options.shards.empty()) throw UsageError("merge needs the shards to join");
  if (!options.output_dir.empty()) return merge_into_directory(options);
  std::string ext = options.output.substr(std::min(options.output.size(), options.output.rfind('.')));
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  Kind target;
  if (ext == ".npy") {
    target = Kind::npy;
  } else if (ext == ".npz") {
    target = Kind::npz;
  } else if (ext == ".jsonl") {
    target = Kind::jsonl;
  } else {
    Message m;
    m << "merge writes .npy, .npz or .jsonl; " << Verbatim{options.output} << " is none of them";
    throw m.usage_error();
  }
  check_stale_shard_record(options.output);
  MergeStats stats;
  std::vector<Shard> shards;
  for (const std::string& path : options.shards) shards.push_back(load_shard(path));
  stats.shards = shards.size();
  const Kind kind = shards.front().kind;
  const bool fits = kind == target || (kind == Kind::parts_dir && (target == Kind::npy || target == Kind::npz));
  if (!fits) {
    Message m;
    m << "merge: " << kind_name(kind) << " shards join into ";
    m << (kind == Kind::parts_dir ? std::string(".npy or .npz") : "." + std::string(kind_name(kind)));
    m << ", not " << Verbatim{options.output};
    throw m.usage_error();
  }
  // The output must not be one of the files it is made from.
  struct stat ost;
  const bool exists = ::stat(options.output.c_str(), &ost) == 0;
  check_shards(shards, stats);
  if (!options.input.empty()) check_input(options.input, shards, stats);
  for (const Shard& s : shards) {
    for (const Piece& p : s.pieces) {
      struct stat st;
      if (exists && ::stat(p.path.c_str(), &st) == 0 && st.st_dev == ost.st_dev && st.st_ino == ost.st_ino) {
        Message m;
        m << "merge output " << Verbatim{options.output} << " is shard " << Verbatim{s.name}
          << "'s own file; write the merged output elsewhere";
        throw m.usage_error();
      }
    }
  }

  // Nor any other file read (--input, a record) nor the record beside the
  // output, which is removed once the output is in place; OutputFile checks
  // again before its rename.
  refuse_replacing_input(options.output);
  refuse_replacing_input(shard_record_path(options.output));
  pause_for_test("merge-copy");  // the shards checked, none copied yet
  OutputFile out(options.output);
  out.commit_with(without_stale_shard_record(options.output));  // it described an earlier shard written there
  if (target == Kind::jsonl) {
    const std::vector<std::size_t> offsets = line_offsets(shards);
    for (std::size_t k = 0; k < shards.size(); ++k) copy_jsonl(out, shards[k], offsets[k], stats);
  } else if (target == Kind::npy) {
    std::string member;
    if (kind == Kind::parts_dir) {
      const Json emit = shards.front().config.value("emit", Json::array());
      member = emit.size() == 1 ? emit[0].get<std::string>() : "output";
      if (std::find(emit.begin(), emit.end(), Json(member)) == emit.end()) {
        refuse(shards.front().name, "its parts hold no output tensor to write as one .npy; merge into .npz");
      }
    }
    std::vector<NpySource> sources;
    for (const Shard& s : shards) {
      for (const Piece& p : s.pieces) sources.push_back({s.name, &p, member});
    }
    if (sources.empty()) refuse(shards.front().name, "no shard holds a part: nothing to write");
    write_npy_merge(out, sources, stats);
  } else {
    std::vector<std::pair<std::string, const Piece*>> pieces;
    for (const Shard& s : shards) {
      for (const Piece& p : s.pieces) pieces.emplace_back(s.name, &p);
    }
    if (pieces.empty()) refuse(shards.front().name, "no shard holds a part: nothing to write");
    std::optional<std::string> config;  // parts hold none: the manifest's, as one run's .npz holds it
    if (kind == Kind::parts_dir) config = shards.front().config.dump(-1, ' ', false, Json::error_handler_t::replace);
    write_npz_merge(out, pieces, stats, config);
  }
  if (stats.rows == 0) refuse_no_rows(shards.front().name);
  out.commit();
  struct stat done;
  if (::stat(options.output.c_str(), &done) == 0) stats.bytes_written = static_cast<std::size_t>(done.st_size);
  return stats;
}

}  // namespace embedpe
