#include "errors.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <new>

#include <CLI/CLI.hpp>
#include <pybind11/pybind11.h>

#include "clikit/usage.h"
#include "clikit/values.h"
#include "embedpe/error.h"

namespace embedpe::python {
namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; }

[[noreturn]] void raise_as(PyObject* type, const std::string& message) {
  PyErr_SetString(type, clikit::printable_line(message).c_str());
  throw pybind11::error_already_set();
}

// The library says a file is not there with strerror(ENOENT).
PyObject* file_error_type(const std::string& message, PyObject* otherwise) {
  return message.find(std::strerror(ENOENT)) != std::string::npos ? PyExc_FileNotFoundError : otherwise;
}

// CLI11's parse errors start "embedpe encode: " or "--flag: ": the command's
// name is not the caller's.
std::string without_command(std::string message) {
  for (const char* prefix : {"embedpe encode: ", "embedpe pe: ", "embedpe: "}) {
    if (message.starts_with(prefix)) message.erase(0, std::strlen(prefix));
  }
  return message;
}

}  // namespace

std::string keyword_of(const std::string& flag) {
  std::string k = flag.substr(flag.find_first_not_of('-'));
  for (char& c : k) {
    if (c == '-') c = '_';
  }
  return k;
}

std::string respell_flags(const std::string& message, const std::vector<std::string>& flags) {
  std::string out;
  for (std::size_t i = 0; i < message.size();) {
    if (message.compare(i, 2, "--") == 0 && (i == 0 || !word_char(message[i - 1]))) {
      std::size_t end = i + 2;
      while (end < message.size() && word_char(message[end])) ++end;
      // A word ends a flag: "--seq-len's" and "--seq-len," are mentions of --seq-len.
      const std::string flag = message.substr(i, end - i);
      bool known = false;
      for (const std::string& f : flags) known = known || f == flag;
      if (known) {
        out += keyword_of(flag);
        i = end;
        continue;
      }
    }
    out += message[i++];
  }
  return out;
}

void raise_python(std::exception_ptr error, const std::vector<std::string>& flags) {
  try {
    std::rethrow_exception(error);
  } catch (const pybind11::error_already_set&) {
    throw;
  } catch (const pybind11::builtin_exception&) {
    throw;
  } catch (const InternalError& e) {
    raise_as(PyExc_RuntimeError, e.what());
  } catch (const UsageError& e) {
    const std::string m = respell_flags(e.what(), flags);
    raise_as(file_error_type(m, PyExc_ValueError), m);
  } catch (const Error& e) {
    const std::string m = respell_flags(e.what(), flags);
    raise_as(file_error_type(m, PyExc_OSError), m);
  } catch (const CLI::ParseError& e) {
    raise_as(PyExc_ValueError, respell_flags(without_command(e.what()), flags));
  } catch (const clikit::UsageError& e) {
    raise_as(PyExc_ValueError, respell_flags(e.what(), flags));
  } catch (const std::bad_alloc&) {
    raise_as(PyExc_MemoryError, "out of memory; encode fewer texts at a time or lower seq_len / d_model");
  } catch (const std::exception& e) {
    raise_as(PyExc_RuntimeError, std::string("internal error: ") + e.what() + " (a bug in embedpe; please report it)");
  }
}

}  // namespace embedpe::python
