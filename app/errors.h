// The one place where the library's parameter names become the command
// line's flags: the library says "raise max_len", the user reads
// "raise --max-len" (see embedpe/error.h).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "embedpe/error.h"

namespace embedpe::cli {

// The flag that sets library parameter `parameter`: "--" and the name with
// '_' as '-' (max_len → --max-len), unless the table in errors.cpp says
// otherwise.
std::string flag_for(std::string_view parameter);

// (parameter, path) pairs from the library as (flag, path): layer_inputs(), PeKind::inputs().
std::vector<std::pair<std::string, std::string>> as_flags(std::vector<std::pair<std::string, std::string>> inputs);

// e.what() with each mention of a listed parameter respelled as its flag. A
// mention opens the message or follows a space or bracket, and ends it or is
// followed by a space, punctuation, "'s" or '/': the same name inside a path or a
// quoted value is the user's text and stays as it is, and so is every span
// the error marks verbatim() (a directory path next to parameter names).
std::string user_message(const Error& e);

}  // namespace embedpe::cli
