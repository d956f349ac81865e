// The parameters of the library's specs as data: each one a snake_case name,
// the field of a caller's spec it sets, the values it accepts, its help and
// help group. A front end turns a table into its own options (the CLI:
// --kebab-case flags, app/pe_flags.cpp), in the table's order, so that what a
// parameter means and accepts is said once, here.
//
//   TableSpec table;
//   for (const Param& p : table_params(table)) ...  // p.target points into `table`
//
// Help texts and default texts name other parameters as {name} ("the
// {weights} table's"): a front end spells each its own way. A parameter with
// no target (a front end's own: the scale as a word, the PE kind) keeps its
// place in the table for the front end to fill.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "embedpe/encode_command.h"
#include "embedpe/encode_request.h"
#include "embedpe/layer_spec.h"
#include "embedpe/text_input.h"

namespace embedpe {

// A number stored in `*target` (T: a number or an optional one), accepted
// within [lo, hi], or [lo, hi) with hi_open.
template <class T>
struct ParamNumber {
  using Value = T;
  T* target;
  Value lo, hi;
  bool hi_open = false;
};
template <class T>
struct ParamNumber<std::optional<T>> {
  using Value = T;
  std::optional<T>* target;
  Value lo, hi;
  bool hi_open = false;
};

// A switch: given, it sets `*target` to `value`.
struct ParamSwitch {
  bool* target;
  bool value = true;
};

// One word of `words`; `set` is given the index of the word given.
struct ParamChoice {
  std::vector<std::string> words;
  std::function<void(std::size_t)> set;
};

namespace detail {
// std::variant<Ts...> with each type once (std::size_t is std::uint64_t on some platforms).
template <class V, class... Ts>
struct unique_variant {
  using type = V;
};
template <class... Vs, class T, class... Ts>
struct unique_variant<std::variant<Vs...>, T, Ts...>
    : unique_variant<std::conditional_t<(std::is_same_v<T, Vs> || ...), std::variant<Vs...>, std::variant<Vs..., T>>,
                     Ts...> {};
}  // namespace detail

// What a parameter sets; std::monostate: nothing here (the front end's own).
using ParamTarget =
    typename detail::unique_variant<std::variant<std::monostate>, std::string*, std::vector<std::string>*, ParamSwitch,
                                    ParamChoice, ParamNumber<std::size_t>, ParamNumber<double>, ParamNumber<int>,
                                    ParamNumber<std::optional<std::size_t>>, ParamNumber<std::optional<std::uint64_t>>,
                                    ParamNumber<std::optional<std::int64_t>>, ParamNumber<std::optional<int>>,
                                    ParamNumber<std::optional<double>>>::type;

struct Param {
  std::string name;  // snake_case: "padding_idx"
  ParamTarget target;
  std::string help;
  std::string group;         // help group: "Embedding"
  std::string default_text;  // as help shows the default; empty: a plain target's value
  std::string type_name;     // what the value is called in help ("E"); empty: by kind
  bool path = false;         // names a file: an empty value is refused
  char short_name = 0;       // a one-letter form a front end may offer too ('o')
};

// A choice setting `*target` (an enum, or an optional one) to the value of the word given.
template <class T, class E>
ParamChoice param_choice(T* target, std::vector<std::pair<std::string, E>> choices) {
  ParamChoice choice;
  for (const auto& c : choices) choice.words.push_back(c.first);
  choice.set = [target, choices](std::size_t i) { *target = choices[i].second; };
  return choice;
}

// The help groups, in the order a front end lists them.
inline constexpr const char* kInputGroup = "Input";
inline constexpr const char* kTokenizationGroup = "Tokenization";
inline constexpr const char* kEmbeddingGroup = "Embedding";
inline constexpr const char* kPositionalGroup = "Positional encoding";
inline constexpr const char* kRopeGroup = "RoPE";
inline constexpr const char* kToleranceGroup = "Tolerance";  // diff's
inline constexpr const char* kOutputGroup = "Output";
inline constexpr const char* kPipelineGroup = "Pipeline";

// The limits of the specs' sizes, beyond what any model needs.
inline constexpr std::size_t kMaxThreads = 1024;
inline constexpr std::size_t kMaxDModel = 2147483647;
inline constexpr std::size_t kMaxSeqLen = 2147483647;
inline constexpr std::size_t kMaxShards = 1000000;
inline constexpr std::size_t kMaxBatchRows = std::size_t(1) << 20;  // batch_size, shard_rows

// The embedding table's parameters, from d_model to no_projection.
std::vector<Param> table_params(TableSpec& table);
// The input layer's, the table's among them; without target: scale (a word
// or a number), pe (the kind) and pe_params (the kinds' own, PeParam).
std::vector<Param> layer_params(LayerSpec& spec);
// The texts' (and their reading's): text, input, FILE, ids, text_pair,
// input_format, field, skip_empty, max_line_bytes, shard, shard_seek;
// without target: FILE, ids, shard.
std::vector<Param> text_params(TextSpec& spec);
// Tokenization's: BOS/EOS, pad id, seq_len, the sides, pad_to_multiple_of;
// without target: model, pretrained, tokenizer (where the tokenizer comes from).
std::vector<Param> tokenize_params(EncodeRequest& request);
// encode's beyond the layer's: token types, train, dropout, rope_dim;
// without target: token_type_ids (a list of ids).
std::vector<Param> request_params(EncodeRequest& request);
// encode's output and pipeline: format, dtype, output_path, emit, precision,
// batch_size, threads, output_dir, shard_rows, resume, quiet, summary (dtype
// and threads set in `request`); without target: emit (a list of tensor words).
std::vector<Param> encode_output_params(EncodeCommand& cmd, EncodeRequest& request);

}  // namespace embedpe
