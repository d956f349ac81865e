// The SentencePiece model embedded in the library (data/default.model,
// trained by tools/train_default_model.sh).
#pragma once

#include <string_view>

namespace embedpe::detail {

std::string_view default_model_bytes();

}  // namespace embedpe::detail
