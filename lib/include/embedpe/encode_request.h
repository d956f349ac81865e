// An encode run as a front end asks for it, beyond the layer and the texts:
// the tokenization as given, training, token types, dtype and threads. The
// checks and choices every front end makes the same way are here, each in
// the order encode makes them; the front end keeps only its flags.
//
//   embedpe::ModelSource source(model, pretrained);
//   embedpe::LayerSpec layer = source.layer_spec(given, request.dtype, is_given);
//   std::optional<embedpe::Dropout> dropout = embedpe::training_dropout(request, layer);
//   std::optional<embedpe::Tokenizer> tok = source.tokenizer();
//   embedpe::Encoder encoder(std::move(tok), embedpe::encoder_spec(request, source, layer, ...));
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "embedpe/encoder.h"
#include "embedpe/input_layer.h"
#include "embedpe/layer_spec.h"
#include "embedpe/model_source.h"
#include "embedpe/text_input.h"
#include "embedpe/tokenizer.h"

namespace embedpe {

struct EncodeRequest {
  EncodeOptions tokenize;  // BOS/EOS, pad id, seq_len, pad_to_multiple_of as given
  // padding_side and truncation_side as given; unset: the directory's, else right.
  std::optional<Side> padding_side, truncation_side;
  std::vector<std::int64_t> token_type_ids;  // EncoderSpec::token_type_ids
  // No token type embeddings (no_token_type): the directory's table is
  // dropped, one given as token_type_weights is refused by build_layer.
  bool no_token_type = false;
  bool train = false;              // inverted dropout, with the table's seed
  std::optional<double> dropout;   // its p, only with train; default 0.1
  DType dtype = DType::float32;    // of the float tensors
  std::optional<std::size_t> rope_dim;
  std::optional<std::size_t> threads;  // unset: default_threads()
};

// train's dropout, or none. UsageError (naming dropout, train, seed) for
// dropout without train, and for train without the table's seed: the mask
// must be reproducible.
std::optional<Dropout> training_dropout(const EncodeRequest& request, const LayerSpec& layer);

// The threads a run takes: those asked for (UsageError naming threads for 0), else default_threads().
std::size_t request_threads(const EncodeRequest& request);

// The tokenizer given ids take (they need none: they index the table as
// given). One gives their pieces and pad id where there is one to read:
// model's; pretrained's when it can be read (else `note` is told why not,
// and there is none); the embedded model's for a generated table, whose
// rows are its pieces. A table from weights alone is read without one.
std::optional<Tokenizer> ids_tokenizer(const ModelSource& source, const LayerSpec& layer,
                                       const std::function<void(const Error&)>& note);

// The spec of the run `request` describes, for `tokenizer` (null: ids
// without one, whose pad id is then the directory's when not given), the
// texts of `text`, the tensors `emit` and `dropout` (training_dropout).
// `is_given` names the layer parameters given: a token type table given is
// kept under no_token_type (build_layer refuses the pair).
EncoderSpec encoder_spec(const EncodeRequest& request, const ModelSource& source, const LayerSpec& layer,
                         const Tokenizer* tokenizer, const TextSpec& text, std::vector<TensorName> emit,
                         std::size_t threads, std::optional<Dropout> dropout, const IsGiven& is_given);

// Given ids (text.ids) are a front end's values: one the encoder's table has
// no row for is a UsageError naming it ("ids 2: id X is outside ..."), as a
// malformed one is. The tokenizer's vocabulary instead for tokenize and decode.
void check_given_ids(const Encoder& encoder, const std::vector<std::string>& ids, const std::string& label);
void check_given_ids(const Tokenizer& tokenizer, const std::vector<std::string>& ids, const std::string& label);

}  // namespace embedpe
