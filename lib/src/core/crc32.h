// CRC-32 (zlib's, as ZIP, PNG and gzip use it) in one place: over buffers
// of any size, with the 8 lowercase hex digits records and metadata hold.
// It is what shard records check outputs by: an output is hundreds of times
// its input's size (a token becomes d_model floats), so its integrity check
// must cost little next to writing it: CRC-32 runs at memory speed where
// SHA-256 took 4 times the whole encode (docs/SCALING.md). Which input and
// config a shard holds is established by the SHA-256s and the config.
//
//   Crc32 crc;
//   crc.add(piece);            // as many pieces as there are
//   crc.value();               // 0x... ; crc.hex(): "1c291ca3"
#pragma once

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace embedpe {

class Crc32 {
 public:
  Crc32& add(const void* data, std::size_t size) {
    // Empty data may be a null pointer, which would restart zlib's CRC.
    if (size > 0) crc_ = static_cast<std::uint32_t>(::crc32_z(crc_, static_cast<const Bytef*>(data), size));
    return *this;
  }
  Crc32& add(std::string_view bytes) { return add(bytes.data(), bytes.size()); }
  std::uint32_t value() const { return crc_; }
  std::string hex() const { return hex(crc_); }
  static std::string hex(std::uint32_t crc) {
    char text[9];
    std::snprintf(text, sizeof text, "%08x", static_cast<unsigned>(crc));
    return text;
  }

 private:
  std::uint32_t crc_ = 0;  // crc32(0, Z_NULL, 0)
};

}  // namespace embedpe
