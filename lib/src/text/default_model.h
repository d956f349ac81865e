// The SentencePiece model embedded in the library (data/default.model,
// trained by tools/train_default_model.sh).
#pragma once

#include <string_view>

namespace embedpe::detail {

std::string_view default_model_bytes();
// Its SHA-256, lowercase hex, computed by CMake from the same file.
std::string_view default_model_sha256();

}  // namespace embedpe::detail
