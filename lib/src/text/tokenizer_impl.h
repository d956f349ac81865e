// Private: what embedpe::Tokenizer holds: one encoder (token_encoder.h), what info()
// reports of it, and its SHA-256 once computed.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "embedpe/model_info.h"
#include "token_encoder.h"

namespace embedpe::detail {

// Tokenizer::Impl.
struct TokenizerImpl {
  std::unique_ptr<TokenEncoder> encoder;
  ModelInfo info;
  std::once_flag sha256_once;
  std::string sha256;

  explicit TokenizerImpl(LoadedEncoder loaded) : encoder(std::move(loaded.encoder)), info(std::move(loaded.info)) {}
};

}  // namespace embedpe::detail
