// Errors as Python exceptions, each with the command line's one line: the
// library's message as it is (its parameter names are the keyword names),
// and the flags the command line's own checks name ("--d-model") respelled
// as keywords ("d_model").
#pragma once

#include <exception>
#include <string>
#include <vector>

namespace embedpe::python {

// Raises (throws pybind11::error_already_set) the Python exception for
// `error`: FileNotFoundError for a file that is not there, OSError for any
// other error about a file (one of `paths`, the inputs the call was given:
// the message starts with it, "model directory PATH", or the library says
// a read failed), ValueError for any other bad value (a usage error, a
// parse error, a bad id), MemoryError when memory ran out, RuntimeError for
// a bug. `flags` are the command's options ("--d-model"): each mention
// becomes its keyword. Needs the GIL.
[[noreturn]] void raise_python(std::exception_ptr error, const std::vector<std::string>& flags = {},
                               const std::vector<std::string>& paths = {});

// `flag` ("--d-model") as its keyword ("d_model").
std::string keyword_of(const std::string& flag);

// `message` with each of `flags` respelled as its keyword.
std::string respell_flags(const std::string& message, const std::vector<std::string>& flags);

}  // namespace embedpe::python
