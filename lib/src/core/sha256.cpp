#include "sha256.h"

#include <openssl/evp.h>

#include <new>

namespace embedpe {
namespace {

// libcrypto failing here means it could not allocate: the only failure EVP's
// SHA-256 has.
void check(int ok) {
  if (ok != 1) throw std::bad_alloc();
}

EVP_MD_CTX* new_context() {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (ctx == nullptr) throw std::bad_alloc();
  if (EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(ctx);
    throw std::bad_alloc();
  }
  return ctx;
}

EVP_MD_CTX* copy_of(const EVP_MD_CTX* from) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (ctx == nullptr) throw std::bad_alloc();
  if (EVP_MD_CTX_copy_ex(ctx, from) != 1) {
    EVP_MD_CTX_free(ctx);
    throw std::bad_alloc();
  }
  return ctx;
}

}  // namespace

void Sha256::Free::operator()(evp_md_ctx_st* ctx) const { EVP_MD_CTX_free(ctx); }

Sha256::Sha256() : ctx_(new_context()) {}

Sha256::Sha256(const Sha256& other) : ctx_(copy_of(other.ctx_.get())) {}

Sha256& Sha256::operator=(const Sha256& other) {
  if (this != &other) ctx_.reset(copy_of(other.ctx_.get()));
  return *this;
}

Sha256::~Sha256() = default;

void Sha256::update(std::string_view bytes) {
  if (!ctx_) ctx_.reset(new_context());  // a moved-from object starts again
  check(EVP_DigestUpdate(ctx_.get(), bytes.data(), bytes.size()));
}

std::string Sha256::hex() const {
  // Finishing consumes a context, so finish a copy: this one can go on.
  const std::unique_ptr<EVP_MD_CTX, Free> done(ctx_ ? copy_of(ctx_.get()) : new_context());
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  check(EVP_DigestFinal_ex(done.get(), digest, &size));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * size);
  for (unsigned int i = 0; i < size; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 0xF]);
  }
  return out;
}

std::string sha256_hex(std::string_view bytes) {
  Sha256 h;
  h.update(bytes);
  return h.hex();
}

}  // namespace embedpe
