// Text in, emitted tensors out: a tokenizer, a built input layer (layer_spec.h)
// and the choice of tensors and dtype, run batch by batch into a TensorSink.
//
//   embedpe::EncoderSpec spec;
//   spec.emit = embedpe::select_tensors({"input_ids", "output"}, format);
//   embedpe::Encoder encoder(embedpe::Tokenizer::default_model(), spec);
//   auto sink = format->make("out.npz");
//   embedpe::encode(encoder, source, *format, *sink, {.batch_size = 128});
//
// or, a batch at a time (the caller writes the tensors where it likes):
//
//   embedpe::EncodedBatch b;
//   encoder.compute(texts, origins, 0, b);
//   std::vector<embedpe::TensorBuffer> keep;
//   std::vector<embedpe::TensorRef> tensors = encoder.tensors(b, keep);
//
// The output depends neither on the batch size nor on the thread count.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <xtensor/xtensor.hpp>

#include "embedpe/dtype.h"
#include "embedpe/input_layer.h"
#include "embedpe/layer_spec.h"
#include "embedpe/parts_dir.h"
#include "embedpe/rope.h"
#include "embedpe/sink.h"
#include "embedpe/text_input.h"
#include "embedpe/tokenizer.h"

namespace embedpe {

// The tensors a run can emit, in their canonical order.
enum class TensorName {
  input_ids,
  attention_mask,
  token_type_ids,
  token_embeddings,
  positional_encoding,
  output,
  rope_cos,
  rope_sin
};

// "output" for TensorName::output.
const char* name_of(TensorName t);

// The words select_tensors takes, as messages list them: the tensors of
// "all", then "all", then rope_cos, rope_sin and token_type_ids.
std::vector<std::string> tensor_words();

// The tensors `names` ask for ("all" is every one but token_type_ids,
// rope_cos and rope_sin), in canonical order without repeats; with no names, the
// default: output alone for a one-tensor `format`, else input_ids,
// attention_mask, output. A null `format` holds any number. UsageError
// (naming emit and format) for an unknown name, or several in a one-tensor format.
std::vector<TensorName> select_tensors(const std::vector<std::string>& names, const SinkFormat* format);

struct EncoderSpec {
  EncodeOptions tokenize;  // BOS/EOS, pad id, seq_len, padding and truncation sides
  // Each text is a line of ids ("1,262,2", parse_id_text): used as given,
  // with no tokenizer and no BOS/EOS, then truncated and padded as usual.
  bool ids_input = false;
  LayerSpec layer;         // want_token_embeddings is set from emit
  std::vector<TensorName> emit{TensorName::input_ids, TensorName::attention_mask, TensorName::output};
  DType dtype = DType::float32;         // of the float tensors: float32, float16 or bfloat16
  std::optional<std::size_t> rope_dim;  // of rope_cos and rope_sin; default d_model
  std::size_t threads = 1;              // for tokenizing and embedding
  std::size_t max_line_bytes = 0;       // the reading limit, for the advice when a line cannot be tokenized
  // Second texts of pairs, one per row of the run (given texts only):
  // [CLS] A [SEP] B [SEP] with segments 0 and 1 (Tokenizer::encode_pair_batch).
  std::vector<std::string> text_pairs;
  // Token types (BERT segments): one value for every sequence, one per
  // sequence of the run, or with pairs the types of segments A and B.
  // Padding is type 0. Empty: 0 (pairs: 0 and 1).
  std::vector<std::int64_t> token_type_ids;
};

// One batch, computed; its buffers are reused by the next compute().
struct EncodedBatch {
  Batch batch;                               // ids, mask, pieces
  InputLayerOutput layer;                    // when a layer tensor is emitted
  xt::xtensor<float, 2> rope_cos, rope_sin;  // (seq_len, rope_dim), when emitted
};

// The member of a joinable config (Encoder::joinable_config) that config()
// lacks: a merged output's config, as one run's, is without it.
inline constexpr const char* kWeightFilesKey = "weight_files";

class Encoder {
 public:
  // Builds the layer (reading the files its spec names) and the RoPE
  // frequencies if rope_cos or rope_sin is emitted. With ids_input the
  // tokenizer may be absent, and the ids are checked against the embedding
  // table's rows, not against a tokenizer's vocabulary: the tokenizer, when
  // there is one, gives the pad id and the pieces of the ids it has, and the
  // config's model (null without one). A generated table takes its rows
  // from the tokenizer, which it then needs.
  Encoder(std::optional<Tokenizer> tokenizer, EncoderSpec spec);

  // Throws Error "ORIGIN: id X is outside ... (0 to R-1)" for the first of
  // `ids` that the embedding table has no row for (ids_input's check).
  void check_ids(std::span<const int> ids, const std::string& origin) const;

  // Refuses (UsageError), before any work, a run whose batches of `rows`
  // lines (`text_bytes` of text) cannot fit in memory; `streaming` says two
  // batches are held at once. Without seq_len a sequence is taken at its
  // shortest, so nothing that fits is refused; the layer checks again with
  // the real length.
  void check_memory(std::size_t rows, std::size_t text_bytes, bool streaming) const;

  // Tokenizes and embeds one batch into `out`. `origins` name the texts for
  // errors ("file:3"); `first_row` is the batch's first row in the run
  // (dropout masks depend on it); `threads` 0 means the spec's. With
  // `text_pairs` not null, the second texts of pairs, one per text of this
  // batch, instead of the spec's (a front end that gives them per call).
  void compute(const std::vector<std::string>& texts, const std::vector<std::string>& origins, std::size_t first_row,
               EncodedBatch& out, std::size_t threads = 0,
               const std::vector<std::string>* text_pairs = nullptr) const;

  // The emitted tensors of a computed batch, in emit order and in the output
  // dtype (ids and mask stay int64); `keep` holds converted copies.
  std::vector<TensorRef> tensors(const EncodedBatch& b, std::vector<TensorBuffer>& keep) const;

  // Everything needed to reproduce the run's rows: model, tokenization,
  // layer, RoPE, training, dtype, emit.
  const nlohmann::ordered_json& config() const { return config_; }
  // config() with kWeightFilesKey ("weight_files"), the SHA-256 of each weight file the layer
  // reads (weight_file_hashes), when it reads any: the identity of a run whose
  // pieces are joined later (a resumed output_dir, shards to merge).
  nlohmann::ordered_json joinable_config() const;
  // Null for ids with no tokenizer.
  const Tokenizer* tokenizer() const { return tokenizer_ ? &*tokenizer_ : nullptr; }
  const Layer& layer() const { return layer_; }
  const EncoderSpec& spec() const { return spec_; }

 private:
  bool emits(std::initializer_list<TensorName> names) const;
  // batch.token_type_ids from the spec: zeros, the given types, or a pair's segments mapped to them.
  void set_token_types(Batch& batch, std::size_t first_row) const;

  std::optional<Tokenizer> tokenizer_;
  EncoderSpec spec_;
  Layer layer_;
  std::string id_rows_;  // what ids index, for messages: "the embedding table W" or "the vocabulary of model M"
  bool want_layer_ = false;  // token_embeddings, positional_encoding or output
  bool want_rope_ = false;
  RopeFrequencies rope_;
  nlohmann::ordered_json config_;
};

struct EncodeRunOptions {
  std::size_t batch_size = 128;       // lines a batch holds when the format streams
  std::size_t threads = 1;            // for computing each batch, and for rendering text
  int precision = 0;                  // significant digits of floats in text formats; 0: shortest round-trip
  bool allow_empty = false;           // no text is an output with no rows (one shard of many), not an error
  std::function<void(const Batch&)> on_batch;  // after each batch is computed (progress)
  // Returns true for rows [first_row, first_row + lines.size()) that the
  // sink already holds (a resumed run): they are neither computed nor written.
  std::function<bool(std::size_t first_row, const std::vector<TextLine>& lines)> skip;
  // Given to the sink as SinkRun::record and SinkRun::companion.
  std::function<std::optional<nlohmann::ordered_json>()> record;
  OutputFile::Companion companion;
};

// Reads `source` to its end and writes every batch to `sink` (begin, add,
// finish): the whole input as one batch for formats that hold it whole,
// else batches of batch_size lines, batch n+1 computed while batch n is
// written. Writing and computing share one pool of `threads` threads: a
// thread that finishes writing helps compute. Refuses, before the sink is begun, an input with no
// text (unless allow_empty), several token types that are not one per given
// text (input files take one for all), and batches that cannot fit in memory.
void encode(const Encoder& encoder, TextSource& source, const SinkFormat& format, TensorSink& sink,
            const EncodeRunOptions& options);

// Every text of `source` (given texts) as one batch into `out`, after the
// checks encode() makes (token types, memory): what encode() computes for a
// format that holds the whole input (.npz), for a front end that keeps the
// tensors rather than writing them (the Python module). With `text_pairs`
// not empty, the second texts of pairs, one per text, instead of the spec's.
void encode_whole(const Encoder& encoder, TextSource& source, EncodedBatch& out, std::size_t threads,
                  const std::vector<std::string>& text_pairs = {});

// What tokenize writes: ids and attention masks, without the layer.
struct TokenizeRunOptions {
  EncodeOptions tokenize;       // BOS/EOS, pad id, seq_len, padding and truncation sides
  bool ids_input = false;       // each text is a line of ids, used as given (EncoderSpec::ids_input)
  std::size_t threads = 1;      // for tokenizing
  bool allow_empty = false;     // no text is an output with no rows (one shard of many), not an error
  std::vector<std::string> text_pairs;  // given texts only: pairs, as EncoderSpec::text_pairs
  std::size_t max_line_bytes = 0;       // the reading limit, for the advice when a line cannot be tokenized
};

// The batch tokenize streams: memory stays bounded by a batch (its padded
// ids and pieces), not by the corpus, for every format that streams.
inline constexpr std::size_t kTokenizeBatchLines = 1024;

// Reads `source` to its end and writes input_ids and attention_mask (a
// one-tensor format: input_ids; pairs: token_type_ids too) to `sink`, with a config of version, model
// and tokenization: what encode writes with --emit input_ids,attention_mask
// but for the layer's part of the config.
void tokenize(const Tokenizer& tokenizer, TextSource& source, const SinkFormat& format, TensorSink& sink,
              const TokenizeRunOptions& options);

// As tokenize, but as text into `output` (OutputFile: "-" is standard
// output): one line per text, its ids or pieces space-separated, as the
// embedding takes them (BOS/EOS, truncation), padded only to a length the
// options ask for (seq_len, pad_to_multiple_of), as JSON Lines records are.
// A piece's space, tab, CR, LF and backslash are written \x20, \t, \r, \n, \\.
enum class TokenText { ids, pieces };
void tokenize_to_text(const Tokenizer& tokenizer, TextSource& source, TokenText text, const std::string& output,
                      const TokenizeRunOptions& options);

// What tokenize writes: lines of ids or pieces, or a sink's file holding
// input_ids and attention_mask.
struct TokenizeFormat {
  std::string name;
  std::optional<TokenText> text;       // lines of text
  const SinkFormat* sink = nullptr;    // else this format's file
};
// Every sink format (summary, the terminal's view, among them), then ids and pieces.
std::vector<TokenizeFormat> tokenize_formats();
// tokenize() through `format`'s sink into `output`, or tokenize_to_text().
void tokenize_to(const Tokenizer& tokenizer, TextSource& source, const TokenizeFormat& format,
                 const std::string& output, const TokenizeRunOptions& options);

// As encode, into a parts directory (parts_dir.h): each part the directory
// asks for is computed and written, except those a resumed run keeps.
// `source` reads files (its reader is not null); of `options`, allow_empty
// and on_batch apply. Refuses parts that cannot fit in memory first.
PartsDirStats encode_parts(const Encoder& encoder, TextSource& source, const PartsDirOptions& dir,
                           const EncodeRunOptions& options);

// Where an encode run writes, as a front end gathers it: a file in one
// format, or a parts directory.
struct EncodeOutput {
  std::string path = "-";              // output_path: a file; "-" is standard output
  const SinkFormat* format = nullptr;  // path's format (the front end's choice, or its extension's); required
  std::string output_dir;              // instead of path: .npz parts and a manifest (parts_dir.h)
  std::size_t shard_rows = 1024;       // rows per part
  bool resume = false;                 // continue the output_dir run
  std::string interrupt_note;          // output_dir: said if a signal ends the run (PartsDirOptions)
};

// Refuses (UsageError naming parameters), before any file is read, what
// `output` cannot hold: both a path and an output_dir; with output_dir, a
// format but npz or given texts; resume without it; bfloat16 where NumPy has
// no such dtype; precision in a binary format, whose floats stay exact. With
// `shard_seek`, JSON Lines (numbered from the part's first line) not written
// to a file beside which merge finds the record.
void check_encode_output(const EncodeOutput& output, DType dtype, int precision, bool given_texts, bool shard_seek);

// The files an encode run reads, as (parameter, PATH[:TENSOR]) pairs, what
// its output must not replace (refuse_outputs_over_inputs, weights.h): each
// of text's inputs ("input"), the tokenizer's model ("model"), pretrained
// (each part of a split GGUF) and the layer's (layer_inputs). Empty ones are
// skipped there.
std::vector<std::pair<std::string, std::string>> encode_inputs(const TextSpec& text, const std::string& model,
                                                               const LayerSpec& layer,
                                                               const std::string& pretrained = "");

// encode() into output.path, or encode_parts() into output.output_dir (whose
// stats it returns). With `record_shard`, a reader's shard (source reads
// files), the output's record for merge is written beside it (shards.h):
// which part of which input it holds, and the config it was made with.
std::optional<PartsDirStats> encode_to(const Encoder& encoder, TextSource& source, const EncodeOutput& output,
                                       const EncodeRunOptions& options, bool record_shard);

// The tokenization part of a run's config, what was done rather than what
// was asked (a model without BOS gets none; ids in get no BOS/EOS): input
// ("text" or "ids"), add_bos, add_eos, pad_id, seq_len, padding_side,
// truncation_side, pad_to_multiple_of, and position_ids ("arange", or
// "from attention_mask" with left padding). encode's and tokenize's config
// both start with it.
nlohmann::ordered_json tokenization_config(const Tokenizer& tokenizer, const EncodeOptions& options, bool ids_input);
// The same for ids with no tokenizer (null): pad_id is options.pad_id, else 0.
nlohmann::ordered_json tokenization_config(const Tokenizer* tokenizer, const EncodeOptions& options, bool ids_input);

// Lines of input_format ids (parse_id_line: ids, or a JSON record with
// input_ids, attention_mask, token_type_ids) → a padded batch: no BOS/EOS,
// truncated and padded as encode_batch does, each id checked to be below
// `rows` (an Error naming origins[i] and `rows_of`, e.g. "the embedding
// table W"); the pad id too (a UsageError). A record padded by its mask is
// its real tokens, refused unless its padding is on options.padding_side;
// its token types, when any record gives them, are the batch's
// token_type_ids (0 elsewhere and for padding). Pieces are the tokenizer's
// for the ids it has, else "" (no tokenizer: all "").
Batch batch_from_id_lines(const Tokenizer* tokenizer, std::int64_t rows, const std::string& rows_of,
                          const std::vector<std::string>& lines, const std::vector<std::string>& origins,
                          const EncodeOptions& options);
// The tokenizer's vocabulary as the rows.
Batch batch_from_id_lines(const Tokenizer& tokenizer, const std::vector<std::string>& lines,
                          const std::vector<std::string>& origins, const EncodeOptions& options);

}  // namespace embedpe
