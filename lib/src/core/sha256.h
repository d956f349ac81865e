// SHA-256 (FIPS 180-4), used to identify the SentencePiece model a run used.
//
//   std::string hex = embedpe::sha256_hex(bytes);   // 64 lowercase hex digits
//
//   embedpe::Sha256 h;                                // or piece by piece
//   h.update(part1); h.update(part2);
//   std::string hex = h.hex();                        // the same digits
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace embedpe {

std::string sha256_hex(std::string_view bytes);

// Incremental SHA-256, for data that arrives in pieces (e.g. the input bytes
// of one --output-dir part).
class Sha256 {
 public:
  void update(std::string_view bytes);
  // The digest of everything given so far; the object can go on updating.
  std::string hex() const;

 private:
  std::array<std::uint32_t, 8> h_ = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::array<unsigned char, 64> block_{};
  std::size_t used_ = 0;  // bytes in block_
  std::uint64_t total_ = 0;
};

}  // namespace embedpe
