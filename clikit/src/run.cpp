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

namespace {

// The length of the UTF-8 sequence at s[i] and its code point, or 0 if the
// bytes there are not one (overlong, a surrogate, above U+10FFFF, cut).
std::size_t utf8_at(std::string_view s, std::size_t i, char32_t& cp) {
  const auto b = static_cast<unsigned char>(s[i]);
  std::size_t n;
  char32_t lo;
  if (b >= 0xC2 && b <= 0xDF) n = 2, cp = b & 0x1F, lo = 0x80;
  else if (b >= 0xE0 && b <= 0xEF) n = 3, cp = b & 0x0F, lo = 0x800;
  else if (b >= 0xF0 && b <= 0xF4) n = 4, cp = b & 0x07, lo = 0x10000;
  else return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const auto t = static_cast<unsigned char>(s[i + k]);
    if ((t & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (t & 0x3F);
  }
  if (cp < lo || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

// Characters a terminal shows as nothing, or that move or reorder the text
// around them: C1 controls (U+009B is an escape sequence's start on some
// terminals), Unicode's format characters (Cf) and the line and paragraph
// separators.
bool invisible(char32_t c) {
  return (c >= 0x80 && c <= 0x9F) || c == 0xAD || c == 0x34F || (c >= 0x600 && c <= 0x605) || c == 0x61C ||
         c == 0x6DD || c == 0x70F || c == 0x115F || c == 0x1160 || c == 0x17B4 || c == 0x17B5 ||
         (c >= 0x180B && c <= 0x180F) || (c >= 0x200B && c <= 0x200F) || (c >= 0x2028 && c <= 0x202E) ||
         (c >= 0x2060 && c <= 0x206F) || c == 0x3164 || (c >= 0xFE00 && c <= 0xFE0F) || c == 0xFEFF ||
         c == 0xFFA0 || (c >= 0xFFF0 && c <= 0xFFFB) || (c >= 0x1BCA0 && c <= 0x1BCA3) ||
         (c >= 0x1D173 && c <= 0x1D17A) || (c >= 0xE0000 && c <= 0xE0FFF);
}

}  // namespace

std::string printable_line(std::string_view message) {
  std::string line;
  line.reserve(message.size());
  for (std::size_t i = 0; i < message.size();) {
    const auto c = static_cast<unsigned char>(message[i]);
    char hex[16];
    if (c == '\n') {
      line += "\\n";
    } else if (c < 0x20 || c == 0x7f) {
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      line += hex;
    } else if (c < 0x80) {
      line += static_cast<char>(c);
    } else {
      char32_t cp = 0;
      const std::size_t n = utf8_at(message, i, cp);
      if (n == 0) {
        std::snprintf(hex, sizeof hex, "\\x%02x", c);
        line += hex;
      } else {
        if (invisible(cp)) {
          std::snprintf(hex, sizeof hex, "<U+%04X>", static_cast<unsigned>(cp));
          line += hex;
        } else {
          line.append(message.substr(i, n));
        }
        i += n;
        continue;
      }
    }
    ++i;
  }
  return line;
}

int fail(const std::string& message, int status, const std::string& prefix) {
  std::string line = std::string(::isatty(STDERR_FILENO) ? "\r\033[K" : "") + prefix;
  line += printable_line(message);
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
