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
//
// The library speaks in parameters, never in a front end's flags: a message
// names the parameter as the option structs spell it ("raise max_len") and
// lists it in parameters(), so that a front end can respell each one in its
// own terms (the command line says "raise --max-len"; see app/errors.cpp).
// Where a message quotes the user's own words (a directory path, a value)
// next to parameter names, it marks them verbatim(): a front end copies
// those spans as they are, even when they spell a parameter.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace embedpe {

// Part of a message: `size` characters from `begin`.
struct TextSpan {
  std::size_t begin = 0, size = 0;
  bool operator==(const TextSpan&) const = default;
};

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, std::vector<std::string> parameters = {},
                 std::vector<TextSpan> verbatim = {})
      : std::runtime_error(message),
        details_(parameters.empty() && verbatim.empty()
                     ? nullptr
                     : std::make_shared<const Details>(Details{std::move(parameters), std::move(verbatim)})) {}

  // The process exit status the command-line tool uses for this error.
  virtual int exit_code() const noexcept { return 1; }

  // The parameters the message names, each spelled as in the message
  // ("max_len", "seq_len"), in snake_case, and mentioned as words of their
  // own: after a space or a bracket, before a space, punctuation or the end
  // (a front end leaves the same letters inside a path or a quoted value).
  const std::vector<std::string>& parameters() const noexcept {
    static const std::vector<std::string> none;
    return details_ ? details_->parameters : none;
  }

  // Spans of the message that are not the library's words about parameters
  // (a path, a quoted value, prose that happens to spell one): a front end
  // respelling parameters leaves them as they are. In order, not overlapping.
  const std::vector<TextSpan>& verbatim() const noexcept {
    static const std::vector<TextSpan> none;
    return details_ ? details_->verbatim : none;
  }

 private:
  struct Details {
    std::vector<std::string> parameters;
    std::vector<TextSpan> verbatim;
  };
  std::shared_ptr<const Details> details_;  // shared: copying an exception must not throw
};

// A request that cannot be satisfied as asked: an option out of range, a
// combination of options that contradict each other.
class UsageError : public Error {
 public:
  using Error::Error;
  int exit_code() const noexcept override { return 2; }
};

// An error about one text of a batch, named by its place there: "text N:
// REASON" (N from 1). A caller that knows the text by another name (a file
// and line) says that instead: named(NAME) is "NAME: REASON". The exit status
// and parameters are the reason's; NAME is verbatim (a path is no parameter).
class TextError : public Error {
 public:
  TextError(std::size_t index, const Error& reason)
      : TextError(index, "text " + std::to_string(index + 1), reason, reason.exit_code()) {}
  std::size_t index() const noexcept { return index_; }
  TextError named(const std::string& name) const { return TextError(index_, name, reason_, exit_code_); }
  int exit_code() const noexcept override { return exit_code_; }

 private:
  TextError(std::size_t index, const std::string& name, const Error& reason, int exit_code)
      : Error(name + ": " + reason.what(), reason.parameters(), shifted(name.size(), reason.verbatim())),
        index_(index),
        exit_code_(exit_code),
        reason_(reason) {}
  static std::vector<TextSpan> shifted(std::size_t name_size, const std::vector<TextSpan>& spans) {
    std::vector<TextSpan> out = {{0, name_size}};
    for (const TextSpan& s : spans) out.push_back({s.begin + name_size + 2, s.size});
    return out;
  }
  std::size_t index_;
  int exit_code_;
  Error reason_;  // sliced to its message, parameters and spans: exit_code_ keeps its status
};

// A broken invariant inside embedpe: a bug, never the user's input. Its exit
// status is 70 (EX_SOFTWARE in sysexits.h), so that a script can tell a bug
// from bad input (1) and bad usage (2).
class InternalError : public Error {
 public:
  explicit InternalError(const std::string& message)
      : Error("internal error: " + message + " (a bug in embedpe; please report it)") {}
  int exit_code() const noexcept override { return kExitCode; }
  static constexpr int kExitCode = 70;
};

}  // namespace embedpe
