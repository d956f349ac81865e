// Shards' parts directories joined into one (join_parts_dirs,
// embedpe/parts_dir.h): each shard's parts linked or copied in, checked
// against the SHA-256 its manifest records, under one manifest.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "embedpe/error.h"
#include "embedpe/message.h"
#include "embedpe/output_file.h"
#include "embedpe/parts_dir.h"
#include "embedpe/version.h"
#include "in_file.h"
#include "manifest.h"
#include "sha256.h"
#include "test_pause.h"

namespace embedpe {
namespace {

// `to` becomes the same bytes as `from`: a hard link where the file system
// allows one (parts are never rewritten in place), else a copy made in the
// kernel (copy_file_range; read and write where it is refused). No fsync
// here: OutputDirectory::commit() syncs the whole directory's file system
// once. Errors name `shown`, the part's path in the directory being made.
void link_or_copy(const std::string& from, const std::string& to, const std::string& shown) {
  if (::link(from.c_str(), to.c_str()) == 0) return;
  const InFile source(from, InFile::Links::refuse);  // a part is never a link, nor a FIFO
  const int in = source.fd();
  const int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (out < 0) throw Error("cannot write " + shown + ": " + std::strerror(errno));
  auto fail = [&](const std::string& what, int e) {
    ::close(out);
    throw Error(what + ": " + std::strerror(e));
  };
  bool in_kernel = true;
  for (;;) {
    if (in_kernel) {
      const ssize_t n = ::copy_file_range(in, nullptr, out, nullptr, std::size_t(1) << 30, 0);
      if (n > 0) continue;
      if (n == 0) break;
      if (errno == EINTR) continue;
      if (errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) {
        fail("cannot copy " + from + " to " + shown, errno);
      }
      in_kernel = false;  // read and write go on from where the file offsets are
    }
    static thread_local std::string buffer(std::size_t(1) << 20, '\0');
    const ssize_t n = ::read(in, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("cannot read " + from, errno);
    if (n == 0) break;
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = ::write(out, buffer.data() + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) fail("cannot write " + shown, errno);
      done += w;
    }
  }
  if (::close(out) != 0) throw Error("cannot write " + shown + ": " + std::strerror(errno));
}

// The part as it now is in the directory being made (`at`, a link to or a
// copy of the shard's file `from`), read once: it must have the size and
// SHA-256 its shard recorded, which merge checked before. A part replaced
// after that check (by another run of the shard) is refused, never joined
// unchecked.
void verify_joined(const std::string& at, const std::string& from, const PartRecord& p, const std::string& shard) {
  const InFile f(at, InFile::Links::refuse, from, {}, InFile::Use::own);
  Sha256 h;
  std::size_t bytes = 0;
  f.each_chunk(0, f.size(), [&](std::string_view piece) {
    h.update(piece);
    bytes += piece.size();
  });
  if (bytes != p.bytes || h.hex() != p.sha256) {
    Message m;
    m << "shard " << Verbatim{shard} << ": " << Verbatim{from}
      << " changed while it was merged (replaced or rewritten after its check); run that shard again, or merge once "
         "nothing writes it";
    throw m.error();
  }
}

}  // namespace

JoinStats join_parts_dirs(const std::string& output_dir, const std::vector<JoinedShard>& shards,
                          const std::optional<std::string>& input_sha256) {
  if (shards.empty()) throw InternalError("no parts directory to join");
  OutputDirectory out(output_dir);
  const std::string& dir = out.temp_path();
  pause_for_test("merge-join");  // the temporary directory made, nothing in it yet
  // One run over the whole input, as the manifest of an unsharded run says it.
  Manifest joined;
  JoinStats stats;
  for (const JoinedShard& shard : shards) {
    Manifest m = load_manifest(shard.dir);
    if (!m.complete || m.inputs.size() != 1) throw InternalError(shard.dir + " is not a complete shard");
    if (&shard == &shards.front()) {
      joined.embedpe_version = version();
      joined.config = m.config;
      joined.reading = m.reading;
      joined.reading.shard = "1/1";
      joined.reading.shard_seek = false;
      joined.inputs = {{m.inputs[0].path, m.inputs[0].bytes, input_sha256, std::nullopt, std::nullopt, std::nullopt}};
      joined.shard_rows = m.shard_rows;
      joined.merged = shards.size();
    } else if (m.shard_rows != joined.shard_rows) {
      Message msg;
      msg << "shard " << Verbatim{shard.dir} << ": its parts are cut every " << std::to_string(m.shard_rows)
          << " rows, " << Verbatim{shards.front().dir} << "'s every " << std::to_string(joined.shard_rows)
          << "; a merged directory has one shard_rows (merge into .npz or .npy instead)";
      throw msg.error();
    }
    for (PartRecord& part : m.parts) {
      const std::string from = shard.dir + "/" + part.file;
      part.file = part_name(joined.parts.size());
      part.text.clear();
      for (LineRange& r : part.lines) {
        r.first_line += shard.line_offset;
        r.last_line += shard.line_offset;
      }
      link_or_copy(from, dir + "/" + part.file, output_dir + "/" + part.file);
      verify_joined(dir + "/" + part.file, from, part, shard.dir);
      stats.rows += part.rows;
      joined.parts.push_back(std::move(part));
    }
  }
  joined.complete = true;
  write_manifest(dir + "/" + kManifest, output_dir + "/" + kManifest, joined);
  out.commit();
  stats.parts = joined.parts.size();
  return stats;
}

}  // namespace embedpe
