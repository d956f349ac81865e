// Tensors to and from NumPy's .npy and .npz formats.
//
//   embedpe::TensorRef t = embedpe::tensor_ref("output", out.output);
//   embedpe::OutputFile file("out.npz");
//   embedpe::write_npz(file, {t});
//   file.commit();
//
// .npy is format version 1.0 (2.0 for headers over 64 KiB), C order,
// little-endian, header padded to 64 bytes like NumPy ≥ 1.17. .npz is an
// uncompressed zip of NAME.npy members with a fixed timestamp, so the same
// input gives the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "embedpe/dtype.h"
#include "embedpe/output_file.h"

namespace embedpe {

// The complete .npy header (magic through padding) for a tensor, padded with
// spaces to at least `min_size` bytes (to complete a header in place once a
// streamed tensor's length is known). Throws UsageError for a dtype NumPy
// has no descr for (bfloat16).
std::string npy_header(const TensorRef& tensor, std::size_t min_size = 0);
void write_npy(OutputFile& out, const TensorRef& tensor);
// Without ZIP64 a zip's members and offsets stay under 4 GiB: write_npz
// refuses (UsageError) a member that would reach kMaxNpzBytes.
inline constexpr std::uint64_t kMaxNpzBytes = 0xFFFFFFFFull;
// Text an .npz carries about itself (a shard's record, as JSON): a 0-d
// unicode array, member NAME.npy, which numpy.load reads without
// allow_pickle: str(np.load("out.npz")["shard"]). Written after the tensors.
struct NpzText {
  std::string name;
  std::string utf8;  // valid UTF-8
};
void write_npz(OutputFile& out, const std::vector<TensorRef>& tensors, const std::vector<NpzText>& texts = {});

// A parsed .npy header.
struct NpyHeader {
  int major_version = 1;
  std::string descr;  // e.g. "<f4"
  bool fortran_order = false;
  std::vector<std::size_t> shape;
  std::size_t data_offset = 0;  // bytes from the start of the file
};

// Parses the header at the start of `file`; throws embedpe::Error naming
// `source` if it is malformed. Does not look at the data.
NpyHeader parse_npy_header(std::string_view file, const std::string& source);
// Whether the .npy `file` holds text (a unicode array, descr "<Un"), as
// write_npz's NpzText members do, rather than numbers.
bool npy_holds_text(std::string_view file, const std::string& source);
// The text of a 0-d unicode .npy (an NpzText member), as UTF-8; throws
// embedpe::Error naming `source` for anything else.
std::string npy_text(std::string_view file, const std::string& source);

// One member of a .npz (a zip archive): "input_ids" for input_ids.npy, and
// its .npy bytes.
struct NpzMember {
  std::string name;
  std::string npy;
};

// The members of the .npz held in `file`, stored or deflated (as NumPy's
// savez and savez_compressed write them, ZIP64 included). Throws
// embedpe::Error naming `source` if the archive is malformed or a member's
// CRC-32 does not match. With `only`, just the members so named ("input_ids").
std::vector<NpzMember> read_npz(std::string_view file, const std::string& source,
                                const std::vector<std::string>& only = {});

// Where each member of the .npz held in `file` is, without copying or
// checking its bytes (read_npz does both): for a caller that holds the file
// mapped and has checked it whole. Throws as read_npz for a malformed archive.
struct NpzEntry {
  std::string name;          // "input_ids" for input_ids.npy
  std::string_view data;     // as stored
  std::uint16_t method = 0;  // 0 stored (data is the .npy bytes), 8 deflated; others are not read
  std::uint64_t size = 0;    // the .npy's
  std::uint32_t crc32 = 0;
};
std::vector<NpzEntry> npz_entries(std::string_view file, const std::string& source);
// Throws embedpe::Error "SOURCE: NAME is corrupt (CRC-32 mismatch)" if a
// stored entry's bytes do not have its recorded CRC-32 (deflated entries are
// checked as read_npz inflates them): for callers that use npz_entries' views.
void check_npz_entry(const NpzEntry& entry, const std::string& source);

}  // namespace embedpe
