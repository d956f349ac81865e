#include "sha256.h"

#include <cstdint>

namespace embedpe {

Sha256::Sha256() { sha256_init(&ctx_); }

void Sha256::update(std::string_view bytes) {
  sha256_update(&ctx_, bytes.size(), reinterpret_cast<const std::uint8_t*>(bytes.data()));
}

std::string Sha256::hex() const {
  // Finishing resets a context, so finish a copy: this one can go on.
  sha256_ctx done = ctx_;
  std::uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&done, SHA256_DIGEST_SIZE, digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * SHA256_DIGEST_SIZE);
  for (const std::uint8_t b : digest) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 0xF]);
  }
  return out;
}

std::string sha256_hex(std::string_view bytes) {
  Sha256 h;
  h.update(bytes);
  return h.hex();
}

}  // namespace embedpe
