// Errors raised by the embedpe library.
//
//   try {
//     auto tok = embedpe::Tokenizer::from_file("m.model");
//   } catch (const embedpe::Error& e) {
//     std::cerr << "embedpe: " << e.what() << '\n';
//     return e.exit_code();
//   }
//
// Every failure the library reports is an embedpe::Error whose message is one
// line naming the input and what to do about it. UsageError marks mistakes in
// how the library or tool was asked to do something (bad option values);
// everything else (unreadable or corrupt files, I/O failures) is a plain Error.
#pragma once

#include <stdexcept>
#include <string>

namespace embedpe {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}

  // The process exit status the command-line tool uses for this error.
  virtual int exit_code() const noexcept { return 1; }
};

// A request that cannot be satisfied as asked: an option out of range, a
// combination of options that contradict each other.
class UsageError : public Error {
 public:
  using Error::Error;
  int exit_code() const noexcept override { return 2; }
};

}  // namespace embedpe
