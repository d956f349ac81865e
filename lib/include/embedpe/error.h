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
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace embedpe {

// A stretch of a message that is the user's own text (a path, a line's
// origin such as "shard:3"): a front end copies it as it is, even where it
// looks like a parameter name.
struct UserText {
  std::size_t begin = 0, size = 0;  // bytes of what()
};

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, std::vector<std::string> parameters = {},
                 std::vector<UserText> user_text = {})
      : std::runtime_error(message),
        details_(parameters.empty() && user_text.empty()
                     ? nullptr
                     : std::make_shared<const Details>(Details{std::move(parameters), std::move(user_text)})) {}

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

  // The stretches of the message that are the user's text, in order: a
  // front end respells no parameter inside them ("shard needs a regular
  // file, and shard is not one" names a file called shard the second time).
  const std::vector<UserText>& user_text() const noexcept {
    static const std::vector<UserText> none;
    return details_ ? details_->user_text : none;
  }

 private:
  struct Details {
    std::vector<std::string> parameters;
    std::vector<UserText> user_text;
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

}  // namespace embedpe
