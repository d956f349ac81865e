#include "errors.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace embedpe::cli {
namespace {

// Parameters whose flag is not their name in kebab case: fields of nested
// options ("layer_norm.eps"), and settings that a switch stands for
// ("add_bos=false" is what --no-bos does).
constexpr std::pair<std::string_view, std::string_view> kFlags[] = {
    {"output_path", "--output"},
    {"rope_dim", "--rope-dim"},
    {"layer_norm.eps", "--layernorm-eps"},
    {"dropout.p", "--dropout"},
    {"add_bos=false", "--no-bos"},
    {"add_eos=false", "--no-eos"},
};

// A mention of a parameter is a word the library wrote: it opens the message
// or follows a space or a bracket, and it ends the message or is followed by
// a space, punctuation or '/'. Part of a path ("model /tmp/pad_id"), of a
// quoted value ("not 'scale'") or of a longer name stays as it is: those are
// the user's words. "a/b" names alternatives, so a mention may also follow
// '/' right after another one ("add_bos=false/add_eos=false").
bool opens(char c) { return c == ' ' || c == '(' || c == '[' || c == ','; }

bool closes(const std::string& text, std::size_t at) {
  if (at == text.size()) return true;
  switch (text[at]) {
    case ' ': case ')': case ']': case ',': case ';': case ':': case '/': case '=': return true;
    case '.': return at + 1 == text.size() || text[at + 1] == ' ';  // a full stop, not a file suffix
    default: return false;
  }
}

}  // namespace

std::string flag_for(std::string_view parameter) {
  for (const auto& [name, flag] : kFlags) {
    if (name == parameter) return std::string(flag);
  }
  std::string flag = "--";
  for (char c : parameter) flag += c == '_' ? '-' : c;
  return flag;
}

std::string user_message(const Error& e) {
  const std::string text = e.what();
  const std::vector<std::string>& parameters = e.parameters();
  std::string out;
  std::size_t respelled_end = std::string::npos;  // in `text`, just after the last respelled mention
  const std::vector<UserText>& user_text = e.user_text();
  auto next_user = user_text.begin();
  for (std::size_t at = 0; at < text.size();) {
    while (next_user != user_text.end() && next_user->begin < at) ++next_user;
    if (next_user != user_text.end() && next_user->begin == at && next_user->size > 0) {
      const std::size_t n = std::min(next_user->size, text.size() - at);
      out.append(text, at, n);  // the user's words, as they are
      at += n;
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

}  // namespace embedpe::cli
