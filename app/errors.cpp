#include "errors.h"

#include <utility>
#include <vector>

#include "clikit/respell.h"

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

}  // namespace

std::string flag_for(std::string_view parameter) {
  for (const auto& [name, flag] : kFlags) {
    if (name == parameter) return std::string(flag);
  }
  return clikit::kebab_flag(parameter);
}

std::vector<std::pair<std::string, std::string>> as_flags(std::vector<std::pair<std::string, std::string>> inputs) {
  for (auto& [name, path] : inputs) name = flag_for(name);
  return inputs;
}

std::string user_message(const Error& e) {
  std::vector<std::pair<std::size_t, std::size_t>> verbatim;
  for (const TextSpan& s : e.verbatim()) verbatim.emplace_back(s.begin, s.size);
  return clikit::respell(e.what(), e.parameters(), verbatim, flag_for);
}

}  // namespace embedpe::cli
