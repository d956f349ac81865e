// Private: what embedpe::Tokenizer holds: one encoder (token_encoder.h), what info()
// reports of it, and its SHA-256 once computed.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "embedpe/tokenizer.h"
#include "token_encoder.h"

namespace embedpe {

struct Tokenizer::Impl {
  std::unique_ptr<detail::TokenEncoder> encoder;
  ModelInfo info;
  std::once_flag sha256_once;
  std::string sha256;

  explicit Impl(detail::LoadedEncoder loaded) : encoder(std::move(loaded.encoder)), info(std::move(loaded.info)) {}
};

}  // namespace embedpe
