// The tokenize command's run (embedpe/encoder.h: tokenize, tokenize_to): a source's lines
// through the tokenizer in batches, to a sink or as text of ids or pieces.
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

constexpr std::size_t kAllLines = static_cast<std::size_t>(-1);

// Ids given as input skip the tokenizer.
Batch token_batch(const Tokenizer& tokenizer, TextSource& source, std::vector<TextLine>& lines,
                  const TokenizeRunOptions& options) {
  auto [texts, origins] = source.take(lines);
  if (options.ids_input) return batch_from_id_lines(tokenizer, texts, origins, options.tokenize);
  try {
    if (!options.text_pairs.empty()) {  // given texts: one batch, the whole run
      return tokenizer.encode_pair_batch(texts, options.text_pairs, options.tokenize, options.threads);
    }
    return tokenizer.encode_batch(texts, options.tokenize, options.threads);
  } catch (const std::bad_alloc&) {
    out_of_memory_tokenizing(texts, origins, options.max_line_bytes);
  } catch (const TextError& e) {
    throw_at_origin(e, origins);
  }
}

// The first batch of a tokenize run: the whole input for given texts and
// for a document that holds every row, else kTokenizeBatchLines.
std::vector<TextLine> first_token_lines(TextSource& source, bool whole, const TokenizeRunOptions& options) {
  std::vector<TextLine> lines = source.next(!source.reader() || whole ? kAllLines : kTokenizeBatchLines);
  if (source.reader() && lines.empty() && !options.allow_empty) {
    throw UsageError("input " + source.input_names() + " has no text: nothing to tokenize");
  }
  return lines;
}

// A piece as the pieces format writes it: as it is, unless it holds what would break a line of
// space-separated pieces (a space, tab, CR or LF: HF's tokens may, e.g. Gemma's "\n\n") or a
// backslash, which are then written \x20, \t, \r, \n and \\.
void append_piece(std::string& out, std::string_view piece) {
  if (piece.find_first_of(" \t\r\n\\") == std::string_view::npos) {
    out += piece;
    return;
  }
  for (const char c : piece) {
    switch (c) {
      case ' ': out += "\\x20"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\n': out += "\\n"; break;
      case '\\': out += "\\\\"; break;
      default: out += c;
    }
  }
}

}  // namespace

void tokenize(const Tokenizer& tokenizer, TextSource& source, const SinkFormat& format, TensorSink& sink,
              const TokenizeRunOptions& options) {
  // A document that holds every row (json, npz, safetensors) is padded to
  // the longest row of all, so it takes the whole input; the rest stream.
  const bool whole = format.traits.whole_input;
  std::vector<TextLine> lines = first_token_lines(source, whole, options);
  const auto& pretrained = tokenizer.info().pretrained;
  // A pretrained tokenizer's class says whether it gives token types (HF's model_input_names).
  const bool pairs = !options.text_pairs.empty();
  const bool types = pretrained ? pretrained->token_type_ids || (pairs && pretrained->pair_token_type_ids) : pairs;
  if (whole) {  // input_ids, and attention_mask and token_type_ids where the format holds them: int64 each
    const int tensors = format.traits.one_tensor ? 1 : types ? 3 : 2;
    check_document_bytes(format, lines.size(), options.tokenize.seq_len, 8.0L * tensors, "");
  }
  std::vector<TextLine> next = whole ? std::vector<TextLine>{} : source.next(kTokenizeBatchLines);
  SinkRun run;
  run.config = {{"embedpe_version", version()}, {"model", model_config(tokenizer)}};
  const nlohmann::ordered_json tokenization = tokenization_config(tokenizer, options.tokenize, options.ids_input);
  for (const auto& [key, value] : tokenization.items()) run.config[key] = value;
  if (!options.text_pairs.empty()) run.config["pairs"] = pretrained ? pretrained->tokenizer_class + "'s pair template" : kPairsConfig;
  run.sources = source.source_names();
  run.seq_len = options.tokenize.seq_len;
  run.pad_to_multiple_of = options.tokenize.pad_to_multiple_of.value_or(1);
  run.threads = options.threads;
  run.streamed = !next.empty();
  run.batch_size = kTokenizeBatchLines;
  sink.begin(run);
  do {  // at least once: an empty shard is a document with zero rows
    const Batch batch = token_batch(tokenizer, source, lines, options);
    std::vector<TensorRef> tensors = {tensor_ref("input_ids", batch.input_ids)};
    if (!format.traits.one_tensor) tensors.push_back(tensor_ref("attention_mask", batch.attention_mask));
    if (!format.traits.one_tensor && types) {
      tensors.push_back(tensor_ref("token_type_ids", batch.token_type_ids));
    }
    sink.add({batch, lines, std::move(tensors)});
    lines = std::move(next);
    next = source.next(kTokenizeBatchLines);
  } while (!lines.empty());
  sink.finish();
}

void tokenize_to_text(const Tokenizer& tokenizer, TextSource& source, TokenText text, const std::string& output,
                      const TokenizeRunOptions& options) {
  std::vector<TextLine> lines = first_token_lines(source, false, options);
  OutputFile out(output);
  const bool fixed = options.tokenize.seq_len.has_value();
  const std::size_t multiple = options.tokenize.pad_to_multiple_of.value_or(1);
  std::string buffer;
  // A line's record is its own tokens (padded to `multiple`): without a
  // fixed length, texts need no padded batch, whose width is its longest row's.
  if (!fixed && !options.ids_input && options.text_pairs.empty()) {
    const int pad = tokenizer.pad_id(options.tokenize);
    const bool left = options.tokenize.padding_side == Side::left;
    while (!lines.empty()) {
      auto [texts, origins] = source.take(lines);
      std::vector<Encoding> each;
      try {
        each = tokenizer.encode_each(texts, options.tokenize, options.threads,
                                     text == TokenText::ids ? Pieces::drop : Pieces::keep);
      } catch (const std::bad_alloc&) {
        out_of_memory_tokenizing(texts, origins, options.max_line_bytes);
      } catch (const TextError& e) {
        throw_at_origin(e, origins);
      }
      const std::string_view pad_piece = tokenizer.id_to_piece(pad);  // checked by encode_each
      // Padding an option asks for is refused before it is written, as the padded batch refuses it.
      std::size_t longest = 0;
      for (const Encoding& e : each) longest = std::max(longest, e.ids.size());
      if (const std::size_t length = (longest + multiple - 1) / multiple * multiple; length > longest) {
        check_padded_size(each.size(), length, options.tokenize);
      }
      buffer.clear();
      for (const Encoding& e : each) {
        const std::size_t tokens = e.ids.size(), length = (tokens + multiple - 1) / multiple * multiple;
        for (std::size_t l = 0; l < length; ++l) {
          if (l) buffer += ' ';
          const std::size_t token = left ? l - (length - tokens) : l;  // wraps for padding on the left
          const bool is_pad = left ? l < length - tokens : l >= tokens;
          if (text == TokenText::ids) {
            char digits[16];
            const auto r = std::to_chars(digits, digits + sizeof digits, is_pad ? pad : e.ids[token]);
            buffer.append(digits, r.ptr);
          } else {
            append_piece(buffer, is_pad ? pad_piece : std::string_view(e.pieces[token]));
          }
        }
        buffer += '\n';
      }
      out.write(buffer);
      lines = source.next(kTokenizeBatchLines);
    }
    out.commit();
    return;
  }
  while (!lines.empty()) {
    const Batch batch = token_batch(tokenizer, source, lines, options);
    const std::string_view pad_piece = tokenizer.id_to_piece(batch.pad_id);
    buffer.clear();
    for (std::size_t b = 0; b < batch.size(); ++b) {
      const auto [first, length] = batch.own_columns(b, fixed, multiple);
      for (std::size_t l = first; l < first + length; ++l) {
        if (l != first) buffer += ' ';
        if (text == TokenText::ids) {
          buffer += std::to_string(batch.input_ids(b, l));
        } else {
          const std::size_t token = l - std::min(l, batch.first_token(b));
          append_piece(buffer, batch.attention_mask(b, l) != 0 ? std::string_view(batch.pieces[b][token]) : pad_piece);
        }
      }
      buffer += '\n';
    }
    out.write(buffer);
    lines = source.next(kTokenizeBatchLines);
  }
  out.commit();
}

std::vector<TokenizeFormat> tokenize_formats() {
  std::vector<TokenizeFormat> all;
  for (const SinkFormat* f : sink_formats()) all.push_back({f->name, std::nullopt, f});
  all.push_back({"ids", TokenText::ids});
  all.push_back({"pieces", TokenText::pieces});
  return all;
}

void tokenize_to(const Tokenizer& tokenizer, TextSource& source, const TokenizeFormat& format,
                 const std::string& output, const TokenizeRunOptions& options) {
  if (format.text) return tokenize_to_text(tokenizer, source, *format.text, output, options);
  std::unique_ptr<TensorSink> sink = format.sink->make(output);
  tokenize(tokenizer, source, *format.sink, *sink, options);
}

}  // namespace embedpe
