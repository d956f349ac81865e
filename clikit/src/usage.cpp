// Help, examples, typo suggestions and parse-error lines (see clikit/usage.h).
#include "clikit/usage.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

#include "clikit/values.h"
#include "describe.h"

namespace clikit {
namespace detail {

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::vector<std::string> all_names(const CLI::Option* opt) {
  std::vector<std::string> v;
  for (const auto& l : opt->get_lnames()) v.push_back("--" + l);
  for (const auto& s : opt->get_snames()) v.push_back("-" + s);
  return v;
}

std::vector<const CLI::App*> listed_commands(const CLI::App& app) {
  std::vector<const CLI::App*> out;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); })) {
    out.push_back(sub);
  }
  return out;
}

namespace {

// Words completions offer for options whose placeholder cannot list them
// (--emit NAME,...), set by the command that defines the option.
std::map<const CLI::Option*, std::vector<std::string>>& extra_words() {
  static std::map<const CLI::Option*, std::vector<std::string>> words;
  return words;
}

std::map<const CLI::App*, std::vector<std::string>>& examples() {
  static std::map<const CLI::App*, std::vector<std::string>> table;
  return table;
}

}  // namespace

std::vector<std::string> choices_of(const CLI::Option* opt) {
  if (const auto it = extra_words().find(opt); it != extra_words().end()) return it->second;
  const std::string t = opt->get_type_name();
  if (t.find('|') == std::string::npos) return {};
  std::vector<std::string> words;
  std::stringstream ss(t);
  for (std::string w; std::getline(ss, w, '|');) {
    const bool word = !w.empty() && (std::islower(static_cast<unsigned char>(w[0])) || std::isdigit(static_cast<unsigned char>(w[0]))) &&
                      std::all_of(w.begin(), w.end(), [](unsigned char c) {
                        return std::islower(c) || std::isdigit(c) || c == '-' || c == '_';
                      });
    if (word) words.push_back(w);  // not "PATH" or "-" (standard input) of "PATH|-"
  }
  return words;
}

ValueKind value_kind(const CLI::Option* opt) {
  if (!takes_value(opt)) return ValueKind::none;
  const std::string t = opt->get_type_name();
  if (!choices_of(opt).empty()) return t.ends_with(",...") ? ValueKind::word_list : ValueKind::words;
  for (const char* p : {"PATH", "FILE", "DIR"}) {
    if (t.find(p) != std::string::npos) return ValueKind::path;
  }
  return ValueKind::other;  // a number, a text: nothing to complete
}

// Validators with a description would add theirs to the placeholder
// ("PATH:FILE"): give them none.
std::string placeholder(const CLI::Option* opt) { return takes_value(opt) ? opt->get_type_name() : ""; }

std::string option_label(const CLI::Option* opt) {
  if (opt->get_positional()) {
    return opt->get_name(true, false) + (opt->get_expected_max() > 1 ? "..." : "");
  }
  const std::string p = placeholder(opt);
  return opt->get_name(false, true) + (p.empty() ? "" : " " + p);
}

std::string option_text(const CLI::Option* opt) {
  std::string d = opt->get_description();
  if (opt->get_required()) d += " (required)";
  if (!opt->get_default_str().empty()) d += " (default: " + opt->get_default_str() + ")";
  return d;
}

const std::vector<std::string>& examples_of(const CLI::App* cmd) {
  static const std::vector<std::string> none;
  const auto it = examples().find(cmd);
  return it == examples().end() ? none : it->second;
}

void set_examples(CLI::App& cmd, std::vector<std::string> lines) {
  std::string footer = "\nExamples:\n";
  for (const auto& line : lines) footer += "  " + line + "\n";
  cmd.footer(footer);
  examples()[&cmd] = std::move(lines);
}

void set_completion_words(const CLI::Option* opt, std::vector<std::string> words) {
  extra_words()[opt] = std::move(words);
}

}  // namespace detail

void set_examples(CLI::App& cmd, std::vector<std::string> lines) { detail::set_examples(cmd, std::move(lines)); }

void set_completion_words(const CLI::Option* opt, std::vector<std::string> words) {
  detail::set_completion_words(opt, std::move(words));
}

using namespace detail;

namespace {

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : listed_commands(app)) names.push_back(sub->get_name());
  return names;
}

// Every "--name" and "-n" of `cmd`'s options.
std::vector<std::string> option_names(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : cmd.get_options()) {
    for (const auto& n : all_names(opt)) names.push_back(n);
  }
  return names;
}

const CLI::Option* find_option(const CLI::App& cmd, std::string_view name) {
  for (const CLI::Option* opt : cmd.get_options()) {
    if (opt->nonpositional() && opt->check_name(std::string(name))) return opt;
  }
  return nullptr;
}

std::string help_hint(const CLI::App& app, const std::string& command) {
  return "(see '" + app.get_name() + " " + (command.empty() ? "" : command + " ") + "--help')";
}

class HelpFormatter : public CLI::Formatter {
 public:
  explicit HelpFormatter(std::vector<std::string> order) : order_(std::move(order)) {}
  const std::vector<std::string>& order() const { return order_; }

  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override {
    if (mode == CLI::AppFormatMode::Sub) return make_expanded(app);
    std::stringstream out;
    out << make_description(app) << make_usage(app, name);
    for (const auto& [group, opts] : option_groups(*app)) {
      out << "\n" << group << ":\n";
      for (const CLI::Option* opt : opts) out << make_option(opt, opt->get_positional());
    }
    out << make_subcommands(app, mode);
    out << '\n' << make_footer(app);
    return out.str();
  }
  std::string make_option_name(const CLI::Option* opt, bool) const override { return option_label(opt); }
  std::string make_option_opts(const CLI::Option*) const override { return ""; }
  std::string make_option_desc(const CLI::Option* opt) const override { return option_text(opt); }
  std::string make_option_usage(const CLI::Option* opt) const override {
    return opt->get_required() ? option_label(opt) : "[" + option_label(opt) + "]";
  }

 private:
  std::vector<std::string> order_;
};

}  // namespace

std::shared_ptr<CLI::FormatterBase> help_formatter(std::vector<std::string> group_order) {
  return std::make_shared<HelpFormatter>(std::move(group_order));
}

std::vector<std::pair<std::string, std::vector<const CLI::Option*>>> option_groups(const CLI::App& cmd) {
  std::vector<std::pair<std::string, std::vector<const CLI::Option*>>> groups;
  if (const auto* f = dynamic_cast<const HelpFormatter*>(cmd.get_formatter().get())) {
    for (const std::string& g : f->order()) groups.emplace_back(g, std::vector<const CLI::Option*>{});
  }
  const CLI::Option* help = cmd.get_help_ptr();
  for (const CLI::Option* opt : cmd.get_options()) {
    if (opt == help || opt->get_group().empty()) continue;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == opt->get_group(); });
    if (it == groups.end()) it = groups.emplace(groups.end(), opt->get_group(), std::vector<const CLI::Option*>{});
    it->second.push_back(opt);
  }
  if (help) {
    // --help last, in the last group, or in "Options" when the command has none.
    auto it = std::find_if(groups.begin(), groups.end(), [](const auto& g) { return g.first == "Options"; });
    if (it == groups.end()) it = groups.emplace(groups.end(), "Options", std::vector<const CLI::Option*>{});
    it->second.push_back(help);
  }
  std::erase_if(groups, [](const auto& g) { return g.second.empty(); });
  return groups;
}

namespace {

// A word after the command: an option (before any "--"), with the option it
// names if the command has one, or an argument. Option values are not words.
struct Word {
  std::string text;
  bool is_option = false;
  const CLI::Option* option = nullptr;
};

std::vector<Word> words_after_command(const CLI::App& sub, const std::vector<std::string>& args) {
  std::vector<Word> words;
  bool after_command = false, after_dashes = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (!after_command) {
      after_command = a == sub.get_name();
      continue;
    }
    if (!after_dashes && a == "--") {
      after_dashes = true;  // what follows are FILEs, whatever they look like
      continue;
    }
    if (after_dashes || a.size() < 2 || a[0] != '-') {  // a FILE, or "-" (standard input)
      words.push_back({a, false, nullptr});
      continue;
    }
    const CLI::Option* opt = find_option(sub, a.substr(0, a.find('=')));
    if (!opt && a[1] != '-') opt = find_option(sub, a.substr(0, 2));  // -ofile: -o and its value
    if (opt && takes_value(opt) && a.find('=') == std::string::npos && (a[1] == '-' || a.size() == 2)) ++i;
    words.push_back({a, true, opt});
  }
  return words;
}

}  // namespace

std::optional<std::string> unknown_option_line(CLI::App& app, const std::vector<std::string>& args) {
  CLI::App* sub = chosen_subcommand(app, args);
  if (!sub) return std::nullopt;
  const std::string name = sub->get_name();
  const std::string prefix = app.get_name() + " " + name + ": ";
  for (const Word& w : words_after_command(*sub, args)) {
    if (!w.is_option || w.option) continue;
    const std::string& a = w.text;
    const std::string flag = a.substr(0, a.find('='));
    // "--=x" names no option, and "-x" one letter: the nearest would be a guess at nothing.
    const std::size_t name_start = flag.find_first_not_of('-');
    const bool named = name_start != std::string::npos;
    if (flag == "--version" && app.get_option_no_throw("--version")) {
      return prefix + "unknown option '--version'; the version is '" + app.get_name() + " --version'";
    }
    // "-vv" is a short option or two, not a misspelt long name: no guess; "-text" is one.
    const std::string guess = named && flag.size() - name_start >= (name_start == 1 ? 3 : 2)
                                  ? nearest(flag, option_names(*sub))
                                  : "";
    return prefix + "unknown option '" + (named ? flag : a) + "'" +
           (guess.empty() ? "" : "; did you mean '" + guess + "'?") + " " + help_hint(app, name);
  }
  return std::nullopt;
}

namespace {

// Edit costs, in quarters of a typo: a hyphen or underscore left out, added or
// swapped for the other, and a letter in the wrong case, are slips that keep
// the word ("--dmodel", "--d_model" and "--D-Model" all mean "--d-model"); a
// letter added, dropped, changed or two swapped is a whole typo.
constexpr std::size_t kTypo = 4;
constexpr std::size_t kSlip = 1;

bool is_joiner(char c) { return c == '-' || c == '_'; }

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::size_t substitution_cost(char a, char b) {
  if (a == b) return 0;
  if ((is_joiner(a) && is_joiner(b)) || lower(a) == lower(b)) return kSlip;
  return kTypo;
}

std::size_t indel_cost(char c) { return is_joiner(c) ? kSlip : kTypo; }

}  // namespace

std::string nearest(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = std::string::npos;
  std::vector<std::vector<std::size_t>> d;
  for (const std::string& c : candidates) {
    // Damerau–Levenshtein (optimal string alignment), weighted as above.
    const std::size_t n = word.size(), m = c.size();
    d.assign(n + 1, std::vector<std::size_t>(m + 1));
    for (std::size_t i = 1; i <= n; ++i) d[i][0] = d[i - 1][0] + indel_cost(word[i - 1]);
    for (std::size_t j = 1; j <= m; ++j) d[0][j] = d[0][j - 1] + indel_cost(c[j - 1]);
    for (std::size_t i = 1; i <= n; ++i) {
      for (std::size_t j = 1; j <= m; ++j) {
        d[i][j] = std::min({d[i - 1][j] + indel_cost(word[i - 1]), d[i][j - 1] + indel_cost(c[j - 1]),
                            d[i - 1][j - 1] + substitution_cost(word[i - 1], c[j - 1])});
        if (i > 1 && j > 1 && word[i - 1] == c[j - 2] && word[i - 2] == c[j - 1]) {
          d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + kTypo);
        }
      }
    }
    std::size_t dist = d[n][m];
    // A prefix of a longer name ("--seq" for "--seq-len") is as likely as a typo.
    if (word.size() >= 3 && c.starts_with(word)) dist = std::min(dist, kTypo);
    if (dist < best_d) {
      best_d = dist;
      best = c;
    }
  }
  const std::size_t allowed = kTypo * std::max<std::size_t>(2, word.size() / 3);
  return best_d <= allowed ? best : "";
}

CLI::App* chosen_subcommand(CLI::App& app, const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "--") break;
    if (a.starts_with("-")) continue;
    for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      if (sub->get_name() == a) return sub;
    }
    return nullptr;  // the first word is not a command
  }
  return nullptr;
}

namespace {

// The line for a parse error before any command: the first word is what
// was meant as the command.
std::string no_command_line(CLI::App& app, const std::vector<std::string>& args) {
  const std::string prefix = app.get_name() + ": ";
  const std::string hint = help_hint(app, "");
  const std::vector<std::string> commands = command_names(app);
  for (const std::string& a : args) {
    if (a.starts_with("-")) {
      if (a == "--help" || a == "-h" || a == "--version") continue;
      std::vector<std::string> own = {"--help"};
      if (app.get_option_no_throw("--version")) own.push_back("--version");
      const std::string guess = nearest(a, own);
      if (!guess.empty()) return prefix + "unknown option '" + a + "'; did you mean '" + guess + "'? " + hint;
      const std::size_t name_start = a.find_first_not_of('-');
      if (name_start == std::string::npos || a[name_start] == '=' || commands.empty()) {  // "--=x": no option named
        return prefix + "unknown option '" + a + "' " + hint;
      }
      return prefix + "unknown option '" + a + "'; options come after a command, e.g. '" + app.get_name() + " " +
             commands.front() + " " + a + "' " + hint;
    }
    const std::string guess = nearest(a, commands);
    return prefix + "unknown command '" + a + "'" + (guess.empty() ? "" : "; did you mean '" + guess + "'?") + " " +
           hint;
  }
  return prefix + "give a command: " + join(commands, ", ") + " " + hint;
}

// CLI11's wording of `message`, reworded where it would reach the user.
std::string reworded(std::string message, const std::string& prefix, const std::string& hint) {
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"File does not exist: ", "no such file: "},
           {"File is actually a directory: ", "is a directory, not a file: "},
           {"Directory does not exist: ", "no such directory: "}}) {
    if (const auto at = message.find(from); at != std::string::npos) message.replace(at, from.size(), to);
  }
  if (message.starts_with("Could not convert: ")) {  // "--no-bos=maybe": a switch given a value
    const std::string rest = message.substr(19);
    const auto eq = rest.find(" = ");
    if (eq != std::string::npos) {
      return prefix + rest.substr(0, eq) + " is a switch: give it without a value, not '" + rest.substr(eq + 3) +
             "' " + hint;
    }
  }
  if (const auto at = message.find(" excludes "); at != std::string::npos && message.find(' ') == at) {
    // "--text excludes FILE"
    message = "give " + message.substr(0, at) + " or " + message.substr(at + 10) + ", not both";
  }
  if (const auto at = message.find(" requires "); at != std::string::npos && message.find(' ') == at) {
    // "--layernorm-eps requires --layernorm"
    message = message.substr(0, at) + " only applies with " + message.substr(at + 10) + ": add it, or drop " +
              message.substr(0, at);
  }
  if (const auto at = message.find(": At Most 1 required but received "); at != std::string::npos) {
    message = message.substr(0, at) + ": given more than once; give it once";
  }
  const auto colon = message.find(": ");
  if (colon != std::string::npos && message.find(" required ", colon) != std::string::npos &&
      message.ends_with(" missing")) {
    message = message.substr(0, colon) + ": needs a value";
  }
  return prefix + message + " " + hint;
}

}  // namespace

std::string parse_error_line(CLI::App& app, const std::vector<std::string>& args, const CLI::ParseError& e) {
  CLI::App* sub = chosen_subcommand(app, args);
  if (!sub) return no_command_line(app, args);
  const std::string name = sub->get_name();
  const std::string prefix = app.get_name() + " " + name + ": ";
  // An unknown option is reported whatever error the parser saw first: the
  // parser may have taken its value as a FILE and tripped over that instead.
  if (auto line = unknown_option_line(app, args)) return *line;
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr && sub->get_option_no_throw("FILE") == nullptr) {
    for (const Word& w : words_after_command(*sub, args)) {
      if (!w.is_option) return prefix + "unexpected argument '" + w.text + "' " + help_hint(app, name);
    }
  }
  return reworded(e.what(), prefix, help_hint(app, name));
}

std::vector<std::string> expand_help(CLI::App& app, std::vector<std::string> args) {
  if (args.empty() || args[0] != "help") return args;
  if (args.size() == 1) return {"--help"};
  if (args.size() > 2) {
    std::string extra;
    for (std::size_t i = 1; i < args.size(); ++i) extra += (i > 1 ? " " : "") + args[i];
    throw UsageError("help: takes one COMMAND, not '" + extra + "'; e.g. '" + app.get_name() + " help " + args[1] +
                     "'");
  }
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == args[1]) return {args[1], "--help"};
  }
  return {args[1]};  // unknown: the parser reports it, with the nearest command
}

void setup_usage(CLI::App& app, ManPage page, std::function<void(const std::string&)> print) {
  // `NAME help [COMMAND]` never runs: expand_help turns it into --help
  // before parsing. It is here to be listed and completed.
  auto* help = app.add_subcommand("help", "Show the help of " + app.get_name() + " or of a COMMAND (as --help does)");
  help->add_option("COMMAND", "A command")->type_name("COMMAND");
  const std::string name = app.get_name();
  const auto commands = app.get_subcommands([](const CLI::App* c) { return c->get_name() != "help"; });
  const std::string first = commands.empty() ? "COMMAND" : commands.front()->get_name();
  clikit::set_examples(*help, {name + " help", name + " help " + first});

  auto shell = std::make_shared<std::string>();
  auto* completion = app.add_subcommand("completion", "Print a shell completion script (bash, zsh or fish)");
  completion->add_option("SHELL", *shell, "bash, zsh or fish")
      ->required()
      ->type_name("bash|zsh|fish")
      ->check(CLI::Validator(
          [](std::string& v) {
            return v == "bash" || v == "zsh" || v == "fish" ? std::string()
                                                           : "must be one of bash|zsh|fish, not '" + v + "'";
          },
          "", ""));
  completion->callback([&app, shell, print] {
    print(*shell == "bash" ? bash_completion(app) : *shell == "zsh" ? zsh_completion(app) : fish_completion(app));
  });
  clikit::set_examples(*completion, {name + " completion bash > /etc/bash_completion.d/" + name,
                             name + " completion zsh > \"${fpath[1]}/_" + name + "\"",
                             name + " completion fish > ~/.config/fish/completions/" + name + ".fish"});
  auto* manpage = app.add_subcommand("manpage", "Print the man page (roff)");
  manpage->group("");  // hidden: the build writes NAME.1 with it
  manpage->callback([&app, page = std::move(page), print] { print(man_page(app, page)); });
}

}  // namespace clikit
