#include "embedpe/version.h"

#ifndef EMBEDPE_GIT_COMMIT
#define EMBEDPE_GIT_COMMIT "unknown"
#endif
#ifndef EMBEDPE_SENTENCEPIECE_VERSION
#define EMBEDPE_SENTENCEPIECE_VERSION "unknown"
#endif
#ifndef EMBEDPE_BUILD_TYPE
#define EMBEDPE_BUILD_TYPE "unknown"
#endif

namespace embedpe {

const char* version() noexcept { return EMBEDPE_VERSION; }

std::string build_info() {
  std::string s = std::string("embedpe ") + version() + "\n";
  s += std::string("commit ") + EMBEDPE_GIT_COMMIT + "\n";
  s += std::string("sentencepiece ") + EMBEDPE_SENTENCEPIECE_VERSION + "\n";
#if defined(__clang__)
  s += "compiler clang " __clang_version__ "\n";
#elif defined(__GNUC__)
  s += "compiler GCC " __VERSION__ "\n";
#else
  s += "compiler unknown\n";
#endif
  s += std::string("build ") + EMBEDPE_BUILD_TYPE;
  return s;
}

}  // namespace embedpe
