#include "errors.h"

#include <algorithm>
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

// An error about an input file: FileNotFoundError when it is not there
// (the library says so with strerror(ENOENT), or "does not exist"), OSError
// when the message is about one of the given paths ("PATH: ...", "model
// directory PATH ...") or an I/O failure; else `otherwise`.
PyObject* error_type(const std::string& message, const std::vector<std::string>& paths, PyObject* otherwise) {
  const bool missing =
      message.find(std::strerror(ENOENT)) != std::string::npos || message.find(" does not exist") != std::string::npos;
  // "PATH: ...", "model PATH is not ...", "model directory PATH ...": the
  // path within the first words, after letters only (not "pad_id 5 is
  // outside the vocabulary of model PATH", a value's error).
  bool about_path = false;
  for (const std::string& p : paths) {
    const std::size_t at = p.empty() ? std::string::npos : message.find(p);
    if (at == std::string::npos) continue;
    const std::string before = message.substr(0, at);
    const bool words = before.size() <= 24 && std::all_of(before.begin(), before.end(), [](char c) {
                         return (c >= 'a' && c <= 'z') || c == ' ';
                       });
    about_path = about_path || words || missing;
  }
  if (missing && (about_path || paths.empty())) return PyExc_FileNotFoundError;
  if (about_path || message.find(std::strerror(EIO)) != std::string::npos) return PyExc_OSError;
  return otherwise;
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

void raise_python(std::exception_ptr error, const std::vector<std::string>& flags,
                  const std::vector<std::string>& paths) {
  try {
    std::rethrow_exception(error);
  } catch (const pybind11::error_already_set&) {
    throw;
  } catch (const pybind11::builtin_exception&) {
    throw;
  } catch (const InternalError& e) {
    raise_as(PyExc_RuntimeError, e.what());
  } catch (const Error& e) {
    const std::string m = respell_flags(e.what(), flags);
    raise_as(error_type(m, paths, PyExc_ValueError), m);
  } catch (const CLI::ParseError& e) {
    const std::string m = respell_flags(without_command(e.what()), flags);
    raise_as(error_type(m, paths, PyExc_ValueError), m);
  } catch (const clikit::UsageError& e) {
    const std::string m = respell_flags(e.what(), flags);
    raise_as(error_type(m, paths, PyExc_ValueError), m);
  } catch (const std::bad_alloc&) {
    raise_as(PyExc_MemoryError, "out of memory; encode fewer texts at a time or lower seq_len / d_model");
  } catch (const std::exception& e) {
    raise_as(PyExc_RuntimeError, std::string("internal error: ") + e.what() + " (a bug in embedpe; please report it)");
  }
}

}  // namespace embedpe::python
