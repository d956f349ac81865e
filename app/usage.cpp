#include "usage.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>

#include "embedpe/error.h"
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
      {"help", {"embedpe help", "embedpe help encode"}},
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

// The words an option's value is one of ("json|jsonl|npy"), or none.
std::vector<std::string> choices_of(const CLI::Option* opt) {
  const std::string t = opt->get_type_name();
  if (t.find('|') == std::string::npos) return {};
  std::vector<std::string> words;
  std::stringstream ss(t);
  for (std::string w; std::getline(ss, w, '|');) {
    const bool word = !w.empty() && std::all_of(w.begin(), w.end(), [](unsigned char c) {
      return std::islower(c) || std::isdigit(c) || c == '-' || c == '_';
    });
    if (!word) return {};
    words.push_back(w);
  }
  return words;
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::string help_hint(const std::string& command) {
  return "(see 'embedpe " + (command.empty() ? "" : command + " ") + "--help')";
}

}  // namespace

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
  {
    const bool extras = dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr;
    bool after_command = false, options = true;
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (!after_command) {
        after_command = a == name;
        continue;
      }
      if (a == "--") {
        options = false;
        continue;
      }
      if (options && a.size() > 1 && a[0] == '-') {
        const std::string flag = a.substr(0, a.find('='));
        const CLI::Option* opt = find_option(*sub, flag);
        if (!opt) {
          const std::string guess = nearest(flag, option_names(*sub));
          return prefix + "unknown option '" + flag + "'" + (guess.empty() ? "" : "; did you mean '" + guess + "'?") +
                 " " + help_hint(name);
        }
        if (takes_value(opt) && a.find('=') == std::string::npos) ++i;  // its value
        continue;
      }
      if (extras && sub->get_option_no_throw("FILE") == nullptr) {
        return prefix + "unexpected argument '" + a + "' " + help_hint(name);
      }
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
  if (const auto at = message.find(" excludes "); at != std::string::npos && message.find(' ') == at) {
    // "--text excludes FILE"
    message = "give " + message.substr(0, at) + " or " + message.substr(at + 10) + ", not both";
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
  if (args.size() > 2) return args;  // let the parser report the extra arguments
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
    std::fwrite(script.data(), 1, script.size(), stdout);
    if (std::fflush(stdout) != 0) throw Error("cannot write the completion script to standard output");
  });
  auto* manpage = app.add_subcommand("manpage", "Print the man page (roff)");
  manpage->group("");  // hidden: the build writes embedpe.1 with it
  manpage->callback([&app] {
    const std::string page = man_page(app);
    std::fwrite(page.data(), 1, page.size(), stdout);
    if (std::fflush(stdout) != 0) throw Error("cannot write the man page to standard output");
  });

  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    const auto ex = examples().find(sub->get_name());
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
      "  local opts=\"\" valued=\"\"\n"
      "  case \"$cmd\" in\n";
  for (const auto& c : commands) {
    std::vector<std::string> opts, valued;
    std::string choice_cases;
    for (const CLI::Option* opt : c.options) {
      for (const auto& n : all_names(opt)) {
        opts.push_back(n);
        if (takes_value(opt)) valued.push_back(n);
      }
      const auto choices = choices_of(opt);
      if (!choices.empty()) {
        choice_cases += "        " + join(all_names(opt), "|") + ") COMPREPLY=($(compgen -W " +
                        quoted(join(choices, " ")) + " -- \"$cur\")); return ;;\n";
      }
    }
    if (c.name == "completion") choice_cases += "        completion) COMPREPLY=($(compgen -W 'bash zsh fish' -- \"$cur\")); return ;;\n";
    if (c.name == "help") choice_cases += "        help) COMPREPLY=($(compgen -W " + quoted(join(names, " ")) + " -- \"$cur\")); return ;;\n";
    s += "    " + c.name + ")\n"
         "      opts=" + quoted(join(opts, " ")) + "\n"
         "      valued=" + quoted(" " + join(valued, " ") + " ") + "\n";
    if (!choice_cases.empty()) s += "      case \"$prev\" in\n" + choice_cases + "      esac\n";
    s += "      ;;\n";
  }
  s += "  esac\n"
       "  if [[ $valued == *\" $prev \"* ]]; then\n"
       "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
       "  elif [[ $cur == -* ]]; then\n"
       "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
       "  else\n"
       "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
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
        const auto choices = choices_of(opt);
        value = ":" + spec_text(opt->get_type_name().empty() ? "value" : opt->get_type_name()) + ":" +
                (choices.empty() ? "_files" : "(" + join(choices, " ") + ")");
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
      if (takes_value(opt)) {
        const auto choices = choices_of(opt);
        line += choices.empty() ? " -r -F" : " -x -a " + quoted(join(choices, " "));
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
  for (const Command& c : commands_of(app)) {
    s += ".SS \"embedpe " + c.name + "\"\n" + roff(c.description) + "\n";
    for (const CLI::Option* opt : c.options) {
      s += ".TP\n.B " + roff(join(all_names(opt), ", "));
      if (takes_value(opt) && !opt->get_type_name().empty()) s += " \" \\fI" + roff(opt->get_type_name()) + "\\fR\"";
      s += "\n" + roff(one_line(opt->get_description()));
      if (!opt->get_default_str().empty()) s += " (default: " + roff(opt->get_default_str()) + ")";
      s += "\n";
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
