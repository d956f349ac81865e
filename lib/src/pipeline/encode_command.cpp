// encode's and tokenize's runs as a command asks for them (encode_command.h).
#include "embedpe/encode_command.h"

#include <unistd.h>

#include <cstdio>
#include <algorithm>
#include <utility>

#include "embedpe/id_rows.h"
#include "embedpe/message.h"
#include "embedpe/pretrained_tokenizer.h"
#include "embedpe/sink.h"
#include "embedpe/threads.h"
#include "embedpe/weights.h"

namespace embedpe {
namespace {

// A note naming the weights' tensors that the spec leaves out, and the
// parameters that would use them.
std::optional<Error> unused_tensors_note(const LayerSpec& layer) {
  const std::vector<UnusedLayerTensor> unused = unused_layer_tensors(layer);
  if (unused.empty()) return std::nullopt;
  std::string names;
  Message uses;
  std::vector<std::string> parameters;
  for (const auto& u : unused) {
    names += (names.empty() ? "" : ", ") + u.name;
    const std::string parameter = u.use.substr(0, u.use.find(' '));  // "pe learned": pe
    if (std::find(parameters.begin(), parameters.end(), parameter) != parameters.end()) continue;
    if (!parameters.empty()) uses << " and ";
    uses << parameter << Verbatim{u.use.substr(parameter.size())};
    parameters.push_back(parameter);
  }
  parameters.insert(parameters.end(), {"pretrained", "quiet"});
  Message m;
  m << Verbatim{parse_tensor_spec(layer.table.weights).path} << " also holds " << Verbatim{names}
    << ", which these flags leave out (" << uses << " would use them; or pretrained DIR for the model's whole "
    << "input layer; quiet silences this)";
  return m.error(std::move(parameters));
}

// ".npz": how a refusal names a sink's binary format.
std::string dotted(std::string_view name) {
  std::string text = ".";
  text += name;
  return text;
}

}  // namespace

void refuse_binary_to_terminal(const std::string& output, const std::string& what) {
  if (output != "-" || !::isatty(STDOUT_FILENO)) return;
  Message m;
  m << "refusing to write binary " << Verbatim{what} << " to a terminal; give output_path FILE or redirect standard "
    << "output";
  throw m.usage_error({"output_path"});
}

Encoder command_encoder(const EncodeCommand& cmd, const ModelSource& source, const LayerSpec& layer,
                        const IsGiven& is_given) {
  const EncodeRequest& request = cmd.request;
  std::vector<TensorName> emit = select_tensors(cmd.emit, nullptr);
  const std::optional<Dropout> dropout = training_dropout(request, layer);
  check_seq_len(layer, request.tokenize.seq_len, request.tokenize.pad_to_multiple_of);
  const std::size_t threads = request_threads(request);
  std::optional<Tokenizer> tokenizer = source.tokenizer();
  EncoderSpec spec = encoder_spec(request, source, layer, tokenizer ? &*tokenizer : nullptr, cmd.text,
                                  std::move(emit), threads, dropout, is_given);
  return Encoder(std::move(tokenizer), std::move(spec));
}

EncodeResult run_encode(const EncodeCommand& cmd, const ModelSource& source, const LayerSpec& layer,
                        const IsGiven& is_given, const std::function<void(const Error&)>& note) {
  const EncodeRequest& request = cmd.request;
  const SinkFormat& format = *cmd.output.format;
  const bool parts = !cmd.output.output_dir.empty();
  // output_dir writes .npz parts, which hold any number of tensors.
  std::vector<TensorName> emit = select_tensors(cmd.emit, parts ? nullptr : &format);
  check_encode_output(cmd.output, request.dtype, cmd.precision, !cmd.text.texts.empty() || !cmd.text.ids.empty(),
                      cmd.text.reading.shard_seek && cmd.text.shard_given);
  const std::optional<Dropout> dropout = training_dropout(request, layer);
  if (format.traits.binary && !parts) refuse_binary_to_terminal(cmd.output.path, dotted(format.name));
  check_seq_len(layer, request.tokenize.seq_len, request.tokenize.pad_to_multiple_of);
  const std::size_t threads = request_threads(request);

  std::optional<Tokenizer> tokenizer = cmd.text.ids_input() ? ids_tokenizer(source, layer, note) : source.tokenizer();
  TextSource texts = open_text_source(cmd.text);
  EncoderSpec spec = encoder_spec(request, source, layer, tokenizer ? &*tokenizer : nullptr, cmd.text,
                                  std::move(emit), threads, dropout, is_given);
  const Encoder encoder(std::move(tokenizer), std::move(spec));
  // Given ids are a command's values: one outside the table is a usage error, as a malformed one is.
  check_given_ids(encoder, cmd.text.ids, cmd.text.ids_label);

  const ProgressStyle style{.live = !cmd.quiet && ::isatty(STDERR_FILENO), .summary = cmd.summary};
  Progress progress(style, texts.reader(), stderr);
  const EncodeRunOptions run{.batch_size = cmd.batch_size,
                             .threads = threads,
                             .precision = cmd.precision,
                             .allow_empty = cmd.text.shard_given,
                             .on_batch = [&progress](const Batch& b) { progress.add(b); }};
  EncodeResult result;
  result.stats = encode_to(encoder, texts, cmd.output, run, cmd.text.shard_given);
  progress.finish();
  // After the run, so that a refusal stays the one line on stderr.
  if (source.pretrained_path().empty()) result.unused_tensors = unused_tensors_note(layer);
  return result;
}

void run_tokenize(const TokenizeCommand& cmd, const ModelSource& source) {
  const TokenizeFormat& format = cmd.format;
  if (format.sink && format.sink->traits.binary) {
    refuse_binary_to_terminal(cmd.output, dotted(format.sink->name));
  }
  const Tokenizer tokenizer = source.tokenizer();
  check_given_ids(tokenizer, cmd.text.ids, cmd.text.ids_label);
  const EncodeRequest& r = cmd.request;
  const EncodeOptions tokenize = pretrained_encode_options(tokenizer, r.tokenize, r.padding_side, r.truncation_side);
  const TokenizeRunOptions options{.tokenize = tokenize,
                                   .ids_input = cmd.text.ids_input(),
                                   .threads = default_threads(),
                                   .allow_empty = cmd.text.shard_given,
                                   .text_pairs = cmd.text.pairs,
                                   .max_line_bytes = cmd.text.reading.max_line_bytes};
  TextSource texts = open_text_source(cmd.text);
  tokenize_to(tokenizer, texts, format, cmd.output, options);
}

std::optional<Tokenizer> output_tokenizer(const std::string& model, const std::string& pretrained,
                                          PretrainedTokenizerKind kind, const std::vector<std::string>& outputs,
                                          bool required, const std::function<void(const Error&)>& note) {
  if (!model.empty() || !pretrained.empty()) return ModelSource(model, pretrained, kind).tokenizer();
  RecordedModel recorded = model_recorded_in(outputs);
  if (recorded.missing) {
    if (required) throw *recorded.missing;
    const UsageError& e = *recorded.missing;
    note(Error(std::string(e.what()) + "; token pieces left out", e.parameters(), e.verbatim()));
  } else if (!recorded.place.empty()) {
    Message m;
    m << "using the model " << Verbatim{recorded.place} << " that " << Verbatim{recorded.output}
      << " names (its SHA-256 matches)";
    note(m.error());
  }
  return std::move(recorded.tokenizer);
}

void run_decode(const DecodeCommand& cmd, const std::function<void(const Error&)>& note) {
  std::optional<Tokenizer> named =
      output_tokenizer(cmd.model, cmd.pretrained, cmd.kind, cmd.files, /*required=*/true, note);
  const Tokenizer tokenizer = named ? std::move(*named) : Tokenizer::default_model();
  check_given_ids(tokenizer, cmd.ids, cmd.ids_label);
  if (cmd.skip_special_tokens && cmd.pretrained.empty()) {
    throw UsageError("skip_special_tokens needs pretrained: a SentencePiece model's decode already drops its "
                     "control pieces",
                     {"skip_special_tokens", "pretrained"});
  }
  decode_to(tokenizer, cmd.ids, cmd.ids_label, cmd.files, cmd.output, cmd.skip_special_tokens);
}

}  // namespace embedpe
