// Pieces the subcommands share: where the texts and the model come from, and
// the tokenization flags of encode and tokenize.
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
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "embedpe/error.h"
#include "embedpe/text_input.h"
#include "embedpe/tokenizer.h"

namespace embedpe::cli {

struct TextOptions {
  std::vector<std::string> texts;   // --text, repeatable
  std::vector<std::string> ids;     // --ids, repeatable: one sequence of ids each
  std::vector<std::string> inputs;  // --input PATH or -, repeatable
  InputOptions reading;             // --input-format, --field, --skip-empty, --shard, --max-line-bytes
  bool shard_given = false;         // --shard, even 1/1: an empty part is then an empty output, not an error
};

struct Texts {
  std::vector<std::string> lines;
};

// The help groups, in the order --help and the man page list them
// (usage.cpp); a command shows only those its options use.
inline constexpr const char* kInputGroup = "Input";
inline constexpr const char* kTokenizationGroup = "Tokenization";
inline constexpr const char* kEmbeddingGroup = "Embedding";
inline constexpr const char* kPositionalGroup = "Positional encoding";
inline constexpr const char* kRopeGroup = "RoPE";
inline constexpr const char* kOutputGroup = "Output";
inline constexpr const char* kPipelineGroup = "Pipeline";

// The options added to `cmd` from now on belong to help group `group`
// (CLI11's option defaults): one call per block of options.
inline void option_group(CLI::App& cmd, const std::string& group) { cmd.option_defaults()->group(group); }

struct TokenizeFlags {
  std::string model;  // empty: the embedded default
  bool no_bos = false;
  bool no_eos = false;
  std::optional<int> pad_id;
  std::optional<std::size_t> seq_len;
  Side padding_side = Side::right;
  Side truncation_side = Side::right;
  std::optional<std::size_t> pad_to_multiple_of;
};

// ---------------------------------------------------------------- numbers
//
// Every numeric option goes through parse_number, so that a negative,
// overflowing, non-numeric, NaN or out-of-range value is refused with one
// line in one shape, naming the flag and the accepted range:
//
//   --threads: expected a whole number from 1 to 1024, not '-1'
//   --base: expected a number from 1.001 to 1e+12, not 'nan'
//
// and never wraps around (std::from_chars on unsigned types would accept no
// sign, but CLI11's conversions turn "-3" into 2^64-3).

// Positions are kept below 2^53, where every whole number is exact in a
// float64 (the PE's angle pos / base^(2i/d) is computed in float64).
inline constexpr std::uint64_t kMaxPosition = std::uint64_t(1) << 53;
inline constexpr std::size_t kMaxThreads = 1024;
inline constexpr std::size_t kMaxBatchRows = std::size_t(1) << 20;  // --batch-size, --shard-rows
inline constexpr std::size_t kMaxDModel = 2147483647;
inline constexpr std::size_t kMaxSeqLen = 2147483647;
inline constexpr std::size_t kMaxShards = 1000000;
// --base and --rope-theta: above 1 (base^(2i/d) must grow), at most 1e12.
inline constexpr double kMinBase = 1.001;
inline constexpr double kMaxBase = 1e12;

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

// As try_parse_number, but a bad value is a CLI::ValidationError (exit 2).
template <class V>
V parse_number(const std::string& flag, std::string_view text, const NumberRange<V>& range) {
  if (auto v = try_parse_number(text, range)) return *v;
  throw CLI::ValidationError(flag, "expected " + range_text(range) + ", not '" + echo_value(text) + "'");
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

// --precision N: significant digits of floats in the text formats `where`
// ("json and jsonl"); 0, the default, is the shortest text that reads back
// as the same float32.
CLI::Option* add_precision_option(CLI::App& cmd, int& precision, const std::string& where);

// --scale sqrt|none|X: X a number from -1e6 to 1e6.
CLI::Option* add_scale_option(CLI::App& cmd, std::string& scale, const std::string& help =
                                  "Embedding scale: sqrt (√d_model), none, or a number");

// "A:B" (B excluded) with lo <= A < B <= hi; a CLI::ValidationError otherwise.
struct Span {
  std::size_t first = 0, count = 0;
};
Span parse_span(const std::string& flag, const std::string& text, std::uint64_t hi);

// "ID,ID,..." (or spaces) ids from 0 to 2^31-1, read by the one id parser
// (embedpe::parse_id_text); a bad value is a CLI::ValidationError naming `flag`.
std::vector<std::int64_t> parse_ids(const std::string& flag, const std::string& text);

// True when the texts are lines of ids (--ids, --input-format ids): the
// tokenizer is skipped. UsageError for --ids with --input-format jsonl.
bool ids_input(const TextOptions& options);

// "--ids N": where the N-th --ids value (from 0) came from, as "--text N" for texts.
std::string ids_origin(std::size_t i);

// --ids values are command-line values: an id outside the model's
// vocabulary is a usage error (exit 2), as a malformed one is.
void check_ids_flag(const std::vector<std::string>& ids, const Tokenizer& tokenizer);

// An option that takes one of a few words and stores the matching enum
// value through `set`; anything else is a usage error listing the words.
// `default_word`, if any, is shown as the default.
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
// A command with one format (decode's text) passes no `format`: any known
// extension is then refused, naming `what` it writes.
void refuse_contradicting_extension(const std::string& output, const std::string& format,
                                    const std::vector<std::pair<std::string, std::string>>& extensions,
                                    const std::string& what = "");
// (extension, format name) of every sink format: what encode and decode check outputs against.
std::vector<std::pair<std::string, std::string>> sink_extensions();

// Refuses, before any work, outputs that are the same file as an input
// (see embedpe::refuse_output_over_inputs). `inputs` holds (flag, PATH or
// PATH:TENSOR) pairs; tensor names are dropped.
void refuse_outputs_over_inputs(const std::vector<std::string>& outputs,
                                const std::vector<std::pair<std::string, std::string>>& inputs);

// For options that name a file: an empty value (--weights "$UNSET") is an
// error, never silently the default.
const CLI::Validator& non_empty_path();

void add_text_options(CLI::App& cmd, TextOptions& options);
// --output/-o PATH, default "-" (standard output).
void add_output_option(CLI::App& cmd, std::string& output);
// Throws UsageError if binary `what` (".npy") would go to a terminal.
void refuse_binary_to_terminal(const std::string& output, const std::string& what);
void add_tokenize_flags(CLI::App& cmd, TokenizeFlags& flags);
// --model only (info).
void add_model_option(CLI::App& cmd, std::string& model);

// The texts to process, all at once, checked for UTF-8; throws UsageError
// if none are given.
Texts load_texts(const TextOptions& options);
// The files read for texts and tokens: each --input, and --model.
std::vector<std::pair<std::string, std::string>> text_inputs(const TextOptions& text, const std::string& model);
// A streaming reader over --input (throws UsageError if there is none).
std::unique_ptr<LineReader> open_reader(const TextOptions& options);
// --input's reader, or --text's strings (named "--text N" in messages), as
// one source; throws UsageError if neither is given.
TextSource open_texts(const TextOptions& options);
Tokenizer load_tokenizer(const std::string& model);
EncodeOptions encode_options(const TokenizeFlags& flags);

}  // namespace embedpe::cli
