#include "clikit/respell.h"

#include <algorithm>

namespace clikit {
namespace {

bool opens(char c) { return c == ' ' || c == '(' || c == '[' || c == ','; }

bool closes(const std::string& text, std::size_t at) {
  if (at == text.size()) return true;
  switch (text[at]) {
    case ' ': case ')': case ']': case ',': case ';': case ':': case '/': case '=': return true;
    case '.': return at + 1 == text.size() || text[at + 1] == ' ';  // a full stop, not a file suffix
    case '\'': return text.compare(at, 2, "'s") == 0;  // a possessive: "output_dir's parts"
    default: return false;
  }
}

}  // namespace

std::string kebab_flag(std::string_view parameter) {
  std::string flag = "--";
  for (char c : parameter) flag += c == '_' ? '-' : c;
  return flag;
}

std::string respell(const std::string& text, const std::vector<std::string>& parameters,
                    const std::vector<std::pair<std::size_t, std::size_t>>& verbatim,
                    const std::function<std::string(std::string_view)>& flag_for) {
  std::string out;
  std::size_t respelled_end = std::string::npos;  // in `text`, just after the last respelled mention
  auto span = verbatim.begin();
  for (std::size_t at = 0; at < text.size();) {
    while (span != verbatim.end() && span->first < at) ++span;  // began inside a mention
    if (span != verbatim.end() && span->first == at) {
      const std::size_t n = std::min(span->second, text.size() - at);
      out.append(text, at, n);
      at += n;
      ++span;
      continue;
    }
    const bool may_open = at == 0 || opens(text[at - 1]) || (text[at - 1] == '/' && respelled_end == at - 1);
    const std::string* mention = nullptr;
    for (const std::string& p : parameters) {
      if (may_open && !p.empty() && text.compare(at, p.size(), p) == 0 && closes(text, at + p.size()) &&
          (!mention || p.size() > mention->size())) {
        mention = &p;
      }
    }
    if (mention) {
      out += flag_for(*mention);
      at += mention->size();
      respelled_end = at;
    } else {
      out += text[at++];
    }
  }
  return out;
}

namespace {

// A word of a command line as a POSIX shell reads it back.
std::string shell_word(const std::string& word) {
  const bool plain = !word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                             "0123456789_-+=.,:/@%") == std::string::npos;
  if (plain) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace

std::string command_line(const std::vector<std::pair<std::string, std::string>>& parameters,
                         const std::function<std::string(std::string_view)>& flag_for) {
  std::string text;
  for (const auto& [name, value] : parameters) {
    text += (text.empty() ? "" : " ") + flag_for(name) + (value.empty() ? "" : " " + shell_word(value));
  }
  return text;
}

}  // namespace clikit
