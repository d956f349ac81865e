// libFuzzer target: the .npz (zip) reader, ZIP64 included. decode, diff and
// merge hand it files from strangers: every malformed archive must be an
// embedpe::Error, never a read outside the bytes or an allocation from a
// forged size.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "embedpe/error.h"
#include "embedpe/tensor_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    for (const embedpe::NpzEntry& e : embedpe::npz_entries(bytes, "fuzz.npz")) {
      // Every entry's bytes lie inside the archive.
      if (e.data.data() < bytes.data() || e.data.data() + e.data.size() > bytes.data() + bytes.size()) {
        __builtin_trap();
      }
    }
  } catch (const embedpe::Error&) {
  }
  try {
    for (const embedpe::NpzMember& m : embedpe::read_npz(bytes, "fuzz.npz")) {
      embedpe::parse_npy_header(m.npy, m.name);
    }
  } catch (const embedpe::Error&) {
  }
  return 0;
}
