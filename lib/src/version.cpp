#include "embedpe/version.h"

namespace embedpe {

const char* version() noexcept { return EMBEDPE_VERSION; }

}  // namespace embedpe
