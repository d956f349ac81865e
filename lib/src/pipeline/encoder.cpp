#include "embedpe/encoder.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <new>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "batch_pipeline.h"
#include "embedpe/error.h"
#include "embedpe/id_rows.h"
#include "embedpe/message.h"
#include "embedpe/output_file.h"
#include "embedpe/version.h"
#include "memory.h"
#include "parallel.h"

namespace embedpe {
namespace {

constexpr std::pair<const char*, TensorName> kTensorNames[] = {
    {"input_ids", TensorName::input_ids},
    {"attention_mask", TensorName::attention_mask},
    {"token_type_ids", TensorName::token_type_ids},  // not in "all": only BERT-style models have them
    {"token_embeddings", TensorName::token_embeddings},
    {"positional_encoding", TensorName::positional_encoding},
    {"output", TensorName::output},
    {"rope_cos", TensorName::rope_cos},  // not in "all": RoPE is never added to the input
    {"rope_sin", TensorName::rope_sin},
};

bool contains(const std::vector<TensorName>& emit, std::initializer_list<TensorName> names) {
  return std::find_first_of(emit.begin(), emit.end(), names.begin(), names.end()) != emit.end();
}

LayerSpec with_emit(LayerSpec layer, const EncoderSpec& spec) {
  layer.want_token_embeddings = contains(spec.emit, {TensorName::token_embeddings});
  // Left padding moves tokens off columns 0..n-1; their positions follow the mask.
  layer.positions_from_mask = spec.tokenize.padding_side == Side::left;
  return layer;
}

}  // namespace

const char* name_of(TensorName t) {
  for (const auto& [name, value] : kTensorNames) {
    if (value == t) return name;
  }
  return "?";
}

namespace {

bool in_all(TensorName t) {
  return t != TensorName::rope_cos && t != TensorName::rope_sin && t != TensorName::token_type_ids;
}

}  // namespace

std::vector<std::string> tensor_words() {
  std::vector<std::string> words;
  for (const auto& [name, t] : kTensorNames) {
    if (in_all(t)) words.emplace_back(name);
  }
  words.emplace_back("all");
  for (TensorName t : {TensorName::rope_cos, TensorName::rope_sin, TensorName::token_type_ids}) {
    words.emplace_back(name_of(t));
  }
  return words;
}

std::vector<TensorName> select_tensors(const std::vector<std::string>& names, const SinkFormat* format) {
  const bool one_tensor = format && format->traits.one_tensor;
  if (names.empty()) {
    if (one_tensor) return {TensorName::output};
    return {TensorName::input_ids, TensorName::attention_mask, TensorName::output};
  }
  std::vector<TensorName> out;
  for (const auto& name : names) {
    if (name == "all") {
      for (const auto& entry : kTensorNames) {
        if (in_all(entry.second)) out.push_back(entry.second);
      }
      continue;
    }
    auto it = std::find_if(std::begin(kTensorNames), std::end(kTensorNames),
                           [&](const auto& entry) { return name == entry.first; });
    if (it == std::end(kTensorNames)) {
      std::string words;
      for (const std::string& w : tensor_words()) words += (words.empty() ? "" : ", ") + w;
      throw UsageError("emit: unknown tensor '" + name + "'; choose from " + words,
                       {"emit"});
    }
    out.push_back(it->second);
  }
  // Keep the canonical order and drop repeats, so outputs do not depend on
  // how the list was spelled.
  std::set<TensorName> unique(out.begin(), out.end());
  out.assign(unique.begin(), unique.end());
  if (one_tensor && out.size() != 1) {
    throw UsageError("." + std::string(format->name) + " holds one tensor but emit names " +
                         std::to_string(out.size()) + "; use format npz for several",
                     {"emit", "format"});
  }
  return out;
}

nlohmann::ordered_json tokenization_config(const Tokenizer& tokenizer, const EncodeOptions& t, bool ids_input) {
  return tokenization_config(&tokenizer, t, ids_input);
}

nlohmann::ordered_json tokenization_config(const Tokenizer* tokenizer, const EncodeOptions& t, bool ids_input) {
  using json = nlohmann::ordered_json;
  const ModelInfo info = tokenizer ? tokenizer->info() : ModelInfo{};
  const bool bos = tokenizer && info.adds_bos && info.bos_id >= 0, eos = tokenizer && info.adds_eos && info.eos_id >= 0;
  return {
      {"input", ids_input ? "ids" : "text"},
      // What was done, not what was asked: a model without BOS gets none, ids get none.
      {"add_bos", !ids_input && t.add_bos && bos},
      {"add_eos", !ids_input && t.add_eos && eos},
      {"pad_id", tokenizer ? tokenizer->pad_id(t) : t.pad_id.value_or(0)},
      {"seq_len", t.seq_len ? json(*t.seq_len) : json()},
      {"padding_side", side_name(t.padding_side)},
      {"truncation_side", side_name(t.truncation_side)},
      {"pad_to_multiple_of", t.pad_to_multiple_of ? json(*t.pad_to_multiple_of) : json()},
      {"position_ids", t.padding_side == Side::left ? "from attention_mask" : "arange"},
  };
}

void throw_at_origin(const TextError& e, const std::vector<std::string>& origins) {
  if (e.index() < origins.size()) throw e.named(origins[e.index()]);
  throw e;
}

// Tokenizing costs memory in proportion to the text: blame the longest
// line (not seq_len, which only truncates afterwards, nor d_model).
[[noreturn]] void out_of_memory_tokenizing(const std::vector<std::string>& texts,
                                           const std::vector<std::string>& origins, std::size_t max_line_bytes) {
  const auto longest = std::max_element(texts.begin(), texts.end(),
                                        [](const auto& a, const auto& b) { return a.size() < b.size(); });
  const std::size_t i = static_cast<std::size_t>(longest - texts.begin());
  const std::string head = "out of memory tokenizing ";
  const std::string origin = i < origins.size() ? origins[i] : std::string("the input");
  throw Error(head + origin + " (" + std::to_string(longest == texts.end() ? 0 : longest->size()) +
                  " bytes); split long lines, or refuse them with a lower max_line_bytes (now " +
                  std::to_string(max_line_bytes) + ")",
              {"max_line_bytes"}, {{head.size(), origin.size()}});
}

namespace {

void check_id_rows(std::span<const int> ids, std::int64_t rows, const std::string& rows_of, const std::string& origin) {
  for (int id : ids) {
    if (id < 0 || id >= rows) {
      throw Error(origin + ": id " + std::to_string(id) + " is outside " + rows_of + " (0 to " +
                      std::to_string(rows - 1) + ")",
                  {}, {{0, origin.size()}});
    }
  }
}

std::string vocabulary_of(const Tokenizer& tokenizer) { return "the vocabulary of model " + tokenizer.info().source; }

// With pairs, token types are those of the two segments.
void check_pair_types(const EncoderSpec& spec) {
  if (!spec.token_type_ids.empty() && spec.token_type_ids.size() != 2) {
    throw UsageError("with pairs, token_type_ids gives the types of the two segments (two values), not " +
                         std::to_string(spec.token_type_ids.size()),
                     {"token_type_ids"});
  }
}

}  // namespace

Batch batch_from_id_lines(const Tokenizer& tokenizer, const std::vector<std::string>& lines,
                          const std::vector<std::string>& origins, const EncodeOptions& options) {
  return batch_from_id_lines(&tokenizer, tokenizer.info().vocab_size, vocabulary_of(tokenizer), lines, origins,
                             options);
}

Batch batch_from_id_lines(const Tokenizer* tokenizer, std::int64_t rows, const std::string& rows_of,
                          const std::vector<std::string>& lines, const std::vector<std::string>& origins,
                          const EncodeOptions& options) {
  const int pad = tokenizer ? tokenizer->pad_id(options) : options.pad_id.value_or(0);
  if (pad < 0 || pad >= rows) {
    throw UsageError("pad_id " + std::to_string(pad) + " is outside " + rows_of + " (0 to " +
                         std::to_string(rows - 1) + ")",
                     {"pad_id"});
  }
  check_padding(options);
  const bool left = options.padding_side == Side::left;
  std::vector<IdRecord> records(lines.size());
  bool types = false;
  std::size_t longest = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string origin = i < origins.size() ? origins[i] : "line " + std::to_string(i + 1);
    IdRecord& r = records[i];
    r = parse_id_line(lines[i], origin);
    check_id_rows(r.ids, rows, rows_of, origin);
    if (r.padded && r.padding_left != left) {
      const char* given = r.padding_left ? "left" : "right";
      throw Error(origin + ": attention_mask pads on the " + given + ", and this run pads on the " +
                      side_name(options.padding_side) + ": give padding_side " + given,
                  {"padding_side"}, {{0, origin.size()}});
    }
    types = types || r.token_type_ids.has_value();
    std::size_t keep = r.ids.size();
    if (options.seq_len) keep = std::min(keep, *options.seq_len);
    longest = std::max(longest, keep);
  }
  std::size_t seq_len = options.seq_len.value_or(longest);
  if (const auto m = options.pad_to_multiple_of; !options.seq_len && m && seq_len % *m != 0) {
    seq_len = (seq_len / *m + 1) * *m;
  }
  const std::size_t n = records.size();
  if (seq_len > longest) check_padded_size(n, seq_len, options);
  Batch batch;
  batch.pad_id = pad;
  batch.padding_side = options.padding_side;
  batch.input_ids = xt::xtensor<std::int64_t, 2>::from_shape({n, seq_len});
  batch.attention_mask = xt::xtensor<std::int64_t, 2>::from_shape({n, seq_len});
  batch.input_ids.fill(pad);
  batch.attention_mask.fill(0);
  if (types) batch.token_type_ids = xt::zeros<std::int64_t>(batch.input_ids.shape());
  batch.pieces.resize(n);
  batch.untruncated_lengths.resize(n);
  const std::int64_t named = tokenizer ? tokenizer->info().vocab_size : 0;
  for (std::size_t b = 0; b < n; ++b) {
    const IdRecord& r = records[b];
    batch.untruncated_lengths[b] = r.ids.size();
    const std::size_t keep = std::min(r.ids.size(), seq_len);
    // Truncation cuts from the end of the ids, or their start.
    const std::size_t from = options.truncation_side == Side::left ? r.ids.size() - keep : 0;
    const std::size_t start = left ? seq_len - keep : 0;
    batch.pieces[b].reserve(keep);
    for (std::size_t l = 0; l < keep; ++l) {
      const int id = r.ids[from + l];
      batch.input_ids(b, start + l) = id;
      batch.attention_mask(b, start + l) = 1;
      if (r.token_type_ids) batch.token_type_ids(b, start + l) = (*r.token_type_ids)[from + l];
      batch.pieces[b].emplace_back(id < named ? tokenizer->id_to_piece(id) : std::string_view());
    }
  }
  return batch;
}

Encoder::Encoder(std::optional<Tokenizer> tokenizer, EncoderSpec spec)
    : tokenizer_(std::move(tokenizer)),
      spec_(std::move(spec)),
      // Ids index the table: a tokenizer's vocabulary sizes only a generated one.
      layer_(build_layer(with_emit(spec_.layer, spec_),
                         spec_.ids_input && !spec_.layer.table.weights.empty() ? nullptr : this->tokenizer())),
      want_layer_(emits({TensorName::token_embeddings, TensorName::positional_encoding, TensorName::output})),
      want_rope_(emits({TensorName::rope_cos, TensorName::rope_sin})) {
  using json = nlohmann::ordered_json;
  if (!tokenizer_ && !spec_.ids_input) {
    throw UsageError("texts need a tokenizer to give their ids: give model, or ids", {"model", "ids"});
  }
  id_rows_ = spec_.layer.table.weights.empty() ? vocabulary_of(*tokenizer_)
                                               : "the embedding table " + spec_.layer.table.weights;
  // A parameter of another kind than the one in use (or RoPE's, for rope_cos/rope_sin) would be ignored.
  check_pe_args(spec_.layer.pe_args, {spec_.layer.pe, want_rope_ ? &find_pe_kind("rope") : nullptr},
                PeParam::Use::layer, "pe");
  if (!spec_.token_type_ids.empty()) {
    if (!spec_.text_pairs.empty()) check_pair_types(spec_);
    if (!layer_.token_types() && !emits({TensorName::token_type_ids})) {
      if (!spec_.layer.token_types) {
        throw UsageError("token_type_ids and no_token_type contradict each other: drop one",
                         {"token_type_ids", "no_token_type"});
      }
      throw UsageError("token_type_ids would be ignored: weights has no token type table "
                       "(embeddings.token_type_embeddings.weight) and emit does not ask for the tensor",
                       {"token_type_ids", "weights", "emit"});
    }
  }
  json rope_config;
  if (want_rope_) {
    RopeOptions o = rope_options(spec_.layer.pe_args);
    o.dim = spec_.rope_dim.value_or(layer_.d_model());
    if (o.dim > layer_.d_model()) {
      throw UsageError("rope_dim " + std::to_string(o.dim) + " is larger than d_model " +
                           std::to_string(layer_.d_model()) + ": the rotary dimension is a head's, at most d_model",
                       {"rope_dim", "d_model"});
    }
    o.seq_len = layer_.position_offset() + spec_.tokenize.seq_len.value_or(0);
    rope_ = rope_frequencies(o);
    rope_config = to_json(o, rope_);
  }
  config_ = {
      {"embedpe_version", version()},
      // Ids given with no tokenizer: the record says there is none, never another model.
      {"model", tokenizer_ ? json(model_config(*tokenizer_)) : json()},
  };
  const json tokenization = tokenization_config(this->tokenizer(), spec_.tokenize, spec_.ids_input);
  for (const auto& [key, value] : tokenization.items()) config_[key] = value;
  for (const auto& [key, value] : layer_.config().items()) config_[key] = value;
  if (!rope_config.is_null()) config_["rope"] = rope_config;
  config_["training"] = spec_.layer.dropout.has_value();
  config_["dropout"] = spec_.layer.dropout ? json(spec_.layer.dropout->p) : json();
  // Only runs with pairs or token types say so: other configs (and their --resume) are unchanged.
  if (!spec_.text_pairs.empty()) config_["pairs"] = kPairsConfig;
  if (!spec_.token_type_ids.empty()) config_["token_type_ids"] = spec_.token_type_ids;
  config_["dtype"] = dtype_name(spec_.dtype);
  json emit = json::array();
  for (TensorName n : spec_.emit) emit.push_back(name_of(n));
  config_["emit"] = emit;
}

nlohmann::ordered_json Encoder::joinable_config() const {
  nlohmann::ordered_json config = config_;
  if (nlohmann::ordered_json hashes = weight_file_hashes(spec_.layer); !hashes.is_null()) {
    config[kWeightFilesKey] = std::move(hashes);
  }
  return config;
}

bool Encoder::emits(std::initializer_list<TensorName> names) const { return contains(spec_.emit, names); }

void Encoder::check_ids(std::span<const int> ids, const std::string& origin) const {
  check_id_rows(ids, static_cast<std::int64_t>(layer_.table().vocab_size()), id_rows_, origin);
}

// Counts everything a batch holds: the texts, ids, mask and pieces, the
// float tensors (token_embeddings too when emitted, a copy in the output
// dtype), the PE rows kept by the layer and their copy, and the JSON text of
// the pieces.
void Encoder::check_memory(std::size_t rows, std::size_t text_bytes, bool streaming) const {
  const EncodeOptions& t = spec_.tokenize;
  const std::size_t d = layer_.d_model();
  const std::size_t specials = std::size_t(t.add_bos) + std::size_t(t.add_eos);
  // Without seq_len a row is at least BOS/EOS and a token, padded up to pad_to_multiple_of.
  const std::size_t m = t.pad_to_multiple_of.value_or(1);
  const std::size_t seq = t.seq_len.value_or(((specials + 1) + m - 1) / m * m);
  // Streaming keeps two batches: one written while the next is computed.
  const std::size_t slots = streaming ? 2 : 1;
  const std::string what = "encoding " + std::to_string(rows) + (rows == 1 ? " line" : " lines") + " of " +
                           (t.seq_len ? "" : "at least ") + std::to_string(seq) + " tokens at d_model " +
                           std::to_string(d);
  const std::size_t tokens = checked_product({rows, seq}, what);
  // Pieces are kept for real tokens only: at most a byte each, plus BOS/EOS.
  const std::size_t pieces = std::min(tokens, checked_sum({text_bytes, checked_product({rows, specials}, what)}, what));
  const bool want_tok = emits({TensorName::token_embeddings});
  std::size_t floats_per_token = want_layer_ ? (want_tok ? 2 : 1) : 0;
  if (want_layer_ && spec_.dtype != DType::float32) floats_per_token *= 2;  // the converted copy
  const std::size_t per_slot = checked_sum(
      {checked_product({tokens, 2 * sizeof(std::int64_t)}, what),  // ids, mask
       checked_product({pieces, 40}, what),                         // piece strings
       checked_product({tokens, d, sizeof(float), floats_per_token}, what),
       want_layer_ ? checked_product({seq, d, sizeof(float), 2}, what) : 0,  // PE rows + positional_encoding
       want_rope_ ? checked_product({seq, spec_.rope_dim.value_or(d), sizeof(float), 2}, what) : 0},
      what);
  std::vector<std::string> parameters{"d_model"};
  if (t.seq_len) parameters.push_back("seq_len");
  if (!t.seq_len && m > 1) parameters.push_back("pad_to_multiple_of");
  if (streaming) parameters.push_back("batch_size");
  check_allocation(checked_sum({checked_product({per_slot, slots}, what), text_bytes}, what), what,
                   std::string(t.seq_len ? "lower seq_len or d_model"
                               : m > 1   ? "lower pad_to_multiple_of or d_model"
                                         : "lower d_model") +
                       (streaming ? ", or a smaller batch_size" : ", or encode fewer lines at a time"),
                   std::move(parameters), /*what_is_text=*/true);
}

void Encoder::compute(const std::vector<std::string>& texts, const std::vector<std::string>& origins,
                      std::size_t first_row, EncodedBatch& out, std::size_t threads,
                      const std::vector<std::string>* text_pairs) const {
  if (threads == 0) threads = spec_.threads;
  try {
    if (spec_.ids_input) {
      // Checked against the table's rows, naming the line.
      out.batch = batch_from_id_lines(tokenizer(), static_cast<std::int64_t>(layer_.table().vocab_size()), id_rows_,
                                      texts, origins, spec_.tokenize);
      if (out.batch.token_type_ids.size() != 0 && !spec_.token_type_ids.empty()) {
        throw UsageError("token_type_ids is given, and the records give their own types: drop one",
                         {"token_type_ids"});
      }
      // Types a layer cannot add are refused, as the parameter is, never dropped in silence.
      if (out.batch.token_type_ids.size() != 0 && !layer_.token_types() && !emits({TensorName::token_type_ids})) {
        const std::string origin = origins.empty() ? std::string("the input") : origins.front();
        Message m;
        m << Verbatim{origin.substr(0, origin.rfind(':'))}
          << ": the records' token_type_ids would be ignored: the layer has no token type table "
             "(embeddings.token_type_embeddings.weight) and emit does not ask for the tensor";
        throw m.usage_error({"emit"});
      }
    } else if (text_pairs) {
      if (text_pairs->size() != texts.size()) {
        throw UsageError("pairs need one second text per text: " + std::to_string(text_pairs->size()) + " for " +
                             std::to_string(texts.size()),
                         {"text_pair"});
      }
      out.batch = tokenizer_->encode_pair_batch(texts, *text_pairs, spec_.tokenize, threads);
    } else if (!spec_.text_pairs.empty()) {
      if (first_row + texts.size() > spec_.text_pairs.size()) {
        throw UsageError("pairs need one second text per text: " + std::to_string(spec_.text_pairs.size()) +
                             " for " + std::to_string(first_row + texts.size()),
                         {"text_pair"});
      }
      const auto from = spec_.text_pairs.begin() + static_cast<std::ptrdiff_t>(first_row);
      out.batch = tokenizer_->encode_pair_batch(texts, {from, from + static_cast<std::ptrdiff_t>(texts.size())},
                                               spec_.tokenize, threads);
    } else {
      out.batch = tokenizer_->encode_batch(texts, spec_.tokenize, threads);
    }
  } catch (const std::bad_alloc&) {
    out_of_memory_tokenizing(texts, origins, spec_.max_line_bytes);
  } catch (const TextError& e) {
    throw_at_origin(e, origins);
  }
  set_token_types(out.batch, first_row);
  // Before any tensor is made, whether or not the layer's are emitted.
  std::vector<std::size_t> lengths(out.batch.pieces.size());
  for (std::size_t r = 0; r < lengths.size(); ++r) lengths[r] = out.batch.pieces[r].size();
  layer_.input_layer().check_positions(out.batch.seq_len(), lengths, origins);
  if (want_layer_) {
    layer_.input_layer().forward_into(out.layer, out.batch.input_ids, out.batch.attention_mask, threads, first_row,
                                      &out.batch.token_type_ids);
  }
  if (want_rope_) std::tie(out.rope_cos, out.rope_sin) = rope_tables(rope_, layer_.position_offset(), out.batch.seq_len());
}

void Encoder::set_token_types(Batch& batch, std::size_t first_row) const {
  const std::vector<std::int64_t>& types = spec_.token_type_ids;
  const bool pairs = batch.token_type_ids.size() != 0;  // segments 0 and 1 from encode_pair_batch
  if (!pairs) {
    if (types.empty() && !emits({TensorName::token_type_ids})) return;  // none: the layer takes type 0
    batch.token_type_ids = xt::zeros<std::int64_t>(batch.input_ids.shape());
  }
  if (types.empty()) return;
  if (!pairs && types.size() > 1 && first_row + batch.size() > types.size()) {
    throw UsageError("token_type_ids gives " + std::to_string(types.size()) +
                         " types, one per sequence, but there are more sequences; give one for each, or one for all",
                     {"token_type_ids"});
  }
  for (std::size_t b = 0; b < batch.size(); ++b) {
    const std::size_t first = batch.first_token(b), end = first + batch.pieces[b].size();
    for (std::size_t l = first; l < end; ++l) {
      std::int64_t& t = batch.token_type_ids(b, l);
      // A pretrained tokenizer's own segments beyond 0 and 1 (XLNet's <cls> is 2) are kept.
      if (pairs && static_cast<std::size_t>(t) >= types.size()) continue;
      t = pairs ? types[static_cast<std::size_t>(t)] : types.size() == 1 ? types[0] : types.at(first_row + b);
    }
  }
}

std::vector<TensorRef> Encoder::tensors(const EncodedBatch& b, std::vector<TensorBuffer>& keep) const {
  std::vector<TensorRef> tensors;
  keep.assign(spec_.emit.size(), {});
  for (std::size_t k = 0; k < spec_.emit.size(); ++k) {
    const TensorName t = spec_.emit[k];
    switch (t) {
      case TensorName::input_ids: tensors.push_back(tensor_ref(name_of(t), b.batch.input_ids)); break;
      case TensorName::attention_mask: tensors.push_back(tensor_ref(name_of(t), b.batch.attention_mask)); break;
      case TensorName::token_type_ids: tensors.push_back(tensor_ref(name_of(t), b.batch.token_type_ids)); break;
      case TensorName::token_embeddings: tensors.push_back(tensor_ref(name_of(t), b.layer.token_embeddings)); break;
      case TensorName::positional_encoding: tensors.push_back(tensor_ref(name_of(t), b.layer.positional_encoding)); break;
      case TensorName::output: tensors.push_back(tensor_ref(name_of(t), b.layer.output)); break;
      case TensorName::rope_cos: tensors.push_back(tensor_ref(name_of(t), b.rope_cos)); break;
      case TensorName::rope_sin: tensors.push_back(tensor_ref(name_of(t), b.rope_sin)); break;
    }
    // Float tensors in the output dtype; ids and mask stay int64.
    if (tensors.back().dtype == DType::float32) tensors.back() = convert(tensors.back(), spec_.dtype, keep[k]);
  }
  return tensors;
}

// A document with a size limit (.npz: 4 GiB) is refused before any work
// when the rows read already make its tensors reach it: with seq_len each
// row's size is known (`row_bytes` a token: 8 for each id tensor, d_model
// floats for output), so nothing is computed for minutes to be refused at
// the write. `layer` says what sets the floats' size (" at d_model 64").
void check_document_bytes(const SinkFormat& format, std::size_t rows, std::optional<std::size_t> seq_len,
                          long double token_bytes, const std::string& layer) {
  if (!format.traits.max_bytes || !seq_len || rows == 0) return;
  const long double bytes = static_cast<long double>(rows) * static_cast<long double>(*seq_len) * token_bytes;
  if (bytes < static_cast<long double>(format.traits.max_bytes)) return;
  char gib[32];
  std::snprintf(gib, sizeof gib, "%.1Lf", bytes / (1024.0L * 1024 * 1024));
  throw UsageError(std::to_string(rows) + (rows == 1 ? " line" : " lines") + " of seq_len " + std::to_string(*seq_len) +
                       layer + " make " + gib + " GiB of tensors, over the 4 GiB that embedpe's ." + format.name +
                       " writer supports; write format npy, or fewer lines per file (shard)",
                   {"seq_len", "d_model", "format", "shard"});
}

namespace {

// Several token types are one per sequence: as many as the given texts,
// whose count is known before any work. Input files give one for all.
void check_token_type_count(const EncoderSpec& spec, bool from_files, std::size_t sequences, bool pairs = false) {
  const std::size_t types = spec.token_type_ids.size();
  if (types <= 1 || pairs || !spec.text_pairs.empty()) return;  // with pairs: the two segments' types
  if (from_files) {
    throw UsageError("token_type_ids with several values gives one per text or ids; for input files give one type "
                     "for all",
                     {"token_type_ids", "text", "ids"});
  }
  if (types != sequences) {
    throw UsageError("token_type_ids gives " + std::to_string(types) + " types for " + std::to_string(sequences) +
                         " sequences: give one per sequence, or one for all",
                     {"token_type_ids"});
  }
}

void check_document_size(const Encoder& encoder, const SinkFormat& format, std::size_t rows) {
  const EncoderSpec& spec = encoder.spec();
  long double token_bytes = 0;
  for (TensorName t : spec.emit) {
    if (t == TensorName::input_ids || t == TensorName::attention_mask || t == TensorName::token_type_ids) {
      token_bytes += sizeof(std::int64_t);
    } else if (t == TensorName::output || t == TensorName::token_embeddings) {
      token_bytes += static_cast<long double>(encoder.layer().d_model()) * static_cast<long double>(dtype_size(spec.dtype));
    }
  }
  check_document_bytes(format, rows, spec.tokenize.seq_len, token_bytes,
                       " at d_model " + std::to_string(encoder.layer().d_model()));
}

}  // namespace

void encode(const Encoder& encoder, TextSource& source, const SinkFormat& format, TensorSink& sink,
            const EncodeRunOptions& options) {
  constexpr std::size_t kAll = static_cast<std::size_t>(-1);
  LineReader* reader = source.reader();
  // Some formats hold the whole input in one document; the others stream,
  // a single batch when it all fits one. Given texts are always one batch.
  const bool whole = format.traits.whole_input;
  std::vector<TextLine> first = source.next(!reader || whole ? kAll : options.batch_size);
  // One shard of many may hold no line (a short file split N ways): its
  // output is a valid one with zero rows, so that parallel recipes work.
  if (reader && first.empty() && !options.allow_empty) {
    throw UsageError("input " + source.input_names() + " has no text: nothing to encode");
  }
  check_token_type_count(encoder.spec(), reader != nullptr, first.size());
  std::size_t text_bytes = 0;
  for (const auto& l : first) text_bytes += l.text.size();
  if (whole) check_document_size(encoder, format, first.size());  // a format's limit first: no memory changes it
  encoder.check_memory(first.size(), text_bytes, reader && !whole);

  std::vector<TextLine> second = whole ? std::vector<TextLine>{} : source.next(options.batch_size);
  nlohmann::ordered_json config = encoder.config();
  // Rounded floats say so: a reader comparing runs sees why the values differ.
  if (options.precision) config["precision"] = options.precision;
  const SinkRun run{.config = std::move(config),
                    .sources = source.source_names(),
                    .per_position = {name_of(TensorName::positional_encoding), name_of(TensorName::rope_cos),
                                     name_of(TensorName::rope_sin)},
                    .seq_len = encoder.spec().tokenize.seq_len,
                    .pad_to_multiple_of = encoder.spec().tokenize.pad_to_multiple_of.value_or(1),
                    .threads = options.threads,
                    .precision = options.precision,
                    .streamed = !second.empty(),
                    .batch_size = options.batch_size,
                    .record = options.record,
                    .companion = options.companion};
  sink.begin(run);
  auto write = [&](const EncodedBatch& b, const std::vector<TextLine>& lines) {
    std::vector<TensorBuffer> keep;
    sink.add({b.batch, lines, encoder.tensors(b, keep)});
  };
  auto skipped = [&](std::size_t row, const std::vector<TextLine>& lines) {
    return options.skip && options.skip(row, lines);
  };
  if (second.empty() && !format.traits.streams) {
    if (!skipped(0, first)) {
      auto [texts, origins] = source.take(first);
      EncodedBatch b;
      encoder.compute(texts, origins, 0, b, options.threads);
      if (options.on_batch) options.on_batch(b.batch);
      write(b, first);
    }
  } else {
    // Batch n is written by a pool thread while batch n+1 is computed; that
    // thread helps compute once its write is done. Where no thread can start
    // (a process or memory limit), each batch is written before the next is
    // computed: the same rows, only slower.
    struct Slot {
      std::vector<TextLine> lines;
      EncodedBatch computed;
    };
    std::optional<BatchPipeline<Slot>> pipe;
    if (usable_threads(2) > 1) pipe.emplace([&](Slot& s) { write(s.computed, s.lines); });
    Slot alone;
    std::size_t row = 0;
    for (std::vector<TextLine> lines = std::move(first); !lines.empty();) {
      const std::size_t rows = lines.size();
      if (!skipped(row, lines)) {
        Slot& s = pipe ? pipe->next() : alone;
        s.lines = std::move(lines);
        auto [texts, origins] = source.take(s.lines);
        encoder.compute(texts, origins, row, s.computed, options.threads);
        if (options.on_batch) options.on_batch(s.computed.batch);
        if (pipe) {
          pipe->submit();
        } else {
          write(s.computed, s.lines);
        }
      }
      row += rows;
      lines = std::move(second);
      second = source.next(options.batch_size);
    }
    if (pipe) pipe->finish();
  }
  sink.finish();
}

void encode_whole(const Encoder& encoder, TextSource& source, EncodedBatch& out, std::size_t threads,
                  const std::vector<std::string>& text_pairs) {
  constexpr std::size_t kAll = static_cast<std::size_t>(-1);
  const bool pairs = !text_pairs.empty();
  if (pairs) check_pair_types(encoder.spec());
  std::vector<TextLine> lines = source.next(kAll);
  check_token_type_count(encoder.spec(), source.reader() != nullptr, lines.size(), pairs);
  std::size_t text_bytes = 0;
  for (const auto& l : lines) text_bytes += l.text.size();
  encoder.check_memory(lines.size(), text_bytes, false);
  auto [texts, origins] = source.take(lines);
  encoder.compute(texts, origins, 0, out, threads, pairs ? &text_pairs : nullptr);
}

PartsDirStats encode_parts(const Encoder& encoder, TextSource& source, const PartsDirOptions& dir,
                           const EncodeRunOptions& options) {
  check_token_type_count(encoder.spec(), /*from_files=*/true, 0);
  encoder.check_memory(dir.shard_rows, 0, /*streaming=*/false);
  PartsDirSink sink(dir, *source.reader());
  sink.begin({.config = encoder.joinable_config()});
  std::optional<Part> part = sink.next();
  // As with one output, an input with no text is an error (one empty shard
  // of many is a run with no parts).
  if (!part && !options.allow_empty) throw UsageError("input " + source.input_names() + " has no text: nothing to encode");
  for (; part; part = sink.next()) {
    if (part->kept) continue;
    auto [texts, origins] = source.take(part->lines);
    EncodedBatch b;
    encoder.compute(texts, origins, part->first_row, b, options.threads);
    if (options.on_batch) options.on_batch(b.batch);
    std::vector<TensorBuffer> keep;
    sink.add({b.batch, part->lines, encoder.tensors(b, keep)});
  }
  sink.finish();
  return sink.stats();
}

}  // namespace embedpe
