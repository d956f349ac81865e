// What an encode run's front end asks for, checked and turned into the
// Encoder's spec (encode_request.h).
#include "embedpe/encode_request.h"

#include <limits>
#include <utility>

#include "embedpe/error.h"
#include "embedpe/id_rows.h"
#include "embedpe/pretrained_model.h"
#include "embedpe/pretrained_tokenizer.h"
#include "embedpe/threads.h"

namespace embedpe {

std::optional<Dropout> training_dropout(const EncodeRequest& request, const LayerSpec& layer) {
  if (request.dropout && !request.train) {
    throw UsageError("dropout only applies with train (inference never drops)", {"dropout", "train"});
  }
  if (!request.train) return std::nullopt;
  if (!layer.table.seed) {
    throw UsageError("train needs an explicit seed, so that the dropout mask can be reproduced", {"train", "seed"});
  }
  return Dropout{request.dropout.value_or(0.1), *layer.table.seed};
}

std::size_t request_threads(const EncodeRequest& request) {
  const std::size_t threads = request.threads ? *request.threads : default_threads();
  if (threads == 0) throw UsageError("threads must be at least 1", {"threads"});
  return threads;
}

std::optional<Tokenizer> ids_tokenizer(const ModelSource& source, const LayerSpec& layer,
                                       const std::function<void(const Error&)>& note) {
  if (!source.model_path().empty()) return source.tokenizer();
  if (!source.pretrained_path().empty()) {
    try {
      return source.pretrained_tokenizer();
    } catch (const Error& e) {
      if (layer.table.weights.empty()) throw;
      note(e);
      return std::nullopt;
    }
  }
  if (layer.table.weights.empty()) return Tokenizer::default_model();
  return std::nullopt;
}

namespace {

// The tokenization: the directory's sides where none is given; without a
// tokenizer, right, and the directory's own pad id when none is given.
EncodeOptions request_options(const EncodeRequest& request, const ModelSource& source, const Tokenizer* tokenizer) {
  if (tokenizer) {
    return pretrained_encode_options(*tokenizer, request.tokenize, request.padding_side, request.truncation_side);
  }
  EncodeOptions options = request.tokenize;
  options.padding_side = request.padding_side.value_or(Side::right);
  options.truncation_side = request.truncation_side.value_or(Side::right);
  if (!options.pad_id && !source.pretrained_path().empty()) {
    const std::optional<std::int64_t> pad = source.pretrained().pad_token_id;
    if (pad && *pad >= 0 && *pad <= std::numeric_limits<int>::max()) options.pad_id = static_cast<int>(*pad);
  }
  return options;
}

}  // namespace

EncoderSpec encoder_spec(const EncodeRequest& request, const ModelSource& source, const LayerSpec& layer,
                         const Tokenizer* tokenizer, const TextSpec& text, std::vector<TensorName> emit,
                         std::size_t threads, std::optional<Dropout> dropout, const IsGiven& is_given) {
  EncoderSpec spec{.tokenize = request_options(request, source, tokenizer),
                   .layer = layer,
                   .emit = std::move(emit),
                   .dtype = request.dtype,
                   .rope_dim = request.rope_dim,
                   .threads = threads,
                   .max_line_bytes = text.reading.max_line_bytes};
  spec.ids_input = text.ids_input();
  spec.text_pairs = text.pairs;
  spec.token_type_ids = request.token_type_ids;
  spec.layer.token_types = !request.no_token_type;
  // no_token_type drops the directory's token type table, not one given (build_layer refuses that).
  if (request.no_token_type && !source.pretrained_path().empty() && !is_given("token_type_weights")) {
    spec.layer.token_type_weights.clear();
  }
  spec.layer.dropout = dropout;
  return spec;
}

namespace {

// Each of `ids` parsed and checked by `check`, named "LABEL N"; an error is a UsageError.
template <class Check>
void check_each(const std::vector<std::string>& ids, const std::string& label, const Check& check) {
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const std::string origin = label + " " + std::to_string(i + 1);
    try {
      check(parse_id_text(ids[i], origin), origin);
    } catch (const Error& e) {
      throw UsageError(e.what());
    }
  }
}

}  // namespace

void check_given_ids(const Encoder& encoder, const std::vector<std::string>& ids, const std::string& label) {
  check_each(ids, label, [&encoder](const std::vector<int>& v, const std::string& o) { encoder.check_ids(v, o); });
}

void check_given_ids(const Tokenizer& tokenizer, const std::vector<std::string>& ids, const std::string& label) {
  check_each(ids, label, [&tokenizer](const std::vector<int>& v, const std::string& o) { tokenizer.check_ids(v, o); });
}

}  // namespace embedpe
