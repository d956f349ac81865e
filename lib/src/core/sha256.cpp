#include "sha256.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <new>
#include <stdexcept>

namespace embedpe {
namespace {

// libcrypto failing here means it could not allocate: the only failure EVP's
// SHA-256 has.
void check(int ok) {
  if (ok != 1) throw std::bad_alloc();
}

// SHA-256's implementation, fetched once. libcrypto's one-time setup keeps
// per-thread state for the thread that runs it, which a pool thread that is
// never joined would leak; so it runs before main() (g_fetched below), on the
// main thread, without reading the system's openssl.cnf (a digest needs no
// configuration, and a run should not depend on one).
const EVP_MD* sha256_md() {
  static EVP_MD* const md = [] {
    OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, nullptr);
    return EVP_MD_fetch(nullptr, "SHA256", nullptr);  // kept for the whole process
  }();
  if (md == nullptr) throw std::runtime_error("libcrypto offers no SHA-256 (its default provider is missing)");
  return md;
}
[[maybe_unused]] const EVP_MD* const g_fetched = [] {
  try {
    return sha256_md();
  } catch (...) {
    return static_cast<const EVP_MD*>(nullptr);  // said again on first use
  }
}();

EVP_MD_CTX* new_context() {
  const EVP_MD* md = sha256_md();
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (ctx == nullptr) throw std::bad_alloc();
  if (EVP_DigestInit_ex(ctx, md, nullptr) != 1) {
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
