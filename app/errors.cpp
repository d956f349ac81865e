#include "errors.h"

#include <utility>

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

bool word_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

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
  std::string text = e.what();
  for (const std::string& p : e.parameters()) {
    if (p.empty()) continue;
    const std::string flag = flag_for(p);
    for (std::size_t at = text.find(p); at != std::string::npos; at = text.find(p, at)) {
      const bool starts = at == 0 || (!word_char(text[at - 1]) && text[at - 1] != '-');
      const bool ends = at + p.size() == text.size() || !word_char(text[at + p.size()]);
      if (starts && ends) {
        text.replace(at, p.size(), flag);
        at += flag.size();
      } else {
        at += p.size();
      }
    }
  }
  return text;
}

}  // namespace embedpe::cli
