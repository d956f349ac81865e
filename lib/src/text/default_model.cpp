#include "default_model.h"

// The model's bytes are assembled into .rodata with .incbin, so the binary
// carries them without a generated source file; EMBEDPE_DEFAULT_MODEL_PATH is
// set by CMake, which also rebuilds this file when the model changes.
#ifndef EMBEDPE_DEFAULT_MODEL_PATH
#error "EMBEDPE_DEFAULT_MODEL_PATH must name data/default.model"
#endif
#ifndef EMBEDPE_DEFAULT_MODEL_SHA256
#error "EMBEDPE_DEFAULT_MODEL_SHA256 must be the SHA-256 of data/default.model"
#endif

__asm__(
    ".pushsection .rodata\n"
    ".balign 16\n"
    ".globl embedpe_default_model_begin\n"
    ".hidden embedpe_default_model_begin\n"
    ".globl embedpe_default_model_end\n"
    ".hidden embedpe_default_model_end\n"
    "embedpe_default_model_begin:\n"
    ".incbin \"" EMBEDPE_DEFAULT_MODEL_PATH "\"\n"
    "embedpe_default_model_end:\n"
    ".popsection\n");

extern "C" __attribute__((visibility("hidden"))) const char embedpe_default_model_begin[];
extern "C" __attribute__((visibility("hidden"))) const char embedpe_default_model_end[];

namespace embedpe::detail {

std::string_view default_model_bytes() {
  return {embedpe_default_model_begin,
          static_cast<std::size_t>(embedpe_default_model_end - embedpe_default_model_begin)};
}

std::string_view default_model_sha256() { return EMBEDPE_DEFAULT_MODEL_SHA256; }

}  // namespace embedpe::detail
