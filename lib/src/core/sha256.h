// SHA-256, used to identify the files a run read and wrote. The digest is
// OpenSSL's libcrypto (EVP), which uses the CPU's SHA extensions where there
// are any.
//
//   std::string hex = embedpe::sha256_hex(bytes);   // 64 lowercase hex digits
//
//   embedpe::Sha256 h;                                // or piece by piece
//   h.update(part1); h.update(part2);
//   std::string hex = h.hex();                        // the same digits
#pragma once

#include <memory>
#include <string>
#include <string_view>

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX

namespace embedpe {

std::string sha256_hex(std::string_view bytes);

// Incremental SHA-256, for data that arrives in pieces (e.g. the input bytes
// of one --output-dir part, hashed while they are read).
class Sha256 {
 public:
  Sha256();
  Sha256(const Sha256& other);
  Sha256& operator=(const Sha256& other);
  Sha256(Sha256&&) noexcept = default;
  Sha256& operator=(Sha256&&) noexcept = default;
  ~Sha256();

  void update(std::string_view bytes);
  // The digest of everything given so far; the object can go on updating.
  std::string hex() const;

 private:
  struct Free {
    void operator()(evp_md_ctx_st* ctx) const;
  };
  std::unique_ptr<evp_md_ctx_st, Free> ctx_;
};

}  // namespace embedpe
