// A parts directory's records (docs/SCALING.md, embedpe/parts_dir.h):
// manifest.json and parts.journal, written as text and read back by one
// parser, load_manifest, which checks every key and type and folds in the
// journal. The encode run that writes a directory, its resume and merge all
// read them here.
//
//   Manifest m = load_manifest(dir);     // manifest.json + parts.journal
//   write_manifest(at, shown, m);        // manifest.json, committed whole
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace embedpe {

inline constexpr const char* kManifest = "manifest.json";
inline constexpr const char* kJournal = "parts.journal";
// A manifest or journal is ~200 bytes per part: 256 MiB is over a million
// parts. Anything larger is not ours, and is not read into memory.
inline constexpr std::size_t kMaxManifestBytes = std::size_t(256) << 20;

struct LineRange {
  std::string source;
  std::size_t first_line = 0, last_line = 0;
  bool operator==(const LineRange&) const = default;
};

struct PartRecord {
  std::string file;
  std::size_t rows = 0;
  std::vector<LineRange> lines;
  std::string input_sha256;  // of the raw input bytes consumed for this part, skipped lines included
  std::string sha256;        // of the part file
  std::size_t bytes = 0;     // of the part file
  std::string text;          // part_text(*this), once known: written to the journal, reused in the manifest
};

struct InputRecord {
  std::string path;
  std::optional<std::size_t> bytes;   // a regular file's size; none for stdin or a pipe
  std::optional<std::string> sha256;  // of all bytes read from it (the shard's range), once complete
  // A shard of many, once complete: the byte range [begin, end) it read and
  // the input's identity (shards.h), which embedpe merge checks.
  std::optional<std::pair<std::size_t, std::size_t>> range;
  std::optional<std::string> fingerprint;
  std::optional<std::size_t> lines;  // a shard's: consumed, kept or skipped (merge renumbers by them)
};

// How the inputs were read: with the config, what decides the rows.
struct Reading {
  std::vector<std::string> inputs;
  std::string input_format;
  std::string field;
  bool skip_empty = false;
  std::string shard;  // "K/N"
  bool shard_seek = false;  // line numbers count from the shard's first line
  // Not max_line_bytes: a different limit changes no row, only whether a
  // run fails, so a resume may raise it.
};

struct Manifest {
  std::string embedpe_version;
  nlohmann::ordered_json config;
  Reading reading;
  std::vector<InputRecord> inputs;
  std::size_t shard_rows = 0;
  std::size_t rows = 0;  // read: what the document says its parts hold (written: their sum)
  bool complete = false;
  std::size_t merged = 0;  // joined from this many shards by embedpe merge (0: written by encode)
  std::vector<PartRecord> parts;
};

// The part as one line of JSON (the journal's line, and its entry in the manifest).
const std::string& part_text(PartRecord& p);
// The manifest as text.
std::string manifest_text(Manifest& m);
// manifest.json, through an OutputFile at `at`, named `path` in messages.
void write_manifest(const std::string& at, const std::string& path, Manifest& m);

// What a refused manifest's message advises (after "... is not a valid embedpe manifest (WHY); ").
inline const char* const kManifestAdviceResume = "remove the directory's contents or choose another output_dir";

// manifest.json with the journal's parts folded in (a journal line for part
// k replaces the manifest's part k). A final line cut short by a crash is
// ignored; any other malformed line is an error, which ends with `advice`.
// `at`: where to read DIR's files (HeldDirectory::at), if not at its name.
// A missing manifest is refused as one that is not JSON; check first where
// that needs its own message.
Manifest load_manifest(const std::string& dir, const std::string& at = "",
                       const std::string& advice = kManifestAdviceResume);

// The regular file at `at`, whole; nullopt if there is none. Anything else
// there (a FIFO, a symlink, a directory) is an error naming it (`path`),
// found without blocking (InFile's policy, symbolic links refused). Not noted
// as an input: the run that reads its manifest and parts replaces them.
std::optional<std::string> read_small_file(const std::string& at, const std::string& path, const std::string& what,
                                           std::size_t max_bytes = SIZE_MAX);

// "part-00042.npz" for index 42: the one spelling of a part's file
// (part_name() in parts_dir.h gives it to the library's users).
std::string part_file_name(std::size_t index);
// "part-00007.npz" and the like: what part_file_name() makes.
bool is_part_name(const std::string& name);

}  // namespace embedpe
