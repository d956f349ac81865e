// embedpe tokenize: text → ids and pieces, as encode would feed them to the
// embedding (BOS/EOS, truncation and, with --seq-len, padding applied).
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "clikit/usage.h"
#include "commands.h"
#include "common.h"
#include "embedpe/encoder.h"
#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/sink.h"
#include "embedpe/version.h"
#include "parallel.h"

namespace embedpe::cli {
namespace {

// Lines tokenized at a time: memory stays bounded by a batch (its padded
// ids and pieces), not by the corpus, for every format that streams.
constexpr std::size_t kBatchLines = 1024;

// What tokenize writes: lines of ids or pieces, or a sink's file (json,
// jsonl, npy, npz, safetensors) holding input_ids and attention_mask.
struct TokenFormat {
  enum class Text { none, ids, pieces } text = Text::none;
  const SinkFormat* sink = nullptr;
};

std::vector<std::pair<std::string, TokenFormat>> token_formats() {
  std::vector<std::pair<std::string, TokenFormat>> all;
  for (const SinkFormat* f : sink_formats()) {
    if (!f->traits.view) all.push_back({f->name, {TokenFormat::Text::none, f}});
  }
  all.push_back({"ids", {TokenFormat::Text::ids, nullptr}});
  all.push_back({"pieces", {TokenFormat::Text::pieces, nullptr}});
  return all;
}

std::string format_name(const TokenFormat& f) {
  if (f.sink) return f.sink->name;
  return f.text == TokenFormat::Text::ids ? "ids" : "pieces";
}

struct TokenizeCommand {
  TextOptions text;
  TokenizeFlags tokenize;
  std::optional<TokenFormat> format;
  std::string output = "-";
};

// --format, else the output's extension (.npz, ...), else json. A binary
// extension with a text format (-o x.npz --format ids) is refused: the
// file would not be what its name says.
TokenFormat infer_format(const TokenizeCommand& cmd) {
  std::vector<std::pair<std::string, TokenFormat>> extensions;
  for (const auto& [name, f] : token_formats()) {
    if (f.sink) {
      for (const std::string& e : f.sink->extensions) extensions.emplace_back(e, f);
    }
  }
  if (!cmd.format) return format_from_extension(cmd.output, extensions).value_or(TokenFormat{{}, find_sink_format("json")});
  refuse_contradicting_extension(cmd.output, format_name(*cmd.format), sink_extensions());
  return *cmd.format;
}

// Ids given as input (--ids, --input-format ids) skip the tokenizer.
Batch make_batch(const Tokenizer& tokenizer, const std::vector<std::string>& texts,
                 const std::vector<std::string>& origins, const EncodeOptions& options, bool ids_in,
                 std::size_t threads) {
  return ids_in ? batch_from_id_lines(tokenizer, texts, origins, options) : tokenizer.encode_batch(texts, options, threads);
}

void write_text(const TokenizeCommand& cmd, const Tokenizer& tokenizer, TextSource& source,
                std::vector<TextLine> lines, const EncodeOptions& options, bool ids_in, std::size_t threads) {
  OutputFile out(cmd.output);
  std::string text;
  const bool ids = cmd.format->text == TokenFormat::Text::ids;
  while (!lines.empty()) {
    auto [texts, origins] = source.take(lines);
    const Batch batch = make_batch(tokenizer, texts, origins, options, ids_in, threads);
    // One line per text: its tokens as encode feeds them to the embedding,
    // padded only when --seq-len or --pad-to-multiple-of asks for a length
    // (on the side --padding-side says), as JSON Lines records are.
    const std::string& pad_piece = tokenizer.id_to_piece(batch.pad_id);
    text.clear();
    for (std::size_t b = 0; b < batch.size(); ++b) {
      const auto [first, length] =
          batch.own_columns(b, cmd.tokenize.seq_len.has_value(), cmd.tokenize.pad_to_multiple_of.value_or(1));
      const std::size_t end = first + length;
      for (std::size_t l = first; l < end; ++l) {
        if (l != first) text += ' ';
        if (ids) {
          text += std::to_string(batch.input_ids(b, l));
        } else {
          const std::size_t token = l - std::min(l, batch.first_token(b));
          text += batch.attention_mask(b, l) != 0 ? batch.pieces[b][token] : pad_piece;
        }
      }
      text += '\n';
    }
    out.write(text);
    lines = source.next(kBatchLines);
  }
  out.commit();
}

void run_tokenize(const TokenizeCommand& cmd) {
  refuse_outputs_over_inputs({cmd.output}, text_inputs(cmd.text, cmd.tokenize.model));
  TokenizeCommand resolved = cmd;
  resolved.format = infer_format(cmd);
  const TokenFormat& format = *resolved.format;
  if (format.sink && format.sink->traits.binary) refuse_binary_to_terminal(cmd.output, "." + std::string(format.sink->name));
  const Tokenizer tokenizer = load_tokenizer(cmd.tokenize.model);
  check_ids_flag(cmd.text.ids, tokenizer);
  const EncodeOptions options = encode_options(cmd.tokenize);
  const bool ids_in = ids_input(cmd.text);
  const std::size_t threads = available_cores();
  TextSource source = open_texts(cmd.text);
  // A document that holds every row (json, npz, safetensors) is padded to
  // the longest row of all, so it takes the whole input; the rest stream.
  constexpr std::size_t kAll = static_cast<std::size_t>(-1);
  const bool whole = format.sink && format.sink->traits.whole_input;
  std::vector<TextLine> lines = source.next(!source.reader() || whole ? kAll : kBatchLines);
  if (source.reader() && lines.empty() && !cmd.text.shard_given) {
    throw UsageError("input " + source.input_names() + " has no text: nothing to tokenize");
  }
  if (!format.sink) return write_text(resolved, tokenizer, source, std::move(lines), options, ids_in, threads);

  std::vector<TextLine> next = whole ? std::vector<TextLine>{} : source.next(kBatchLines);
  // The shape of encode's output with --emit input_ids,attention_mask: the
  // same sinks, the tokenization part of the same config.
  SinkRun run;
  run.config = {{"embedpe_version", version()}, {"model", model_config(tokenizer)}};
  const nlohmann::ordered_json tokenization = tokenization_config(tokenizer, options, ids_in);
  for (const auto& [key, value] : tokenization.items()) run.config[key] = value;
  run.sources = source.source_names();
  run.seq_len = cmd.tokenize.seq_len;
  run.pad_to_multiple_of = cmd.tokenize.pad_to_multiple_of.value_or(1);
  run.threads = threads;
  run.streamed = !next.empty();
  run.batch_size = kBatchLines;
  std::unique_ptr<TensorSink> sink = format.sink->make(cmd.output);
  sink->begin(run);
  do {  // at least once: an empty shard is a document with zero rows
    auto [texts, origins] = source.take(lines);
    const Batch batch = make_batch(tokenizer, texts, origins, options, ids_in, threads);
    std::vector<TensorRef> tensors = {tensor_ref("input_ids", batch.input_ids)};
    if (!format.sink->traits.one_tensor) tensors.push_back(tensor_ref("attention_mask", batch.attention_mask));
    sink->add({batch, lines, std::move(tensors)});
    lines = std::move(next);
    next = source.next(kBatchLines);
  } while (!lines.empty());
  sink->finish();
}

}  // namespace

void setup_tokenize(CLI::App& app) {
  auto cmd = std::make_shared<TokenizeCommand>();
  auto* sub = app.add_subcommand("tokenize", "Text → token ids and pieces, as encode feeds them to the embedding (BOS/EOS, truncation, padding)");
  add_text_options(*sub, cmd->text);
  add_tokenize_flags(*sub, cmd->tokenize);
  add_output_option(*sub, cmd->output);
  add_choice<TokenFormat>(*sub, "--format", [cmd](TokenFormat f) { cmd->format = f; }, token_formats(),
                          "json: config, tokens, input_ids and attention_mask, as encode writes them (npy: "
                          "input_ids; jsonl, npz, safetensors: both); ids, pieces: one line per text",
                          "from --output's extension, else json");
  clikit::set_examples(*sub, {
                       "embedpe tokenize --text \"Hello world\"",
                       "embedpe tokenize --input corpus.txt --format ids --model llama2-tokenizer.model"});
  sub->callback([cmd] { run_tokenize(*cmd); });
}

}  // namespace embedpe::cli
