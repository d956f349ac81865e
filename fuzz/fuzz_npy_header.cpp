// libFuzzer target: the .npy header parser (reads file headers from strangers).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "embedpe/error.h"
#include "embedpe/tensor_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const embedpe::NpyHeader h = embedpe::parse_npy_header(bytes, "fuzz.npy");
    if (h.data_offset > size) __builtin_trap();  // the data must start inside the file
  } catch (const embedpe::Error&) {
  }
  return 0;
}
