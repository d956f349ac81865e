// main()'s part after the commands are defined: the arguments as the
// program's user meant them, parsing, and every way a run ends as one line
// and an exit status.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <sstream>

#include "clikit/usage.h"
#include "clikit/values.h"

namespace clikit {
namespace {

// "--flag=" with nothing after '=' becomes "--flag" "": CLI11 would take the
// next argument as the value (`--output= --quiet` wrote a file "--quiet").
// In command-line order, argv[0] left out.
std::vector<std::string> split_empty_assignments(int argc, char** argv) {
  std::vector<std::string> args;
  bool options = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") options = false;
    if (options && a.size() > 3 && a.starts_with("--") && a.back() == '=' && a.find('=') == a.size() - 1) {
      a.pop_back();
      args.push_back(a);
      args.emplace_back();
      continue;
    }
    args.push_back(std::move(a));
  }
  return args;
}

}  // namespace

int fail(const std::string& message, int status, const std::string& prefix) {
  std::string line = std::string(::isatty(STDERR_FILENO) ? "\r\033[K" : "") + prefix;
  for (unsigned char c : message) {
    if (c == '\n') {
      line += "\\n";
    } else if (c < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      line += hex;
    } else {
      line += static_cast<char>(c);
    }
  }
  std::cerr << line << '\n';
  return status;
}

int run(CLI::App& app, int argc, char** argv, const std::function<void(const std::string&)>& print,
        const std::function<int(std::exception_ptr)>& on_error) {
  // What CLI11 prints (help, version) goes through `print`, as every output does.
  const auto print_parser_output = [&](const CLI::Error& call) {
    std::ostringstream text;
    const int status = app.exit(call, text, std::cerr);
    try {
      print(text.str());
    } catch (...) {  // thrown inside a handler below: not caught by its siblings
      return on_error(std::current_exception());
    }
    return status;
  };
  std::vector<std::string> args;
  try {
    args = expand_help(app, split_empty_assignments(argc, argv));
    if (auto line = unknown_option_line(app, args)) return fail(*line, 2, "");
    app.parse(std::vector<std::string>(args.rbegin(), args.rend()));  // CLI11's parse(vector) takes them last first
    return 0;
  } catch (const CLI::CallForHelp& e) {
    return print_parser_output(e);
  } catch (const CLI::CallForAllHelp& e) {
    return print_parser_output(e);
  } catch (const CLI::CallForVersion& e) {
    return print_parser_output(e);
  } catch (const CLI::ParseError& e) {
    return fail(parse_error_line(app, args, e), 2, "");
  } catch (const UsageError& e) {
    return fail(e.what(), 2, app.get_name() + ": ");
  } catch (...) {
    return on_error(std::current_exception());
  }
}

}  // namespace clikit
