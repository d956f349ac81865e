// Shard records (OUTPUT.shard.json, or inside the output): see embedpe/shards.h.
#include "embedpe/shards.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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
#include "embedpe/sink.h"
#include "embedpe/tensor_io.h"
#include "embedpe/version.h"
#include "crc32.h"
#include "in_file.h"
#include "json_difference.h"
#include "embedpe/message.h"
#include "parallel.h"
#include "sha256.h"
#include "shard_record.h"
#include "sinks/shard_join.h"
#include "test_pause.h"

namespace embedpe {

using Json = nlohmann::ordered_json;

std::string shard_label(std::size_t index, std::size_t count) {
  return std::to_string(index) + "/" + std::to_string(count);
}

std::string base_name(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

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
  return Json{{"embedpe_shard", kShardRecordVersion},
              {"embedpe_version", version()},
              {"shard", shard_label(o.shard_index, o.shard_count)},
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
    Crc32 crc;
    std::string chunk(InFile::kChunk, '\0');
    std::size_t size = 0;
    for (;;) {
      const ssize_t n = ::pread(fd, chunk.data(), chunk.size(), static_cast<off_t>(size));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw Error("cannot read back output " + output + ": " + std::strerror(errno));
      if (n == 0) break;
      crc.add(chunk.data(), static_cast<std::size_t>(n));
      size += static_cast<std::size_t>(n);
    }
    (*rec)["output"] = {{"file", base_name(output)}, {"bytes", size}, {"crc32", crc.hex()}};
    const std::string path = shard_record_path(output);
    OutputFile f(path);
    // Paths are bytes, not always UTF-8: invalid ones are written as U+FFFD.
    f.write(rec->dump(1, ' ', false, Json::error_handler_t::replace) + "\n");
    f.commit();
    return [path] { ::unlink(path.c_str()); };
  };
}

}  // namespace embedpe
