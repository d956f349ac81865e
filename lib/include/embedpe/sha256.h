// SHA-256 (FIPS 180-4), used to identify the SentencePiece model a run used.
//
//   std::string hex = embedpe::sha256_hex(bytes);   // 64 lowercase hex digits
#pragma once

#include <string>
#include <string_view>

namespace embedpe {

std::string sha256_hex(std::string_view bytes);

}  // namespace embedpe
