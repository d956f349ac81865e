// The library's version, e.g. "0.1.0" (from the CMake project version).
#pragma once

namespace embedpe {

const char* version() noexcept;

}  // namespace embedpe
