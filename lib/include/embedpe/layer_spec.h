// An input layer described by plain values, and built whole: which
// embedding table (generated N(0, 1) rows, or a weight file), which
// positional encoding (a kind of the registry, with its parameters),
// offsets, LayerNorm, dropout. The built Layer owns every part.
//
//   embedpe::LayerSpec spec;
//   spec.table.d_model = 256;
//   spec.max_len = 1024;
//   embedpe::Layer layer = embedpe::build_layer(spec, tokenizer);
//   auto out = layer.input_layer().forward(batch.input_ids, batch.attention_mask);
//   // out.output (batch, seq_len, 256); layer.config() says how it was made
//
// Errors name the spec's fields as parameters (d_model, pe_weights,
// layernorm), never a front end's flags.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "embedpe/embedding.h"
#include "embedpe/input_layer.h"
#include "embedpe/pe_kind.h"
#include "embedpe/positional_encoding.h"
#include "embedpe/projection.h"
#include "embedpe/tokenizer.h"

namespace embedpe {

struct TableSpec {
  std::optional<std::size_t> d_model;       // default 512, or the weights' width
  std::optional<std::uint64_t> seed;        // of the generated rows, default 0; refused with weights
  std::optional<Init> init;                 // of the generated rows (embedding.h); default normal, N(0, 1)
  std::optional<double> init_range;         // init uniform: U(-R, R)
  std::string weights;                      // PATH[:TENSOR]; empty: generated rows
  std::optional<std::int64_t> padding_idx;  // this row reads as zeros (nn.Embedding padding_idx)
  // Factorized embeddings (projection.h): generated (vocab, E) rows and a
  // generated projection to d_model. Needs no weights.
  std::optional<std::size_t> factorize;
  std::string projection;       // PATH[:TENSOR] of the weights' projection; default: found in weights
  bool use_projection = true;   // false: leave a projection found in weights out
};

// The table's parts: the (vocab, E) rows, and the projection to d_model when
// the table is factorized (then d_model is projection->out).
struct FactorizedTable {
  std::unique_ptr<EmbeddingTable> table;
  std::optional<Projection> projection;
};

// Which position each token takes (l: its column):
//   automatic    l, or from the attention mask with left padding (positions_from_mask)
//   column       l, whatever the padding (HF's position_ids buffer: BART, ALBERT, Marian)
//   mask         the count of real tokens before it (attention_mask.cumsum(-1) - 1)
//   padding_idx  the count of tokens before it whose id is not table.padding_idx, and
//                tokens of that id at pad_position (HF create_position_ids_from_input_ids:
//                RoBERTa, XLM-R, M2M100)
// position_offset is added to each (not to pad_position).
enum class PositionIds { automatic, column, mask, padding_idx };
const char* position_ids_name(PositionIds p);  // "auto", "column", "mask", "padding-idx"

struct LayerSpec {
  TableSpec table;
  // Positions in a table that max_len sizes (sinusoidal); default
  // kDefaultMaxLen. Given for a kind whose table is not sized by it, it is refused.
  std::optional<std::size_t> max_len;
  static constexpr std::size_t kDefaultMaxLen = 5000;
  Scale scale;
  const PeKind* pe = pe_kinds().front();  // sinusoidal
  PeArgs pe_args;                          // the kind's parameters (convention, rope_theta, ...)
  std::string pe_weights;                  // learned: PATH[:TENSOR] (default: found in weights)
  std::optional<std::size_t> position_offset;  // default: the kind's (fairseq: padding_idx + 1)
  std::optional<std::size_t> pad_position;
  bool positions_from_mask = false;  // left padding: InputLayerOptions::positions_from_mask
  PositionIds position_ids = PositionIds::automatic;
  // BERT's token type embeddings, found in table.weights under the usual
  // names (kTokenTypeNames): added (type 0 unless the batch says) when
  // present; false leaves them out.
  bool token_types = true;
  std::string token_type_weights;  // PATH[:TENSOR] of the token type table; default: found in table.weights
  bool layernorm = false;
  double layernorm_eps = 1e-5;
  std::string layernorm_weight;  // PATH[:TENSOR]; default: found in weights, else 1
  std::string layernorm_bias;    // PATH[:TENSOR]; default: found in weights, else 0
  bool mask_output = false;            // each token's output × its attention mask (DeBERTa-v2)
  std::optional<Dropout> dropout;      // training mode only
  bool want_token_embeddings = false;  // forward() also returns E[ids] × scale
  // Where a factorized table's projection applies (projection.h); unset:
  // first. Set, it needs a projection (refused without one, not ignored).
  std::optional<ProjectionOrder> projection_order;
};

// The embedding table: `spec.weights` (checked against d_model and, given a
// tokenizer, its vocabulary), else generated rows for the tokenizer's
// vocabulary (a tokenizer is then required); a factorized one (factorize,
// or a projection in the weights) is seen through its projection.
std::unique_ptr<EmbeddingTable> open_table(const TableSpec& spec, const Tokenizer* tokenizer);
// The same, with a factorized table's projection kept apart.
FactorizedTable open_factorized_table(const TableSpec& spec, const Tokenizer* tokenizer);

// Token l's position: l + this. Known before any file is read.
std::size_t position_offset(const LayerSpec& spec);

// Refuses (UsageError) a fixed seq_len, or without one a pad_to_multiple_of
// (every sequence is padded to at least that), longer than the positions a
// table sized by max_len has left after position_offset, before anything is
// read or tokenized. Tables whose length comes from a file are checked when
// built (InputLayer::check_positions).
void check_seq_len(const LayerSpec& spec, std::optional<std::size_t> seq_len,
                   std::optional<std::size_t> pad_to_multiple_of = std::nullopt);

// A built input layer and the parts it computes with.
class Layer {
 public:
  const EmbeddingTable& table() const { return *table_; }      // (vocab, d_model); (vocab, E) projected last
  const PositionTable* positions() const { return pe_.get(); }  // (max_len, d_model); null: nothing added
  const InputLayer& input_layer() const { return *layer_; }
  std::size_t d_model() const { return d_model_; }  // the output's width
  std::size_t position_offset() const { return position_offset_; }
  // The token type table in use (BERT's token_type_embeddings), or null.
  const EmbeddingTable* token_types() const { return token_types_.get(); }
  // What a run's config records: d_model, embedding, seed, padding_idx,
  // scale, scale_factor, positional_encoding, layernorm.
  const nlohmann::ordered_json& config() const { return config_; }

 private:
  friend Layer build_layer(const LayerSpec& spec, const Tokenizer* tokenizer);
  Layer() = default;

  std::unique_ptr<EmbeddingTable> table_;
  std::unique_ptr<PositionTable> pe_;
  std::unique_ptr<EmbeddingTable> token_types_;
  std::unique_ptr<Projection> projection_;  // applied last (ProjectionOrder::albert)
  std::unique_ptr<InputLayer> layer_;       // refers to *table_, *pe_, *token_types_ and *projection_
  std::size_t d_model_ = 0;
  std::size_t position_offset_ = 0;
  nlohmann::ordered_json config_;
};

// The files the spec names, as (parameter, PATH[:TENSOR]) pairs: weights,
// projection, pe_weights, layernorm_weight, layernorm_bias and the PE kind's
// (PeKind::inputs); none is empty. What an output must not replace.
std::vector<std::pair<std::string, std::string>> layer_inputs(const LayerSpec& spec);

// A model's spec (PretrainedModel::spec) with each part a front end was
// given replacing the model's: `given` holds the values, `is_given(NAME)`
// says whether parameter NAME (d_model, seed, init, init_range, weights,
// padding_idx, factorize, projection, no_projection; and for a layer
// projection_order, scale, pe, max_len, pe_weights, position_offset,
// pad_position, position_ids, token_type_weights, layernorm, layernorm_eps,
// layernorm_weight, layernorm_bias, mask_output) was. Another pe drops the
// model's PE parameters, table and max_len (they were its kind's); every PE
// parameter given is set.
using IsGiven = std::function<bool(const char* parameter)>;
TableSpec override_table_spec(TableSpec model, const TableSpec& given, const IsGiven& is_given);
LayerSpec override_layer_spec(LayerSpec model, const LayerSpec& given, const IsGiven& is_given);

// The position and LayerNorm tensors that spec.table.weights holds under
// the usual names (weights.h) and the spec leaves unused, each with the
// parameter that would use it ("pe learned", "layernorm"): a checkpoint
// whose input layer is only partly built is easy to miss.
struct UnusedLayerTensor {
  std::string name;
  std::string use;  // "pe learned" or "layernorm"
};
std::vector<UnusedLayerTensor> unused_layer_tensors(const LayerSpec& spec);

// The SHA-256 of what the spec reads of each weight file (weights,
// projection, pe_weights, layernorm_weight and _bias), {path: hex}, or null
// when it reads none: of a .safetensors file whose tensors the spec all
// names (PATH:TENSOR, as a --pretrained directory's are), its header and
// those tensors' bytes in name order, not the rest of the checkpoint; of any
// other file, the whole file; of a split GGUF, each part under its own
// path, whichever part the spec names. Hashed 4 MiB at a time, the pages given back
// as it goes, so memory stays bounded. A run whose pieces are joined later
// (a resumed output_dir, the shards of a merge) records it, so that a file
// changed between its pieces is refused; others do not pay for it.
nlohmann::ordered_json weight_file_hashes(const LayerSpec& spec);

// Reads the files the spec names and builds the layer. A kind that acts
// inside attention (RoPE, ALiBi, T5) says where it goes before any file is read.
Layer build_layer(const LayerSpec& spec, const Tokenizer& tokenizer);
// With no tokenizer (null): a table from weights, whatever its rows (ids
// given as they are index it); a generated table is then refused.
Layer build_layer(const LayerSpec& spec, const Tokenizer* tokenizer);

}  // namespace embedpe
