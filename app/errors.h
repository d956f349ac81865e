// The one place where the library's parameter names become the command
// line's flags: the library says "raise max_len", the user reads
// "raise --max-len" (see embedpe/error.h).
#pragma once

#include <string>
#include <string_view>

#include "embedpe/error.h"

namespace embedpe::cli {

// The flag that sets library parameter `parameter`: "--" and the name with
// '_' as '-' (max_len → --max-len), unless the table in errors.cpp says
// otherwise.
std::string flag_for(std::string_view parameter);

// e.what() with each parameter it names (whole words) respelled as its flag.
std::string user_message(const Error& e);

}  // namespace embedpe::cli
