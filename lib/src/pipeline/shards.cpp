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
#include "embedpe/sink.h"
#include "embedpe/tensor_io.h"
#include "embedpe/version.h"
#include "message.h"
#include "parallel.h"
#include "sha256.h"
#include "sinks/shard_join.h"
#include "test_pause.h"

namespace embedpe {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t kChunk = std::size_t(4) << 20;          // bytes read at a time
constexpr std::size_t kMaxRecordBytes = std::size_t(64) << 20;  // a record or manifest larger than this is not ours
constexpr int kRecordVersion = 1;

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

// A file name's extension, lower case: ".npz"; empty if it has none.
std::string extension(const std::string& path) {
  const std::size_t dot = path.find_last_of('.'), slash = path.find_last_of('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

// The format of the sink registry that merge joins for a file named `path`
// (SinkFormat::join), by its extension; nullptr if none.
const SinkFormat* joined_format(const std::string& path) {
  const std::string ext = extension(path);
  for (const SinkFormat* f : sink_formats()) {
    if (f->join && std::find(f->extensions.begin(), f->extensions.end(), ext) != f->extensions.end()) return f;
  }
  return nullptr;
}

// The extensions of the formats merge joins: ".npy, .npz, .jsonl, .safetensors"
// (`last` before the last one).
std::string joined_extensions(const std::string& last) {
  std::vector<std::string> all;
  for (const SinkFormat* f : sink_formats()) {
    if (f->join) all.push_back(f->extensions.front());
  }
  std::string text;
  for (std::size_t k = 0; k < all.size(); ++k) text += (k == 0 ? "" : k + 1 == all.size() ? last : ", ") + all[k];
  return text;
}

// A shard's format: its output's (the sink registry's), or nullptr for an
// output_dir directory, whose parts are .npz.
const char* kind_name(const SinkFormat* format) { return format ? format->name : "parts directory"; }

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
  const SinkFormat* format = nullptr;
  std::size_t index = 0, count = 0;
  Json config, reading;
  std::size_t input_bytes = 0;
  std::string fingerprint;
  std::size_t begin = 0, end = 0;
  std::optional<std::size_t> lines;  // of the input consumed, kept or skipped
  std::string range_sha256;          // of the input bytes [begin, end), if recorded
  std::vector<Piece> pieces;  // the output file, or the directory's parts in order
};

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
    refuse_shard(shard, p.path + " changed while it was merged (replaced or rewritten after its check); run that shard "
                           "again, or merge once nothing writes it");
  }
}

Json read_json(const std::string& path, const std::string& shard, const std::string& what) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    refuse_shard(shard, "its " + what + " " + path + " is missing (" + std::strerror(errno) +
                      "); merge takes the outputs of encode with shard K/N, each with its record");
  }
  const InFile f(path);
  if (f.size() > kMaxRecordBytes) refuse_shard(shard, "its " + what + " " + path + " is too large to be one embedpe wrote");
  try {
    return Json::parse(f.all());
  } catch (const Json::exception&) {
    refuse_shard(shard, "its " + what + " " + path + " is not valid JSON (corrupt?); run that shard again");
  }
}

// Reads "K/N".
std::pair<std::size_t, std::size_t> parse_shard_label(const Json& v, const std::string& shard) {
  if (!v.is_string()) refuse_shard(shard, "its record has no shard K/N");
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
    refuse_shard(shard, "its record's shard \"" + s + "\" is not K/N with 1 <= K <= N");
  }
}

template <typename T>
T field(const Json& obj, const char* key, const std::string& shard) {
  try {
    return obj.at(key).get<T>();
  } catch (const Json::exception&) {
    refuse_shard(shard, std::string("its record has no valid \"") + key + "\" (corrupt, or not written by embedpe)");
  }
}

// The record a file carries inside (SinkTraits::holds_record: the format's
// read_record), with the piece it describes: the file's size and CRC-32 taken
// from the same bytes the record was read from, which read_verified checks
// again as merge copies them. nullopt for a file without one (the record is
// beside it).
std::optional<std::pair<Json, Piece>> record_inside(const std::string& path, const SinkFormat& format) {
  const InFile f(path);
  const std::string_view bytes = f.map();
  const std::optional<std::string> text = format.read_record(bytes, path);
  if (!text) return std::nullopt;
  Json rec;
  try {
    rec = Json::parse(*text);
  } catch (const Json::exception&) {
    refuse_shard(path, "its shard record is not valid JSON (corrupt?); run that shard again");
  }
  uLong crc = ::crc32(0L, Z_NULL, 0);
  for (std::size_t at = 0; at < bytes.size(); at += kChunk) {
    const std::size_t n = std::min(kChunk, bytes.size() - at);
    crc = ::crc32_z(crc, reinterpret_cast<const Bytef*>(bytes.data() + at), n);
  }
  return std::pair{std::move(rec), Piece{path, bytes.size(), "", crc32_hex(crc)}};
}

Shard load_file_shard(const std::string& path, const SinkFormat& format) {
  Shard s{.name = path, .format = &format};
  std::optional<std::pair<Json, Piece>> inside;
  if (format.read_record) inside = record_inside(path, format);
  const Json rec = inside ? inside->first : read_json(shard_record_path(path), path, "record");
  if (!rec.is_object() || !rec.contains("embedpe_shard")) refuse_shard(path, "its record is not an embedpe shard record");
  if (field<int>(rec, "embedpe_shard", path) != kRecordVersion) refuse_shard(path, "its record has an unknown version");
  std::tie(s.index, s.count) = parse_shard_label(rec.value("shard", Json()), path);
  const std::string recorded = field<std::string>(rec, "format", path);
  if (recorded != s.format->name) refuse_shard(path, "its record says it is " + recorded + ", not " + s.format->name);
  s.config = field<Json>(rec, "config", path);
  s.reading = field<Json>(rec, "reading", path);
  const Json input = field<Json>(rec, "input", path);
  s.input_bytes = field<std::size_t>(input, "bytes", path);
  s.fingerprint = field<std::string>(input, "fingerprint", path);
  const auto range = field<std::vector<std::size_t>>(input, "range", path);
  if (range.size() != 2 || range[0] > range[1] || range[1] > s.input_bytes) refuse_shard(path, "its record's range is invalid");
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
  Shard s{.name = dir, .format = nullptr};
  const Json m = read_json(dir + "/manifest.json", dir, "manifest");
  if (!m.is_object() || field<std::string>(m, "format", dir) != "npz" || !m.contains("parts")) {
    refuse_shard(dir, "its manifest.json is not one embedpe encode output_dir wrote");
  }
  if (!field<bool>(m, "complete", dir)) {
    refuse_shard(dir, "its run is not complete (manifest.json says \"complete\": false); run that shard again with resume");
  }
  s.config = field<Json>(m, "config", dir);
  Json reading = field<Json>(m, "reading", dir);
  std::tie(s.index, s.count) = parse_shard_label(reading.value("shard", Json()), dir);
  const Json inputs = field<Json>(m, "inputs", dir);
  if (!inputs.is_array() || inputs.size() != 1) refuse_shard(dir, "a sharded run reads exactly one input; its manifest lists " + std::to_string(inputs.size()));
  const Json& in = inputs[0];
  s.input_bytes = field<std::size_t>(in, "bytes", dir);
  if (s.count > 1) {
    s.fingerprint = field<std::string>(in, "fingerprint", dir);
    const auto range = field<std::vector<std::size_t>>(in, "range", dir);
    if (range.size() != 2 || range[0] > range[1] || range[1] > s.input_bytes) refuse_shard(dir, "its manifest's range is invalid");
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
    if (file.find('/') != std::string::npos || file.empty()) refuse_shard(dir, "its manifest names a part outside it");
    const std::size_t part_rows = field<std::size_t>(p, "rows", dir);
    std::size_t in_lines = 0;
    for (const Json& r : field<Json>(p, "lines", dir)) {
      const std::size_t first = field<std::size_t>(r, "first_line", dir), to = field<std::size_t>(r, "last_line", dir);
      if (first <= last || to < first) {
        refuse_shard(dir, "its manifest's line ranges of " + file + " overlap or go backwards (corrupt?)");
      }
      in_lines += to - first + 1;
      last = to;
    }
    // A range spans its first row's line to its last's: with skip_empty it
    // may include skipped lines.
    if (skipping ? in_lines < part_rows : in_lines != part_rows) {
      refuse_shard(dir, "its manifest gives " + file + " " + std::to_string(part_rows) + " rows but " +
                      std::to_string(in_lines) + " lines (corrupt?)");
    }
    rows += part_rows;
    s.pieces.push_back(
        {dir + "/" + file, field<std::size_t>(p, "bytes", dir), field<std::string>(p, "sha256", dir), "", part_rows});
  }
  if (rows != field<std::size_t>(m, "rows", dir)) {
    refuse_shard(dir, "its manifest's parts hold " + std::to_string(rows) + " rows, not the " +
                    std::to_string(field<std::size_t>(m, "rows", dir)) +
                    " it says the run wrote (a part missing from it?)");
  }
  // A shard_seek shard numbers its own lines; another, the file's.
  const bool own = s.reading.value("shard_seek", false);
  if (s.lines && ((own && last > *s.lines) || (!skipping && rows != *s.lines) || rows > *s.lines)) {
    refuse_shard(dir, "its manifest's parts hold " + std::to_string(rows) + " rows up to line " + std::to_string(last) +
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
  if (const SinkFormat* f = joined_format(path)) return load_file_shard(path, *f);
  const std::string ext = extension(path);
  refuse_shard(path, "merge joins " + joined_extensions(", ") + " shards or output_dir directories, not " +
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
    if (s.format != first.format) {
      refuse_shard(s.name, std::string("it is a ") + kind_name(s.format) + " shard and " + first.name + " is a " +
                               kind_name(first.format) + " one; merge shards of one kind");
    }
    if (s.count != first.count) {
      refuse_shard(s.name, "it is one of " + std::to_string(s.count) + " shards and " + first.name + " one of " +
                         std::to_string(first.count) + ": they are not shards of the same run");
    }
    const std::string d = first_difference(comparable(first.config), comparable(s.config));
    if (!d.empty()) refuse_shard(s.name, "its config differs from " + first.name + "'s at " + d + ": not the same run");
    const std::string r = first_difference(first.reading, s.reading);
    if (!r.empty()) refuse_shard(s.name, "its input was read differently from " + first.name + "'s (" + r + ")");
    if (s.input_bytes != first.input_bytes || s.fingerprint != first.fingerprint) {
      refuse_shard(s.name, "its input is not " + first.name + "'s (size or content differs): not the same input");
    }
  }
  if (first.config.value("training", false)) {
    refuse_shard(first.name, "it was made in training mode, whose dropout masks are drawn per shard, so the shards do not "
                       "join into one run's output");
  }
  std::stable_sort(shards.begin(), shards.end(), [](const Shard& a, const Shard& b) { return a.index < b.index; });
  for (std::size_t k = 0; k < shards.size(); ++k) {
    if (k > 0 && shards[k].index == shards[k - 1].index) {
      if (same_file(shards[k].name, shards[k - 1].name)) {
        refuse_shard(shards[k].name, shards[k].name == shards[k - 1].name
                                   ? "it is given twice; give each shard once"
                                   : "it is " + shards[k - 1].name + ", given twice; give each shard once");
      }
      refuse_shard(shards[k].name, "it and " + shards[k - 1].name + " are both shard " + std::to_string(shards[k].index) +
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
      refuse_shard(s.name, "it starts at input byte " + std::to_string(s.begin) + ", not " + std::to_string(at) +
                         " where the shard before it ended: the shards do not tile the input");
    }
    at = s.end;
  }
  if (at != first.input_bytes) {
    refuse_shard(shards.back().name, "it ends at input byte " + std::to_string(at) + " of " + std::to_string(first.input_bytes));
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
            if (per_position_tensor(e.name)) continue;
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
      refuse_shard(c.shard->name, p.path + " has " + std::to_string(c.size) + " bytes, its record says " +
                                std::to_string(p.bytes) + " (truncated or replaced); run that shard again");
    }
    if (!c.intact) {
      refuse_shard(c.shard->name, p.path + " does not have its recorded " + (p.crc32.empty() ? "SHA-256" : "CRC-32") +
                                " (corrupt or replaced); run that shard again");
    }
    if (p.rows && c.rows != p.rows) {
      refuse_shard(c.shard->name, p.path + " holds " + (c.rows ? std::to_string(*c.rows) : std::string("no")) +
                                " rows, its manifest says " + std::to_string(*p.rows) + " (corrupt?)");
    }
    stats.bytes_read += c.size;
  }
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
      refuse_shard(s.name, "its record has no SHA-256 of the input it read, to check against input");
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
      refuse_shard(s.name, "its record says it read " + std::to_string(*s.lines) + " lines, and its bytes of " + input +
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
    if (own && !s.lines) refuse_shard(s.name, "its record does not say how many input lines it read");
    offsets.push_back(own ? before : 0);
    before += s.lines.value_or(0);
  }
  return offsets;
}

// Every shard holds no row: the input has no text, which a single run refuses too.
[[noreturn]] void refuse_no_rows(const std::string& shard) {
  refuse_shard(shard, "no shard holds a row (the input has no text): nothing to merge");
}

// Parts directories into one parts directory (parts_dir.h, join_parts_dirs).
MergeStats merge_into_directory(const MergeOptions& options) {
  if (!options.output.empty())
    throw UsageError("merge writes a file or a directory: give output or output_dir, not both");
  MergeStats stats;
  std::vector<Shard> shards;
  for (const std::string& path : options.shards) {
    shards.push_back(load_shard(path));
    if (const SinkFormat* f = shards.back().format) {
      Message m;
      m << "merge: " << f->name << " shards join into a " << f->extensions.front()
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
    throw UsageError("merge writes a file: give output_path OUT (" + joined_extensions(" or ") +
                         "), or output_dir DIR for output_dir shards",
                     {"output_path", "output_dir"});
  }
  if (options.shards.empty()) throw UsageError("merge needs the shards to join");
  if (!options.output_dir.empty()) return merge_into_directory(options);
  const SinkFormat* target = joined_format(options.output);
  if (!target) {
    Message m;
    m << "merge writes " << joined_extensions(" or ") << "; " << Verbatim{options.output} << " is none of them";
    throw m.usage_error();
  }
  check_stale_shard_record(options.output);
  MergeStats stats;
  std::vector<Shard> shards;
  for (const std::string& path : options.shards) shards.push_back(load_shard(path));
  stats.shards = shards.size();
  const SinkFormat* kind = shards.front().format;
  const bool fits = kind == target || (!kind && target->traits.joins_parts);
  if (!fits) {
    std::string into;  // what these shards join into
    if (kind) {
      into = kind->extensions.front();
    } else {
      std::vector<std::string> all;
      for (const SinkFormat* f : sink_formats()) {
        if (f->join && f->traits.joins_parts) all.push_back(f->extensions.front());
      }
      for (std::size_t k = 0; k < all.size(); ++k) into += (k == 0 ? "" : k + 1 == all.size() ? " or " : ", ") + all[k];
    }
    Message m;
    m << "merge: " << kind_name(kind) << " shards join into " << into << ", not " << Verbatim{options.output};
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
  // The files in order, each read through read_verified: what is copied is what was checked.
  ShardJoin join{.parts = kind == nullptr, .config = shards.front().config};
  std::size_t lines_before = 0;  // what a shard_seek shard's own line numbers are raised by
  for (const Shard& s : shards) {
    for (const Piece& p : s.pieces) {
      join.files.push_back({.shard = s.name,
                            .path = p.path,
                            .bytes = p.bytes,
                            .rows = p.rows,
                            .own_lines = s.reading.value("shard_seek", false),
                            .line_offset = lines_before,
                            .lines = s.lines.value_or(0),
                            .skip_empty = s.reading.value("skip_empty", false),
                            .read = [&s, &p](const std::function<void(std::size_t, std::string_view)>& use) {
                              read_verified(s.name, p, use);
                            },
                            .peek = [&p](const std::function<void(std::string_view)>& look) {
                              const InFile f(p.path);
                              look(f.map());
                            }});
    }
    lines_before += s.lines.value_or(0);
  }
  if (join.files.empty()) refuse_shard(shards.front().name, "no shard holds a part: nothing to write");
  stats.rows = target->join(out, join);
  if (stats.rows == 0) refuse_no_rows(shards.front().name);
  out.commit();
  struct stat done;
  if (::stat(options.output.c_str(), &done) == 0) stats.bytes_written = static_cast<std::size_t>(done.st_size);
  return stats;
}

}  // namespace embedpe
