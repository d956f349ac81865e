// Positional-encoding kinds, in one registry. Each kind (sinusoidal, learned,
// none, rope, alibi, t5) lists the parameters it takes, builds the table an
// input layer adds (or says why it adds none: RoPE, ALiBi and T5 act inside
// attention), describes itself as JSON and offers views for inspection
// (tables, statistics, biases).
//
//   const embedpe::PeKind& kind = embedpe::find_pe_kind("sinusoidal");
//   embedpe::PeArgs args;
//   args.set("convention", std::string("fairseq"));
//   embedpe::LayerPe pe = kind.layer(args, {.d_model = 512, .max_len = 1024});
//   // pe.table->rows(0, 10): (10, 512); pe.position_offset == 2 (padding_idx 1, plus 1)
//
// A front end offers every parameter under its own spelling (the command line
// turns snake_case into --kebab-case) without knowing the kinds: a new kind is
// one file in lib/src/pe/ and one line in lib/src/pe_kind.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>
#include <xtensor/xtensor.hpp>

#include "embedpe/heatmap_look.h"
#include "embedpe/positional_encoding.h"

namespace embedpe {

// Positions stay below 2^53, where a float64 holds every whole number exactly.
inline constexpr std::uint64_t kMaxPePosition = std::uint64_t(1) << 53;

using PeValue = std::variant<bool, std::uint64_t, double, std::string>;

// One parameter of a kind, described so that a front end can offer it.
struct PeParam {
  enum class Type { integer, number, choice, flag, path };
  // Where it matters: building an input layer, inspecting, or both.
  enum class Use { both, layer, inspect };

  std::string name;                      // snake_case: "rope_theta"
  Type type = Type::number;
  std::optional<PeValue> default_value;  // none: absence means something the kind decides
  double min = 0, max = 0;               // integer and number: accepted range [min, max]
  std::vector<std::string> choices;      // choice: the accepted words
  // Parameters of one kind say so ("T5: ..."); one that several kinds take
  // (head) is described once, without a kind: front ends name the kinds.
  std::string help;
  std::string value_name;                // what the value is called in help ("K"); default by type
  // The default as help shows it, where default_value does not say it
  // (a choice's word, or a default the kind derives: "the convention's").
  std::string default_text;
  Use use = Use::both;
};

// The values a caller gave, by parameter name; a kind supplies the defaults.
class PeArgs {
 public:
  void set(const std::string& name, PeValue value) { values_[name] = std::move(value); }
  const PeValue* find(std::string_view name) const;
  std::vector<std::string> names() const;  // of the parameters given

 private:
  std::map<std::string, PeValue, std::less<>> values_;
};

// What an input layer asks of its positional encoding.
struct LayerPeRequest {
  std::size_t d_model = 512;
  std::size_t max_len = 5000;
  std::optional<std::size_t> padding_idx;      // the token table's (fairseq derives positions from it)
  std::optional<std::size_t> position_offset;  // given: token l is at position l + this
  std::optional<std::size_t> pad_position;     // given: padding tokens use this position
  std::string weights;                         // the token table's PATH[:TENSOR] (learned: looked for there)
  std::string pe_weights;                      // learned: an explicit PATH[:TENSOR]
};

struct LayerPe {
  std::unique_ptr<PositionTable> table;  // null: nothing is added
  std::size_t position_offset = 0;
  std::optional<std::size_t> pad_position;
  nlohmann::ordered_json config;  // the kind's description, with position_offset and pad_position
};

// table and similarity are matrices and tensors; stats and audit are lists (PeRecords).
enum class PeViewKind { table, stats, similarity, audit };

// What an inspection shows, and how the front end will write it.
struct PeInspectRequest {
  std::optional<std::size_t> d_model;
  std::size_t first = 0, count = 50;          // positions [first, first + count)
  std::size_t position_offset = 0;            // row l shows position l + this
  std::size_t dims_first = 0, dims_count = 0; // the columns shown, for kinds with a width
  PeViewKind view = PeViewKind::table;
  bool text_table = false;  // written as a text table
  bool csv = false;         // written as CSV
  bool png = false;         // drawn as a PNG
  bool whole = false;       // written to a format that holds every tensor of the view (JSON, .npz, .safetensors)
};

// A matrix with its axes named: rows are row_label row_first.., columns col_label col_first...
struct PeMatrix {
  xt::xtensor<float, 2> values;  // (rows, cols)
  std::string row_label, col_label;
  std::size_t row_first = 0, col_first = 0;
  bool integers = false;  // whole numbers (T5's bucket indices, exact as floats): text shows them as integers
  HeatmapLook look;       // how a PNG draws it: colour scale, causal mask, panels
};

// One line per item (a dimension pair, a head); cells are JSON literals or yes/no.
struct PeRecords {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  std::string key;  // the JSON key of the list
};

struct PeTensor {
  std::string name;
  std::variant<xt::xtensor<float, 1>, xt::xtensor<float, 2>, xt::xtensor<float, 3>, xt::xtensor<std::int64_t, 2>>
      values;
};

struct PeInspection {
  nlohmann::ordered_json config;
  std::string title;
  bool note_hidden_dims = false;     // a text table's title says which dims it leaves out, and how to choose
  std::optional<PeRecords> records;  // a list view, written instead of any tensor
  bool records_as_json = false;      // formats other than table and CSV get the records as JSON, not an error
  std::optional<PeMatrix> matrix;    // table, CSV, PNG; and the sinks' formats unless `tensors` says otherwise
  std::string matrix_name;           // the matrix's tensor name
  std::vector<PeTensor> tensors;     // formats of several tensors (JSON, .npz, .safetensors): these, when given
  std::optional<std::size_t> npy_tensor;  // formats of one tensor (.npy): this one of `tensors` rather than the matrix
};

// What a kind is, for the front ends that list and offer it.
struct PeKindTraits {
  std::string_view name;   // "rope": the registry's word
  std::string_view label;  // how help text names it ("RoPE"); empty: the name
  bool layer_choice = false;  // offered as an input layer's encoding (encode --pe)
  bool inspectable = false;   // offered for inspection (pe --kind)
  bool needs_d_model = true;  // inspection needs d_model (a table's width)
  std::vector<PeViewKind> views = {PeViewKind::table};
  bool sized_by_max_len = false;   // the layer's table has max_len positions (a learned one has its file's)
  bool acts_in_attention = false;  // it biases or rotates inside attention, so layer() explains that and throws
  bool reads_pe_weights = false;   // layer() reads LayerPeRequest::pe_weights
};

class PeKind {
 public:
  explicit PeKind(PeKindTraits traits) : traits_(std::move(traits)) {}
  virtual ~PeKind() = default;

  const PeKindTraits& traits() const { return traits_; }
  std::string_view name() const { return traits_.name; }
  std::string_view label() const { return traits_.label.empty() ? traits_.name : traits_.label; }
  bool layer_choice() const { return traits_.layer_choice; }
  bool inspectable() const { return traits_.inspectable; }
  bool needs_d_model() const { return traits_.needs_d_model; }
  const std::vector<PeViewKind>& views() const { return traits_.views; }
  bool sized_by_max_len() const { return traits_.sized_by_max_len; }
  bool acts_in_attention() const { return traits_.acts_in_attention; }
  bool reads_pe_weights() const { return traits_.reads_pe_weights; }

  virtual const std::vector<PeParam>& params() const = 0;

  // The table added to the input, or a UsageError saying why this kind adds none.
  virtual LayerPe layer(const PeArgs& args, const LayerPeRequest& request) const;
  // Where a layer's token 0 sits, known before the table is built (so that
  // lengths can be checked first): the request's, else the kind's default.
  virtual std::size_t position_offset(const PeArgs& args, const LayerPeRequest& request) const;
  // The inspection `request` asks for, checked first (check_inspection).
  PeInspection inspect(const PeArgs& args, const PeInspectRequest& request) const;
  // Every refusal inspect() makes before computing anything, for a front end
  // to call before it opens its output: a UsageError naming the parameters
  // for no d_model where the kind needs one, a view the kind does not offer
  // (stats, similarity, audit), table dims beyond d_model, positions (after
  // position_offset) at or beyond kMaxPePosition; then the kind's own
  // (check_inspect: sizes it cannot hold).
  void check_inspection(const PeArgs& args, const PeInspectRequest& request) const;
  // The files the path parameters given in `args` name, as (parameter,
  // PATH[:TENSOR]) pairs: what an output must not replace.
  std::vector<std::pair<std::string, std::string>> inputs(const PeArgs& args) const;
  // The float columns of the table view, to check memory before it is computed.
  virtual std::size_t view_columns(const PeArgs& args, const PeInspectRequest& request) const;

 protected:
  // What inspect() computes, for a request check_inspection has passed. The
  // default: this kind has no table to inspect.
  virtual PeInspection compute_inspection(const PeArgs& args, const PeInspectRequest& request) const;
  // The kind's own refusals of a request (check_inspection's last step).
  virtual void check_inspect(const PeArgs&, const PeInspectRequest&) const {}

  // The value given for one of params(), else its default.
  const PeParam& param(std::string_view name) const;
  std::uint64_t integer(const PeArgs& args, std::string_view name) const;
  std::optional<std::uint64_t> optional_integer(const PeArgs& args, std::string_view name) const;
  double number(const PeArgs& args, std::string_view name) const;
  std::string text(const PeArgs& args, std::string_view name) const;  // choice or path; "" if none
  std::optional<std::string> optional_text(const PeArgs& args, std::string_view name) const;
  bool flag(const PeArgs& args, std::string_view name) const;

 private:
  PeKindTraits traits_;
};

// `args` with each (name, text) of `values` that `kind` takes and `args`
// lacks, read as the parameter's type: a model's config (pretrained_rope)
// under the values a caller gave.
PeArgs with_values(const PeKind& kind, PeArgs args, const std::vector<std::pair<std::string, std::string>>& values);

// Every kind, in the order front ends list them.
const std::vector<const PeKind*>& pe_kinds();
// The kind called `name`; a UsageError listing the kinds otherwise.
const PeKind& find_pe_kind(std::string_view name);

// Refuses (UsageError naming it) a parameter in `args` that none of the
// kinds in use takes (for `use`): a --convention with --pe none would
// otherwise be silently ignored. `what` names the choice ("pe", "kind").
void check_pe_args(const PeArgs& args, const std::vector<const PeKind*>& in_use, PeParam::Use use,
                   const std::string& what);

}  // namespace embedpe
