// Option values checked the same way in every command of a CLI11 program:
// numbers within a range, one word of a few, "A:B" spans, non-empty paths,
// and the output format an output file's extension names.
//
// A bad value is refused with one line in one shape, naming the flag and what
// it accepts, and never wraps around or is silently clamped:
//
//   --threads: expected a whole number from 1 to 1024, not '-1'
//   --base: expected a number from 1.001 to 1e+12, not 'nan'
//   --format: must be one of json|npy|npz, not 'csv'
//
// (std::from_chars on unsigned types would take no sign, but CLI11's own
// conversions turn "-3" into 2^64-3.) Nothing here knows the program it
// serves.
#pragma once

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

namespace clikit {

// A usage error found after parsing (an output's extension, `help` with two
// commands): the program reports e.what() and exits as for a bad option.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The options added to `cmd` from now on belong to help group `group`
// (CLI11's option defaults): one call per block of options.
inline void option_group(CLI::App& cmd, const std::string& group) { cmd.option_defaults()->group(group); }

// ---------------------------------------------------------------- numbers

// The inclusive range [lo, hi]; `hi_open` makes it [lo, hi).
template <class V>
struct NumberRange {
  V lo, hi;
  bool hi_open = false;
};

template <class V>
std::string number_text(V v) {
  if constexpr (std::is_floating_point_v<V>) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
    return buf;
  } else {
    return std::to_string(v);
  }
}

// What a user typed, short enough to echo: a 309-digit number is cut.
std::string echo_value(std::string_view text);

template <class V>
std::string range_text(const NumberRange<V>& r) {
  const char* kind = std::is_floating_point_v<V> ? "a number" : "a whole number";
  return std::string(kind) + " from " + number_text(r.lo) + (r.hi_open ? " up to (not including) " : " to ") +
         number_text(r.hi);
}

// Why `text`, a number as strtod reads it, is not a V although it
// is a number: "underflows ..." (1e-400: not 0, but too small to hold) or
// "overflows ..." (1e999); nullopt for anything else. A range check would
// otherwise call 1e-400 "not a number from -1 to 1", which it is.
template <class V>
std::optional<std::string> number_out_of_reach(std::string_view text) {
  if constexpr (!std::is_floating_point_v<V>) {
    return std::nullopt;
  } else {
    if (text.empty() || std::isspace(static_cast<unsigned char>(text.front())) ||
        text.find_first_of("xX") != text.npos) {
      return std::nullopt;
    }
    const std::string copy(text);
    char* end = nullptr;
    errno = 0;
    const double d = std::strtod(copy.c_str(), &end);
    if (end != copy.c_str() + copy.size() || std::isnan(d)) return std::nullopt;
    const bool ranged = errno == ERANGE;
    const char* type = std::is_same_v<V, float> ? "float" : "double";
    // inf or infinity, written as such, is not a number that overflows.
    if (std::isinf(d) && !ranged) return std::nullopt;
    if (std::isinf(d) || std::fabs(d) > static_cast<double>(std::numeric_limits<V>::max())) {
      return "overflows: it is larger in magnitude than any " + std::string(type) + " (" +
             number_text(std::numeric_limits<V>::max()) + ")";
    }
    // strtod says ERANGE for a result that is 0 or subnormal although the
    // text is not 0: precision is lost, or all of it.
    if ((ranged && std::fabs(d) < std::numeric_limits<double>::min()) ||
        (d != 0 && std::fabs(d) < static_cast<double>(std::numeric_limits<V>::min()))) {
      return "underflows: it is not 0, but smaller in magnitude than the smallest normal " + std::string(type) + " (" +
             number_text(std::numeric_limits<V>::min()) + "); write 0 for zero";
    }
    return std::nullopt;
  }
}

// `text` as a V within `range`, or std::nullopt. No sign on unsigned types,
// no leading or trailing junk, no overflow, finite floats only.
template <class V>
std::optional<V> try_parse_number(std::string_view text, const NumberRange<V>& range) {
  if (text.empty()) return std::nullopt;
  V value{};
  if constexpr (std::is_floating_point_v<V>) {
    // strtod rather than from_chars: it takes a leading '+', which users write.
    // No leading space, no hexadecimal ("0x10"): only what people mean by a number.
    if (std::isspace(static_cast<unsigned char>(text.front())) || text.find_first_of("xX") != text.npos) {
      return std::nullopt;
    }
    const std::string copy(text);
    char* end = nullptr;
    errno = 0;
    const double d = std::strtod(copy.c_str(), &end);
    if (end != copy.c_str() + copy.size() || errno == ERANGE || !std::isfinite(d)) return std::nullopt;
    if (number_out_of_reach<V>(text)) return std::nullopt;  // 1e-40 would be a float that lost its digits
    value = static_cast<V>(d);
  } else {
    const char* first = text.data();
    const char* last = text.data() + text.size();
    if (*first == '+') ++first;  // from_chars takes no '+'
    if (first == last || *first == '+') return std::nullopt;
    if (std::is_unsigned_v<V> && *first == '-') return std::nullopt;
    auto [end, ec] = std::from_chars(first, last, value);
    if (ec != std::errc() || end != last) return std::nullopt;
  }
  if (value < range.lo || value > range.hi || (range.hi_open && value == range.hi)) return std::nullopt;
  return value;
}

// The error for `text`, which is not a number in `range` (expected: what
// else is accepted, "sqrt, none or ").
template <class V>
CLI::ValidationError number_error(const std::string& flag, std::string_view text, const NumberRange<V>& range,
                                  const std::string& expected = "") {
  if (auto why = number_out_of_reach<V>(text)) {
    return CLI::ValidationError(flag, "'" + echo_value(text) + "' " + *why + "; expected " + expected +
                                          range_text(range));
  }
  return CLI::ValidationError(flag, "expected " + expected + range_text(range) + ", not '" + echo_value(text) + "'");
}

// As try_parse_number, but a bad value is a CLI::ValidationError (a parse error).
template <class V>
V parse_number(const std::string& flag, std::string_view text, const NumberRange<V>& range) {
  if (auto v = try_parse_number(text, range)) return *v;
  throw number_error(flag, text, range);
}

template <class T>
struct number_value {
  using type = T;
};
template <class T>
struct number_value<std::optional<T>> {
  using type = T;
};

// A numeric option stored in `target` (a number or an optional number),
// accepted only within [lo, hi] (or [lo, hi) with hi_open). A plain target's
// value shows as the default in --help.
template <class T, class V = typename number_value<T>::type>
CLI::Option* add_number(CLI::App& cmd, const std::string& flag, T& target, std::type_identity_t<V> lo,
                        std::type_identity_t<V> hi, const std::string& help, bool hi_open = false) {
  static_assert(std::is_arithmetic_v<V>);
  const NumberRange<V> range{lo, hi, hi_open};
  auto* opt = cmd.add_option_function<std::string>(
      flag, [&target, range, flag](const std::string& text) { target = parse_number<V>(flag, text, range); }, help);
  opt->type_name(std::is_floating_point_v<V> ? "X" : "N");
  if constexpr (std::is_same_v<T, V>) opt->default_str(number_text(target));
  return opt;
}

// "A:B" (B excluded) with 0 <= A < B <= hi; a CLI::ValidationError otherwise.
struct Span {
  std::size_t first = 0, count = 0;
};
Span parse_span(const std::string& flag, const std::string& text, std::uint64_t hi);
// An option taking "A:B" (parse_span) into `target`, a Span or any struct
// of first and count; its placeholder is A:B.
template <class S = Span>
CLI::Option* add_span(CLI::App& cmd, const std::string& flag, std::optional<S>& target, std::uint64_t hi,
                      const std::string& help) {
  const auto set = [&target, flag, hi](const std::string& text) {
    const Span span = parse_span(flag, text, hi);
    target = S{span.first, span.count};
  };
  return cmd.add_option_function<std::string>(flag, set, help)->type_name("A:B");
}

// "K/N", the K-th of N parts, with 1 <= K <= N <= hi; a CLI::ValidationError otherwise.
struct Part {
  std::size_t index = 1, count = 1;
};
Part parse_part(const std::string& flag, const std::string& text, std::uint64_t hi);

// ---------------------------------------------------------------- words

// An option that takes one of a few words and stores the matching value
// through `set`; anything else is a parse error listing the words. The
// placeholder lists them (completions offer them); `default_word`, if any,
// is shown as the default.
template <class E>
CLI::Option* add_choice(CLI::App& cmd, const std::string& flag, std::function<void(E)> set,
                        std::vector<std::pair<std::string, E>> choices, const std::string& help,
                        const std::string& default_word = "") {
  std::string names;
  for (const auto& c : choices) names += (names.empty() ? "" : "|") + c.first;
  auto* opt = cmd.add_option_function<std::string>(
      flag,
      [set, choices, names, flag](const std::string& value) {
        for (const auto& [word, e] : choices) {
          if (word == value) return set(e);
        }
        throw CLI::ValidationError(flag, "must be one of " + names + ", not '" + value + "'");
      },
      help);
  if (!default_word.empty()) opt->default_str(default_word);
  return opt->type_name(names);
}

// An option that takes one of `words` or a number in `range`, kept as the
// text given ("sqrt", "0.5"); `value` holds the default. The placeholder
// lists the words and X: --scale sqrt|none|X.
CLI::Option* add_word_or_number(CLI::App& cmd, const std::string& flag, std::string& value,
                                const std::vector<std::string>& words, NumberRange<double> range,
                                const std::string& help);

// For options that name a file: an empty value (--weights "$UNSET") is an
// error, never silently the default.
const CLI::Validator& non_empty_path();

// ---------------------------------------------------------------- formats

// The format `output`'s extension names, compared without regard to case
// (x.NPY is .npy), or nullopt for "-" and names without an extension. An
// extension that is not in `choices` is a UsageError listing them: an
// unknown extension is never silently written as the default format.
template <class F>
std::optional<F> format_from_extension(const std::string& output,
                                       const std::vector<std::pair<std::string, F>>& choices) {
  const std::size_t slash = output.rfind('/');
  const std::string base = output.substr(slash == std::string::npos ? 0 : slash + 1);
  const std::size_t dot = base.rfind('.');
  if (output == "-" || dot == std::string::npos || dot == 0) return std::nullopt;
  std::string ext = base.substr(dot);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string names;
  for (const auto& [e, f] : choices) {
    if (e == ext) return f;
    names += (names.empty() ? "" : ", ") + e;
  }
  throw UsageError("cannot tell the format of " + output + " from its extension '" + base.substr(dot) +
                   "'; name it " + names + ", or give --format");
}

// Refuses (UsageError) writing format `format` into `output` when the
// output's extension names another of `extensions` (extension, format name):
// `--format json -o x.npz` would leave a file that is not what its name
// says. An extension no format has (ids.txt) is the user's choice.
// A command with one format passes no `format`: any known extension is then
// refused, naming `what` it writes.
void refuse_contradicting_extension(const std::string& output, const std::string& format,
                                    const std::vector<std::pair<std::string, std::string>>& extensions,
                                    const std::string& what = "");

}  // namespace clikit
