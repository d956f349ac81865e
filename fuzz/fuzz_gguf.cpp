// libFuzzer target: the GGUF parser (lib/src/io/gguf.h) and the invariants
// its readers rely on: every tensor's bytes inside the file, every array's
// elements inside it, nothing allocated beyond a small multiple of the input.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "embedpe/error.h"
#include "gguf.h"

unsigned g_sink = 0;

namespace {
void touch(const embedpe::gguf::Value& v, std::string_view bytes) {
  const auto inside = [bytes](std::string_view s) {
    return s.empty() || (s.data() >= bytes.data() && s.data() + s.size() <= bytes.data() + bytes.size());
  };
  if (!inside(v.str) || !inside(v.raw)) __builtin_trap();
  for (auto s : v.strings) {
    if (!inside(s)) __builtin_trap();
  }
  if (!v.raw.empty()) g_sink += static_cast<unsigned>(v.element(v.count - 1).u);
  for (const auto& item : v.items) touch(item, bytes);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const embedpe::gguf::Parsed p = embedpe::gguf::parse(bytes, "fuzz.gguf");
    for (const auto& [key, v] : p.metadata) touch(v, bytes);
    for (const auto& t : p.tensors) {
      if (t.file_offset > size || t.size_bytes > size - t.file_offset) __builtin_trap();
      if (t.size_bytes) g_sink += static_cast<unsigned char>(bytes[t.file_offset + t.size_bytes - 1]);
    }
  } catch (const embedpe::Error&) {
  }
  return 0;
}
