#include "clikit/values.h"

#include <algorithm>

namespace clikit {

std::string echo_value(std::string_view text) {
  constexpr std::size_t kShown = 24;
  if (text.size() <= kShown) return std::string(text);
  // Cut between characters: half a UTF-8 sequence would show as stray bytes.
  std::size_t cut = kShown;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "... (" + std::to_string(text.size()) + " characters)";
}

namespace {

// The whole numbers A and B of "A<sep>B", each in [lo, hi]; nullopt unless both are.
std::optional<std::pair<std::size_t, std::size_t>> number_pair(const std::string& text, char sep, std::size_t lo,
                                                               std::uint64_t hi) {
  const NumberRange<std::size_t> bound{lo, static_cast<std::size_t>(hi)};
  const auto at = text.find(sep);
  if (at == std::string::npos) return std::nullopt;
  const auto a = try_parse_number(std::string_view(text).substr(0, at), bound);
  const auto b = try_parse_number(std::string_view(text).substr(at + 1), bound);
  if (!a || !b) return std::nullopt;
  return std::pair{*a, *b};
}

}  // namespace

Span parse_span(const std::string& flag, const std::string& text, std::uint64_t hi) {
  const auto ab = number_pair(text, ':', 0, hi);
  if (!ab || ab->second <= ab->first) {
    throw CLI::ValidationError(flag, "expected A:B with whole numbers 0 <= A < B <= " + std::to_string(hi) +
                                         " (B excluded), not '" + echo_value(text) + "'");
  }
  return {ab->first, ab->second - ab->first};
}

Part parse_part(const std::string& flag, const std::string& text, std::uint64_t hi) {
  const auto kn = number_pair(text, '/', 1, hi);
  if (!kn || kn->first > kn->second) {
    throw CLI::ValidationError(flag, "expected K/N with whole numbers 1 <= K <= N <= " + std::to_string(hi) +
                                         ", not '" + echo_value(text) + "'");
  }
  return {kn->first, kn->second};
}

CLI::Option* add_word_or_number(CLI::App& cmd, const std::string& flag, std::string& value,
                                const std::vector<std::string>& words, NumberRange<double> range,
                                const std::string& help) {
  std::string expected, placeholder;
  for (const std::string& w : words) {
    expected += w + (&w == &words.back() ? " or " : ", ");
    placeholder += w + "|";
  }
  auto* opt = cmd.add_option_function<std::string>(
      flag,
      [&value, words, range, flag, expected](const std::string& text) {
        if (std::find(words.begin(), words.end(), text) == words.end() && !try_parse_number(text, range)) {
          throw number_error(flag, text, range, expected);
        }
        value = text;
      },
      help);
  return opt->type_name(placeholder + "X")->default_str(value);
}

const CLI::Validator& non_empty_path() {
  static const CLI::Validator check(
      [](std::string& value) { return value.empty() ? std::string("needs a path, not an empty value") : std::string(); },
      "", "non-empty path");
  return check;
}

void refuse_contradicting_extension(const std::string& output, const std::string& format,
                                    const std::vector<std::pair<std::string, std::string>>& extensions,
                                    const std::string& what) {
  std::optional<std::string> owner;
  try {
    owner = format_from_extension(output, extensions);
  } catch (const UsageError&) {
    return;  // an extension no format has
  }
  if (owner && *owner != format) {
    if (format.empty()) {
      throw UsageError(what + ", not what " + output + " names (" + *owner + "); give another file name");
    }
    throw UsageError("--format " + format + " is not what " + output + " names (" + *owner + "); give --format " +
                     *owner + " or another file name");
  }
}

}  // namespace clikit
