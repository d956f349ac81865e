// embedpe merge: the shards of one run checked and joined: see embedpe/shards.h.
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
#include "embedpe/encoder.h"
#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/parts_dir.h"
#include "embedpe/sink.h"
#include "embedpe/tensor_io.h"
#include "embedpe/version.h"
#include "crc32.h"
#include "in_file.h"
#include "file_name.h"
#include "json_difference.h"
#include "manifest.h"
#include "model_files.h"
#include "embedpe/message.h"
#include "parallel.h"
#include "sha256.h"
#include "shard_record.h"
#include "sinks/shard_join.h"
#include "test_pause.h"

namespace embedpe {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t kChunk = InFile::kChunk;                  // bytes read at a time
constexpr std::size_t kMaxRecordBytes = std::size_t(64) << 20;  // a record larger than this is not ours

std::string file_sha256(const InFile& f) {
  Sha256 h;
  f.each_chunk(0, f.size(), [&](std::string_view piece) { h.update(piece); });
  return h.hex();
}

std::string file_crc32(const InFile& f) {
  Crc32 crc;
  f.each_chunk(0, f.size(), [&](std::string_view piece) { crc.add(piece); });
  return crc.hex();
}

}  // namespace

namespace {

// The format of the sink registry that merge joins for a file named `path`
// (SinkFormat::join), by its extension; nullptr if none.
const SinkFormat* joined_format(const std::string& path) {
  const std::string ext = lower_extension(path);
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
std::string differing_keys(const Json& a, const Json& b) {
  std::string text;
  for (const JsonDifference& d : json_differences(a, b)) {
    text += (text.empty() ? "" : ", ") + (d.path.empty() ? std::string("the whole") : d.path);
  }
  return text;
}

// What is copied is what was checked: the piece's file read once, whole and
// in order, through one descriptor; each chunk goes to use(offset, bytes),
// and the bytes read must have the piece's recorded checksum, or the shard
// is refused (before the output is committed). A file replaced or rewritten
// since check_shards looked at it is caught here, not copied.
template <typename F>
void read_verified(const std::string& shard, const Piece& p, F&& use) {
  const InFile f(p.path, p.crc32.empty() ? InFile::Links::refuse : InFile::Links::follow);  // a part is never a link
  Sha256 sha;
  Crc32 crc;
  const bool part = p.crc32.empty();
  std::size_t at = 0;
  for (;;) {
    const std::string piece = f.read_at(at, kChunk);
    if (piece.empty()) break;
    if (part) {
      sha.update(piece);
    } else {
      crc.add(piece);
    }
    use(at, std::string_view(piece));
    at += piece.size();
  }
  if (at != p.bytes || (part ? sha.hex() != p.sha256 : crc.hex() != p.crc32)) {
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
  std::optional<Json> doc = parse_json<Json>(f.all());
  if (!doc) refuse_shard(shard, "its " + what + " " + path + " is not valid JSON (corrupt?); run that shard again");
  return std::move(*doc);
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
  std::optional<Json> rec = parse_json<Json>(*text);
  if (!rec) refuse_shard(path, "its shard record is not valid JSON (corrupt?); run that shard again");
  return std::pair{std::move(*rec), Piece{path, bytes.size(), "", Crc32().add(bytes).hex()}};
}

Shard load_file_shard(const std::string& path, const SinkFormat& format) {
  Shard s{.name = path, .format = &format};
  std::optional<std::pair<Json, Piece>> inside;
  if (format.read_record) inside = record_inside(path, format);
  const Json rec = inside ? inside->first : read_json(shard_record_path(path), path, "record");
  if (!rec.is_object() || !rec.contains("embedpe_shard")) refuse_shard(path, "its record is not an embedpe shard record");
  if (field<int>(rec, "embedpe_shard", path) != kShardRecordVersion) refuse_shard(path, "its record has an unknown version");
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
  // The one parser of a parts directory's manifest (manifest.h), which the
  // run that wrote it and its resume use too; a manifest that is not there
  // is said as such first.
  struct stat st;
  const std::string manifest_path = dir + "/" + kManifest;
  if (::lstat(manifest_path.c_str(), &st) != 0) {
    refuse_shard(dir, "its manifest " + manifest_path + " is missing (" + std::strerror(errno) +
                          "); merge takes the outputs of encode with shard K/N, each with its record");
  }
  const Manifest m = load_manifest(dir, "", "run that shard again");
  if (!m.complete) {
    refuse_shard(dir, "its run is not complete (manifest.json says \"complete\": false); run that shard again with resume");
  }
  s.config = m.config;
  std::tie(s.index, s.count) = parse_shard_label(Json(m.reading.shard), dir);
  if (m.inputs.size() != 1) {
    refuse_shard(dir, "a sharded run reads exactly one input; its manifest lists " + std::to_string(m.inputs.size()));
  }
  const InputRecord& in = m.inputs[0];
  if (!in.bytes) refuse_shard(dir, "its manifest gives no size of its input (not a file embedpe can merge)");
  s.input_bytes = *in.bytes;
  if (s.count > 1) {
    if (!in.fingerprint || !in.range) refuse_shard(dir, "its manifest has no byte range of the input it read");
    s.fingerprint = *in.fingerprint;
    s.begin = in.range->first;
    s.end = in.range->second;
    s.lines = in.lines;
  } else {
    s.end = s.input_bytes;
  }
  if (in.sha256) s.range_sha256 = *in.sha256;
  // The records below compare reading options (as the manifest writes them,
  // less the inputs and the shard); the paths may differ per host.
  s.reading = {{"input_format", m.reading.input_format}, {"field", m.reading.field}, {"skip_empty", m.reading.skip_empty}};
  if (m.reading.shard_seek) s.reading["shard_seek"] = true;
  // The parts must account for the rows and lines the manifest says the run
  // read: a part list cut short or edited is refused, not merged without it.
  std::size_t rows = 0, last = 0;
  const bool skipping = m.reading.skip_empty;
  for (const PartRecord& p : m.parts) {
    std::size_t in_lines = 0;
    for (const LineRange& r : p.lines) {
      if (r.first_line <= last || r.last_line < r.first_line) {
        refuse_shard(dir, "its manifest's line ranges of " + p.file + " overlap or go backwards (corrupt?)");
      }
      in_lines += r.last_line - r.first_line + 1;
      last = r.last_line;
    }
    // A range spans its first row's line to its last's: with skip_empty it
    // may include skipped lines.
    if (skipping ? in_lines < p.rows : in_lines != p.rows) {
      refuse_shard(dir, "its manifest gives " + p.file + " " + std::to_string(p.rows) + " rows but " +
                            std::to_string(in_lines) + " lines (corrupt?)");
    }
    rows += p.rows;
    s.pieces.push_back({dir + "/" + p.file, p.bytes, p.sha256, "", p.rows});
  }
  if (rows != m.rows) {
    refuse_shard(dir, "its manifest's parts hold " + std::to_string(rows) + " rows, not the " + std::to_string(m.rows) +
                          " it says the run wrote (a part missing from it?)");
  }
  // A shard_seek shard numbers its own lines; another, the file's.
  const bool own = m.reading.shard_seek;
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
  const std::string ext = lower_extension(path);
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
    const std::string d = differing_keys(comparable(first.config), comparable(s.config));
    if (!d.empty()) refuse_shard(s.name, "its config differs from " + first.name + "'s at " + d + ": not the same run");
    const std::string r = differing_keys(first.reading, s.reading);
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
      refuse_shard(shards[k].name, "it and " + shards[k - 1].name + " are both shard " +
                                                   shard_label(shards[k].index, shards[k].count));
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
        const InFile f(c.piece->path, part ? InFile::Links::refuse : InFile::Links::follow);  // a part is never a link: encode refuses them too
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
  // Parts hold no config: theirs is the manifest's joinable config, and the output holds one run's.
  if (join.parts) join.config.erase(kWeightFilesKey);
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
