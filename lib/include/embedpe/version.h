// The library's version, e.g. "0.1.0" (from the CMake project version), and
// what a bug report needs beyond it.
#pragma once

#include <string>

namespace embedpe {

const char* version() noexcept;

// "embedpe VERSION", then one line each for the git commit, SentencePiece's
// version, the compiler and the build type ("unknown" where not known).
std::string build_info();

}  // namespace embedpe
