// libFuzzer target: .npy / .safetensors headers and the checks that make
// every tensor's byte range lie inside the file.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "embedpe/error.h"
#include "embedpe/weights.h"

// Reading the last byte of each tensor lets AddressSanitizer see any range
// outside the input; the sink keeps the read from being optimised away.
unsigned g_sink = 0;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    embedpe::WeightFormat format;
    const auto tensors = embedpe::parse_weight_header(bytes, "fuzz.safetensors", format);
    for (const auto& t : tensors) {
      // The invariant the readers rely on: [offset, offset + size) is inside the file.
      if (t.offset > size || t.size_bytes > size - t.offset) __builtin_trap();
      if (t.size_bytes) g_sink += static_cast<unsigned char>(bytes[t.offset + t.size_bytes - 1]);
    }
  } catch (const embedpe::Error&) {
  }
  return 0;
}
