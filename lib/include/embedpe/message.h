// Building an error message that quotes the user's words (paths, values)
// next to parameter names, marking those words verbatim (embedpe/error.h) so
// that a front end respelling output_dir as its flag never touches
// a directory that happens to be called output_dir.
//
//   Message m;
//   m << "cannot list output_dir " << Verbatim{dir} << ": " << std::strerror(errno);
//   throw m.error({"output_dir"});
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "embedpe/error.h"

namespace embedpe {

// The user's words, or prose that spells a parameter ("run it again to
// resume"): never respelled.
struct Verbatim {
  std::string_view text;
};

class Message {
 public:
  Message& operator<<(std::string_view words) {
    text_ += words;
    return *this;
  }
  Message& operator<<(Verbatim v) {
    if (!v.text.empty()) verbatim_.push_back({text_.size(), v.text.size()});
    text_ += v.text;
    return *this;
  }

  // Another message, its verbatim words still verbatim.
  Message& operator<<(const Message& more) {
    for (const TextSpan& span : more.verbatim_) verbatim_.push_back({text_.size() + span.begin, span.size});
    text_ += more.text_;
    return *this;
  }

  const std::string& text() const { return text_; }
  Error error(std::vector<std::string> parameters = {}) const { return Error(text_, std::move(parameters), verbatim_); }
  UsageError usage_error(std::vector<std::string> parameters = {}) const {
    return UsageError(text_, std::move(parameters), verbatim_);
  }

 private:
  std::string text_;
  std::vector<TextSpan> verbatim_;
};

// "a", "a or b", "a, b or c": alternatives as a message lists them.
inline std::string or_list(const std::vector<std::string>& words) {
  std::string text;
  for (std::size_t i = 0; i < words.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
  }
  return text;
}

}  // namespace embedpe
