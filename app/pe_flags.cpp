#include "pe_flags.h"

#include <algorithm>
#include <string_view>
#include <variant>
#include <utility>
#include <vector>

#include "common.h"
#include "errors.h"
#include "embedpe/message.h"

namespace embedpe::cli {
namespace {

CLI::Option* add_param(CLI::App& cmd, PeArgs& args, const PeParam& p) {
  const std::string flag = flag_for(p.name);
  const std::string name = p.name;
  CLI::Option* opt = nullptr;
  switch (p.type) {
    case PeParam::Type::integer: {
      const NumberRange<std::uint64_t> range{static_cast<std::uint64_t>(p.min), static_cast<std::uint64_t>(p.max)};
      opt = cmd.add_option_function<std::string>(
          flag, [&args, name, flag, range](const std::string& t) { args.set(name, parse_number(flag, t, range)); },
          p.help);
      opt->type_name("N");
      // A default outside the range (alibi's heads: 0) stands for "give it": none is shown.
      if (p.default_value && std::get<std::uint64_t>(*p.default_value) >= range.lo) {
        opt->default_str(number_text(std::get<std::uint64_t>(*p.default_value)));
      }
      break;
    }
    case PeParam::Type::number: {
      const NumberRange<double> range{p.min, p.max};
      opt = cmd.add_option_function<std::string>(
          flag, [&args, name, flag, range](const std::string& t) { args.set(name, parse_number(flag, t, range)); },
          p.help);
      opt->type_name("X");
      if (p.default_value) opt->default_str(number_text(std::get<double>(*p.default_value)));
      break;
    }
    case PeParam::Type::choice: {
      std::vector<std::pair<std::string, std::string>> choices;
      for (const auto& c : p.choices) choices.emplace_back(c, c);
      opt = add_choice<std::string>(cmd, flag, [&args, name](std::string v) { args.set(name, std::move(v)); },
                                    choices, p.help);
      break;
    }
    case PeParam::Type::flag:
      opt = cmd.add_flag_callback(flag, [&args, name] { args.set(name, true); }, p.help);
      break;
    case PeParam::Type::path:
      opt = cmd.add_option_function<std::string>(flag, [&args, name](const std::string& t) { args.set(name, t); },
                                                 p.help);
      opt->type_name("PATH[:TENSOR]")->check(non_empty_path());
      break;
  }
  if (!p.value_name.empty()) opt->type_name(p.value_name);
  if (!p.default_text.empty()) opt->default_str(p.default_text);
  return opt;
}

// A library text with each {parameter} spelled as its flag.
std::string spell_flags(std::string text) {
  for (std::size_t open = text.find('{'); open != std::string::npos; open = text.find('{', open)) {
    const std::size_t close = text.find('}', open);
    if (close == std::string::npos) break;
    const std::string flag = flag_for(std::string_view(text).substr(open + 1, close - open - 1));
    text.replace(open, close + 1 - open, flag);
  }
  return text;
}

}  // namespace

void add_params(CLI::App& cmd, const std::vector<Param>& params, const ParamHooks& hooks) {
  for (const Param& p : params) {
    option_group(cmd, p.group);
    const std::string flag = flag_for(p.name) + (p.short_name ? std::string(",-") + p.short_name : "");
    const std::string help = spell_flags(p.help);
    CLI::Option* opt = std::visit(
        [&](auto target) -> CLI::Option* {
          using T = decltype(target);
          if constexpr (std::is_same_v<T, std::monostate>) {
            return hooks.at(p.name)(help);
          } else if constexpr (std::is_same_v<T, std::string*>) {
            return cmd.add_option(flag, *target, help)->capture_default_str();
          } else if constexpr (std::is_same_v<T, std::vector<std::string>*>) {
            return cmd.add_option(flag, *target, help)->allow_extra_args(false);
          } else if constexpr (std::is_same_v<T, ParamSwitch>) {
            if (target.value) return cmd.add_flag(flag, *target.target, help);
            return cmd.add_flag_callback(flag, [target] { *target.target = target.value; }, help);
          } else if constexpr (std::is_same_v<T, ParamChoice>) {
            std::vector<std::pair<std::string, std::size_t>> choices;
            for (const std::string& word : target.words) choices.emplace_back(word, choices.size());
            return add_choice<std::size_t>(cmd, flag, target.set, choices, help);
          } else {
            return add_number(cmd, flag, *target.target, target.lo, target.hi, help, target.hi_open);
          }
        },
        p.target);
    if (!opt) continue;
    if (!p.type_name.empty()) opt->type_name(p.type_name);
    if (p.path) opt->check(non_empty_path());
    if (!p.default_text.empty()) opt->default_str(spell_flags(p.default_text));
  }
}

void add_pe_params(CLI::App& cmd, PeArgs& args, PeParam::Use use, const std::function<bool(const PeKind&)>& offered) {
  // Kinds may share a parameter (head): it is offered once, the first kind's
  // description prefixed with the labels of every kind that takes it.
  std::vector<std::pair<PeParam, std::vector<std::string>>> params;  // (parameter, labels of its kinds)
  const std::string rope_label(find_pe_kind("rope").label());
  for (const PeKind* kind : pe_kinds()) {
    if (!offered(*kind)) continue;
    for (const PeParam& p : kind->params()) {
      if (p.use != PeParam::Use::both && p.use != use) continue;
      auto it = std::find_if(params.begin(), params.end(), [&](const auto& q) { return q.first.name == p.name; });
      if (it == params.end()) it = params.insert(it, {p, {}});
      it->second.emplace_back(kind->label());
    }
  }
  for (auto& [p, labels] : params) {
    if (labels.size() > 1) {
      std::string names;
      for (const std::string& l : labels) names += (names.empty() ? "" : ", ") + l;
      p.help = names + ": " + p.help;
    }
    // RoPE's many parameters get a help group of their own.
    const bool rope = labels.size() == 1 && labels.front() == rope_label;
    add_param(cmd, args, p)->group(rope ? kRopeGroup : kPositionalGroup);
  }
}

std::string pe_kind_list(const std::function<bool(const PeKind&)>& offered) {
  std::vector<std::string> names;
  for (const PeKind* kind : pe_kinds()) {
    if (offered(*kind)) names.emplace_back(kind->name());
  }
  return or_list(names);
}

CLI::Option* add_pe_kind_option(CLI::App& cmd, const std::string& flag, const PeKind*& kind,
                                const std::function<bool(const PeKind&)>& offered, const std::string& help) {
  std::vector<std::pair<std::string, const PeKind*>> choices;
  for (const PeKind* k : pe_kinds()) {
    if (offered(*k)) choices.emplace_back(std::string(k->name()), k);
  }
  // The registry's first kind is the default.
  return add_choice<const PeKind*>(cmd, flag, [&kind](const PeKind* k) { kind = k; }, choices, help,
                                   choices.empty() ? "" : choices.front().first);
}

}  // namespace embedpe::cli
