// SHA-256, used to identify the files a run read and wrote. The digest is
// Nettle's (libnettle), which uses the CPU's SHA extensions where there are
// any; it needs no set-up and keeps no global or per-thread state.
//
//   std::string hex = embedpe::sha256_hex(bytes);   // 64 lowercase hex digits
//
//   embedpe::Sha256 h;                                // or piece by piece
//   h.update(part1); h.update(part2);
//   std::string hex = h.hex();                        // the same digits
#pragma once

#include <nettle/sha2.h>

#include <string>
#include <string_view>

namespace embedpe {

std::string sha256_hex(std::string_view bytes);

// Incremental SHA-256, for data that arrives in pieces (e.g. the input bytes
// of one --output-dir part, hashed while they are read). A plain value: a
// copy goes on from the same state.
class Sha256 {
 public:
  Sha256();

  void update(std::string_view bytes);
  // The digest of everything given so far; the object can go on updating.
  std::string hex() const;

 private:
  sha256_ctx ctx_;
};

}  // namespace embedpe
