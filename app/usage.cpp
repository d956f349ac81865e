#include "usage.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>

#include "common.h"
#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/version.h"

#ifndef EMBEDPE_GIT_COMMIT
#define EMBEDPE_GIT_COMMIT "unknown"
#endif
#ifndef EMBEDPE_SENTENCEPIECE_VERSION
#define EMBEDPE_SENTENCEPIECE_VERSION "unknown"
#endif
#ifndef EMBEDPE_BUILD_TYPE
#define EMBEDPE_BUILD_TYPE "unknown"
#endif

namespace embedpe::cli {
namespace {

// Two or three examples per command, shown at the end of its help and in
// the man page.
const std::map<std::string, std::vector<std::string>>& examples() {
  static const std::map<std::string, std::vector<std::string>> table = {
      {"encode",
       {"embedpe encode --text \"Hello world\"                     # a summary on a terminal, JSON when piped",
        "embedpe encode --input corpus.txt --seq-len 64 -o out.npz",
        "embedpe encode --input corpus.txt --pe rope --emit input_ids,rope_cos,rope_sin -o rope.safetensors"}},
      {"tokenize",
       {"embedpe tokenize --text \"Hello world\"",
        "embedpe tokenize --input corpus.txt --format ids --model llama2-tokenizer.model"}},
      {"decode",
       {"embedpe decode --ids 1,262,6523,920,2",
        "embedpe tokenize --format ids --input corpus.txt | embedpe decode",
        "embedpe decode out.npz                                  # input_ids, padding dropped"}},
      {"pe",
       {"embedpe pe --max-len 8 --d-model 16                    # the sinusoidal table",
        "embedpe pe --max-len 128 --d-model 64 -o pe.png",
        "embedpe pe --kind t5 --max-len 16 --num-buckets 32 --max-distance 128"}},
      {"info", {"embedpe info", "embedpe info --model llama2-tokenizer.model", "embedpe info --weights model.safetensors"}},
      {"lookup", {"embedpe lookup --ids 1,262,2 --d-model 8", "embedpe lookup --ids 262 --weights emb.npy"}},
      {"quantize", {"embedpe quantize --weights emb.npy -o emb-int8.safetensors"}},
      {"completion",
       {"embedpe completion bash > /etc/bash_completion.d/embedpe",
        "embedpe completion zsh > \"${fpath[1]}/_embedpe\"",
        "embedpe completion fish > ~/.config/fish/completions/embedpe.fish"}},
      {"merge",
       {"embedpe merge part-1.npy part-2.npy part-3.npy -o all.npy     # as one run without --shard",
        "embedpe merge parts-1 parts-2 -o all.npz                       # --output-dir shards"}},
      {"help", {"embedpe help", "embedpe help encode"}},
      {"",  // embedpe --help
       {"embedpe encode --text \"Hello world\"                     # the input layer's tensors",
        "embedpe tokenize --input corpus.txt --format ids",
        "embedpe help encode                                     # a command's options and examples"}},
  };
  return table;
}

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); })) {
    names.push_back(sub->get_name());
  }
  return names;
}

// Every "--name" and "-n" of `cmd`'s options.
std::vector<std::string> option_names(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : cmd.get_options()) {
    for (const auto& l : opt->get_lnames()) names.push_back("--" + l);
    for (const auto& s : opt->get_snames()) names.push_back("-" + s);
  }
  return names;
}

bool takes_value(const CLI::Option* opt) { return opt->get_expected_max() != 0; }  // flags expect 0 values

const CLI::Option* find_option(const CLI::App& cmd, std::string_view name) {
  for (const CLI::Option* opt : cmd.get_options()) {
    if (opt->nonpositional() && opt->check_name(std::string(name))) return opt;
  }
  return nullptr;
}

// Words completions offer for options whose placeholder cannot list them
// (--emit NAME,...), set by the command that defines the option.
std::map<const CLI::Option*, std::vector<std::string>>& extra_words() {
  static std::map<const CLI::Option*, std::vector<std::string>> words;
  return words;
}

// The words an option's value is one of: the lowercase words of its
// placeholder ("json|jsonl|npy"; "sqrt|none|X" gives sqrt and none), or
// those set with set_completion_words; none for other values.
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

// What a completion offers for an option's value.
enum class ValueKind { none, words, word_list, path, other };

ValueKind value_kind(const CLI::Option* opt) {
  if (opt->get_expected_max() == 0) return ValueKind::none;  // a flag
  const std::string t = opt->get_type_name();
  if (!choices_of(opt).empty()) return t.ends_with(",...") ? ValueKind::word_list : ValueKind::words;
  for (const char* p : {"PATH", "FILE", "DIR"}) {
    if (t.find(p) != std::string::npos) return ValueKind::path;
  }
  return ValueKind::other;  // a number, a text: nothing to complete
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::string help_hint(const std::string& command) {
  return "(see 'embedpe " + (command.empty() ? "" : command + " ") + "--help')";
}

// The order of help groups; groups not listed ("Options": --help) come after.
const std::vector<std::string>& group_order() {
  static const std::vector<std::string> order = {kInputGroup,    kTokenizationGroup, kEmbeddingGroup, kPositionalGroup,
                                                 kRopeGroup,     kOutputGroup,       kPipelineGroup};
  return order;
}

// What a value is called in help: the option's placeholder ("PATH", "N",
// "json|npz"). Validators with a description would add theirs ("PATH:FILE"):
// embedpe's validators have none, and the help test checks it stays so.
std::string placeholder(const CLI::Option* opt) {
  if (!takes_value(opt)) return "";
  return opt->get_type_name();
}

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

class HelpFormatter : public CLI::Formatter {
 public:
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
};

}  // namespace

std::shared_ptr<CLI::FormatterBase> help_formatter() { return std::make_shared<HelpFormatter>(); }

void set_completion_words(const CLI::Option* opt, std::vector<std::string> words) {
  extra_words()[opt] = std::move(words);
}

std::vector<std::pair<std::string, std::vector<const CLI::Option*>>> option_groups(const CLI::App& cmd) {
  std::vector<std::pair<std::string, std::vector<const CLI::Option*>>> groups;
  for (const std::string& g : group_order()) groups.emplace_back(g, std::vector<const CLI::Option*>{});
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
  for (const Word& w : words_after_command(*sub, args)) {
    if (!w.is_option || w.option) continue;
    const std::string& a = w.text;
    const std::string flag = a.substr(0, a.find('='));
    // "--=x" names no option, and "-x" one letter: the nearest would be a guess at nothing.
    const std::size_t name_start = flag.find_first_not_of('-');
    const bool named = name_start != std::string::npos;
    if (flag == "--version") {
      return "embedpe " + name + ": unknown option '--version'; the version is 'embedpe --version'";
    }
    // "-vv" is a short option or two, not a misspelt long name: no guess; "-text" is one.
    const std::string guess = named && flag.size() - name_start >= (name_start == 1 ? 3 : 2)
                                  ? nearest(flag, option_names(*sub))
                                  : "";
    return "embedpe " + name + ": unknown option '" + (named ? flag : a) + "'" +
           (guess.empty() ? "" : "; did you mean '" + guess + "'?") + " " + help_hint(name);
  }
  return std::nullopt;
}

std::string nearest(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = std::string::npos;
  for (const std::string& c : candidates) {
    // Damerau–Levenshtein (optimal string alignment).
    const std::size_t n = word.size(), m = c.size();
    std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
    for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= n; ++i) {
      for (std::size_t j = 1; j <= m; ++j) {
        const std::size_t cost = word[i - 1] == c[j - 1] ? 0 : 1;
        d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
        if (i > 1 && j > 1 && word[i - 1] == c[j - 2] && word[i - 2] == c[j - 1]) {
          d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    std::size_t dist = d[n][m];
    // A prefix of a longer name ("--seq" for "--seq-len") is as likely as a typo.
    if (word.size() >= 3 && c.starts_with(word)) dist = std::min<std::size_t>(dist, 1);
    if (dist < best_d) {
      best_d = dist;
      best = c;
    }
  }
  const std::size_t allowed = std::max<std::size_t>(2, word.size() / 3);
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

std::string parse_error_line(CLI::App& app, const std::vector<std::string>& args, const CLI::ParseError& e) {
  CLI::App* sub = chosen_subcommand(app, args);
  if (!sub) {
    // The first word is what was meant as the command.
    for (const std::string& a : args) {
      if (a.starts_with("-")) {
        if (a == "--help" || a == "-h" || a == "--version") continue;
        const std::string guess = nearest(a, {"--help", "--version"});
        if (!guess.empty()) return "embedpe: unknown option '" + a + "'; did you mean '" + guess + "'? " + help_hint("");
        const std::size_t name_start = a.find_first_not_of('-');
        if (name_start == std::string::npos || a[name_start] == '=') {  // "--=x": no option named at all
          return "embedpe: unknown option '" + a + "' " + help_hint("");
        }
        return "embedpe: unknown option '" + a + "'; options come after a command, e.g. 'embedpe encode " + a +
               "' " + help_hint("");
      }
      const std::string guess = nearest(a, command_names(app));
      return "embedpe: unknown command '" + a + "'" + (guess.empty() ? "" : "; did you mean '" + guess + "'?") + " " +
             help_hint("");
    }
    return "embedpe: give a command: " + join(command_names(app), ", ") + " " + help_hint("");
  }
  const std::string name = sub->get_name();
  const std::string prefix = "embedpe " + name + ": ";
  // An unknown option is reported whatever error the parser saw first: the
  // parser may have taken its value as a FILE and tripped over that instead.
  if (auto line = unknown_option_line(app, args)) return *line;
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr && sub->get_option_no_throw("FILE") == nullptr) {
    for (const Word& w : words_after_command(*sub, args)) {
      if (!w.is_option) return prefix + "unexpected argument '" + w.text + "' " + help_hint(name);
    }
  }
  std::string message = e.what();
  // CLI11's own wording, where it reaches the user.
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
      return prefix + rest.substr(0, eq) + " is a switch: give it without a value, not '" +
             rest.substr(eq + 3) + "' " + help_hint(name);
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
  return prefix + message + " " + help_hint(name);
}

std::vector<std::string> expand_help(CLI::App& app, std::vector<std::string> args) {
  if (args.empty() || args[0] != "help") return args;
  if (args.size() == 1) return {"--help"};
  if (args.size() > 2) {
    std::string extra;
    for (std::size_t i = 1; i < args.size(); ++i) extra += (i > 1 ? " " : "") + args[i];
    throw UsageError("help: takes one COMMAND, not '" + extra + "'; e.g. 'embedpe help " + args[1] + "'");
  }
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == args[1]) return {args[1], "--help"};
  }
  return {args[1]};  // unknown: the parser reports it, with the nearest command
}

std::string version_text() {
  std::string s = std::string("embedpe ") + version() + "\n";
  s += std::string("commit ") + EMBEDPE_GIT_COMMIT + "\n";
  s += std::string("sentencepiece ") + EMBEDPE_SENTENCEPIECE_VERSION + "\n";
#if defined(__clang__)
  s += "compiler clang " __clang_version__ "\n";
#elif defined(__GNUC__)
  s += "compiler GCC " __VERSION__ "\n";
#else
  s += "compiler unknown\n";
#endif
  s += std::string("build ") + EMBEDPE_BUILD_TYPE;
  return s;
}

void setup_usage(CLI::App& app) {
  // `embedpe help [COMMAND]` never runs: expand_help turns it into --help
  // before parsing. It is here to be listed and completed.
  auto* help = app.add_subcommand("help", "Show the help of embedpe or of a COMMAND (as --help does)");
  help->add_option("COMMAND", "A command")->type_name("COMMAND");

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
  completion->callback([&app, shell] {
    std::string script = *shell == "bash" ? bash_completion(app) : *shell == "zsh" ? zsh_completion(app) : fish_completion(app);
    OutputFile out("-");
    out.write(script);
    out.commit();
  });
  auto* manpage = app.add_subcommand("manpage", "Print the man page (roff)");
  manpage->group("");  // hidden: the build writes embedpe.1 with it
  manpage->callback([&app] {
    const std::string page = man_page(app);
    OutputFile out("-");
    out.write(page);
    out.commit();
  });

  std::vector<CLI::App*> all = app.get_subcommands([](const CLI::App*) { return true; });
  all.push_back(&app);  // its examples are under "", the name it is given at parse time being argv[0]
  for (CLI::App* sub : all) {
    const auto ex = examples().find(sub == &app ? "" : sub->get_name());
    if (ex == examples().end()) continue;
    std::string footer = "\nExamples:\n";
    for (const auto& line : ex->second) footer += "  " + line + "\n";
    sub->footer(footer);
  }
}

// ---------------------------------------------------------------- completions

namespace {

struct Command {
  std::string name, description;
  std::vector<const CLI::Option*> options;  // named options, --help included
  bool positional_files = false;
};

std::vector<Command> commands_of(const CLI::App& app) {
  std::vector<Command> out;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); })) {
    Command c{sub->get_name(), sub->get_description(), {}, false};
    for (const CLI::Option* opt : sub->get_options()) {
      if (opt->nonpositional()) {
        c.options.push_back(opt);
      } else {
        c.positional_files = true;
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}


std::vector<std::string> all_names(const CLI::Option* opt) {
  std::vector<std::string> v;
  for (const auto& l : opt->get_lnames()) v.push_back("--" + l);
  for (const auto& s : opt->get_snames()) v.push_back("-" + s);
  return v;
}

// Text inside single quotes in a shell script.
std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

}  // namespace

std::string bash_completion(const CLI::App& app) {
  const std::vector<Command> commands = commands_of(app);
  std::vector<std::string> names;
  for (const auto& c : commands) names.push_back(c.name);
  std::string s =
      "# bash completion for embedpe, generated by `embedpe completion bash` from its command definition.\n"
      "_embedpe() {\n"
      "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" cmd=\"\" i\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    case \"${COMP_WORDS[i]}\" in\n"
      "      " + join(names, "|") + ") cmd=\"${COMP_WORDS[i]}\"; break ;;\n"
      "    esac\n"
      "  done\n"
      "  if [[ -z $cmd ]]; then\n"
      "    COMPREPLY=($(compgen -W " + quoted(join(names, " ") + " --help --version") + " -- \"$cur\"))\n"
      "    return\n"
      "  fi\n"
      "  local opts=\"\" positional=\"\"\n"
      "  case \"$cmd\" in\n";
  for (const auto& c : commands) {
    std::vector<std::string> opts, paths, others;
    std::string value_cases;
    for (const CLI::Option* opt : c.options) {
      for (const auto& n : all_names(opt)) opts.push_back(n);
      const std::string names_of = join(all_names(opt), "|");
      const std::string words = quoted(join(choices_of(opt), " "));
      switch (value_kind(opt)) {
        case ValueKind::words:
          value_cases += "        " + names_of + ") COMPREPLY=($(compgen -W " + words + " -- \"$cur\")); return ;;\n";
          break;
        case ValueKind::word_list:  // a,b,c: complete the word after the last comma
          value_cases += "        " + names_of + ") COMPREPLY=($(compgen -P \"${cur%\"${cur##*,}\"}\" -W " + words +
                         " -- \"${cur##*,}\")); return ;;\n";
          break;
        case ValueKind::path: paths.push_back(names_of); break;
        case ValueKind::other: others.push_back(names_of); break;
        case ValueKind::none: break;
      }
    }
    if (!paths.empty()) value_cases += "        " + join(paths, "|") + ") COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n";
    // A number or a text: nothing to offer (no file names).
    if (!others.empty()) value_cases += "        " + join(others, "|") + ") COMPREPLY=(); return ;;\n";
    std::string positional = c.positional_files ? "COMPREPLY=($(compgen -f -- \"$cur\"))" : "COMPREPLY=()";
    if (c.name == "completion") positional = "COMPREPLY=($(compgen -W 'bash zsh fish' -- \"$cur\"))";
    if (c.name == "help") positional = "COMPREPLY=($(compgen -W " + quoted(join(names, " ")) + " -- \"$cur\"))";
    s += "    " + c.name + ")\n"
         "      opts=" + quoted(join(opts, " ")) + "\n"
         "      positional=" + cli::quoted(positional) + "\n";
    if (!value_cases.empty()) s += "      case \"$prev\" in\n" + value_cases + "      esac\n";
    s += "      ;;\n";
  }
  s += "  esac\n"
       "  if [[ $cur == -* ]]; then\n"
       "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
       "  else\n"
       "    eval \"$positional\"\n"
       "  fi\n"
       "}\n"
       "complete -o filenames -o bashdefault -F _embedpe embedpe\n";
  return s;
}

std::string zsh_completion(const CLI::App& app) {
  const std::vector<Command> commands = commands_of(app);
  auto spec_text = [](std::string s) {  // inside [...] of an _arguments spec, in single quotes
    std::string out;
    for (char c : one_line(s)) {
      if (c == '[' || c == ']' || c == ':' || c == '\\') out += '\\';
      out += c;
    }
    return out;
  };
  std::string s =
      "#compdef embedpe\n"
      "# zsh completion for embedpe, generated by `embedpe completion zsh` from its command definition.\n"
      "_embedpe() {\n"
      "  local -a commands\n"
      "  commands=(\n";
  for (const auto& c : commands) s += "    " + quoted(c.name + ":" + spec_text(c.description)) + "\n";
  s += "  )\n"
       "  if (( CURRENT == 2 )); then\n"
       "    _describe -t commands 'embedpe command' commands\n"
       "    return\n"
       "  fi\n"
       "  local cmd=$words[2]\n"
       "  shift words; (( CURRENT-- ))\n"
       "  case $cmd in\n";
  for (const auto& c : commands) {
    s += "    " + c.name + ")\n      _arguments -s";
    for (const CLI::Option* opt : c.options) {
      const std::string desc = "[" + spec_text(opt->get_description()) + "]";
      std::string value;
      if (takes_value(opt)) {
        const std::string words = join(choices_of(opt), " ");
        std::string action = " ";  // a number or a text: the placeholder is shown, nothing offered
        switch (value_kind(opt)) {
          case ValueKind::words: action = "(" + words + ")"; break;
          case ValueKind::word_list: action = "_sequence compadd - " + words; break;
          case ValueKind::path: action = "_files"; break;
          case ValueKind::other:
          case ValueKind::none: break;
        }
        value = ":" + spec_text(placeholder(opt).empty() ? "value" : placeholder(opt)) + ":" + action;
      }
      const bool repeatable = opt->get_expected_max() > 1 || opt->get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll;
      for (const auto& n : all_names(opt)) s += " \\\n        " + quoted((repeatable ? "*" : "") + n + desc + value);
    }
    if (c.name == "completion") s += " \\\n        ':shell:(bash zsh fish)'";
    if (c.name == "help") {
      std::vector<std::string> names;
      for (const auto& k : commands) names.push_back(k.name);
      s += " \\\n        " + quoted(":command:(" + join(names, " ") + ")");
    }
    if (c.positional_files) s += " \\\n        '*:file:_files'";
    s += "\n      ;;\n";
  }
  s += "  esac\n"
       "}\n"
       "_embedpe \"$@\"\n";
  return s;
}

std::string fish_completion(const CLI::App& app) {
  const std::vector<Command> commands = commands_of(app);
  std::vector<std::string> names;
  for (const auto& c : commands) names.push_back(c.name);
  std::string s =
      "# fish completion for embedpe, generated by `embedpe completion fish` from its command definition.\n"
      "complete -c embedpe -f\n";
  for (const auto& c : commands) {
    s += "complete -c embedpe -n __fish_use_subcommand -a " + c.name + " -d " + quoted(one_line(c.description)) + "\n";
  }
  s += "complete -c embedpe -n __fish_use_subcommand -l version -d 'Print the version and build'\n";
  for (const auto& c : commands) {
    const std::string when = "-n '__fish_seen_subcommand_from " + c.name + "'";
    for (const CLI::Option* opt : c.options) {
      std::string line = "complete -c embedpe " + when;
      for (const auto& l : opt->get_lnames()) line += " -l " + l;
      for (const auto& sn : opt->get_snames()) line += " -s " + sn;
      switch (value_kind(opt)) {
        case ValueKind::words:
        case ValueKind::word_list: line += " -x -a " + quoted(join(choices_of(opt), " ")); break;
        case ValueKind::path: line += " -r -F"; break;
        case ValueKind::other: line += " -x"; break;  // a value, but no file names
        case ValueKind::none: break;
      }
      s += line + " -d " + quoted(one_line(opt->get_description())) + "\n";
    }
    if (c.positional_files) s += "complete -c embedpe " + when + " -F\n";
    if (c.name == "completion") s += "complete -c embedpe " + when + " -x -a 'bash zsh fish'\n";
    if (c.name == "help") s += "complete -c embedpe " + when + " -x -a " + quoted(join(names, " ")) + "\n";
  }
  return s;
}

// ---------------------------------------------------------------- man page

namespace {

// Text for roff: backslashes and hyphens escaped, no line starting with a
// control character.
std::string roff(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
    if (c == '\n') out += "\\&";
  }
  return out.starts_with(".") || out.starts_with("'") ? "\\&" + out : out;
}

}  // namespace

std::string man_page(const CLI::App& app) {
  std::string s = ".TH EMBEDPE 1 \"\" \"embedpe " + std::string(version()) + "\" \"User Commands\"\n";
  s += ".SH NAME\nembedpe \\- text to the tensors a Transformer's input layer produces\n";
  s += ".SH SYNOPSIS\n.B embedpe\n.I COMMAND\n[\\fIOPTIONS\\fR]\n.br\n.B embedpe help\n[\\fICOMMAND\\fR]\n";
  s += ".SH DESCRIPTION\n" + roff(app.get_description()) + "\n";
  s += ".PP\nExit status: 0 on success, 1 for a runtime error (an unreadable or corrupt file, I/O), "
       "2 for a usage error (a bad option). Errors are one line on standard error, and no partial output file "
       "is left.\n";
  s += ".SH COMMANDS\n";
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* cmd) { return !cmd->get_group().empty(); })) {
    const Command c{sub->get_name(), sub->get_description(), {}, false};
    s += ".SS \"embedpe " + c.name + "\"\n" + roff(c.description) + "\n";
    for (const auto& [group, opts] : option_groups(*sub)) {
      s += ".PP\n\\fI" + roff(group) + ":\\fR\n";
      for (const CLI::Option* opt : opts) {
        if (opt->get_positional()) {
          s += ".TP\n.I " + roff(option_label(opt));
        } else {
          s += ".TP\n.B " + roff(join(all_names(opt), ", "));
          if (!placeholder(opt).empty()) s += " \" \\fI" + roff(placeholder(opt)) + "\\fR\"";
        }
        s += '\n';  // (appended piecewise: GCC 12 warns falsely on "\n" + std::string, -Wrestrict)
        s += roff(one_line(option_text(opt)));
        s += '\n';
      }
    }
    const auto ex = examples().find(c.name);
    if (ex != examples().end()) {
      s += ".PP\nExamples:\n.RS\n.nf\n";
      for (const auto& line : ex->second) s += roff(line) + "\n";
      s += ".fi\n.RE\n";
    }
  }
  s += ".SH SEE ALSO\n.BR spm_encode (1),\n.BR spm_decode (1)\n";
  return s;
}

}  // namespace embedpe::cli
