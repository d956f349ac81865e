// encode's, tokenize's and decode's runs as a command asks for them, once its front end
// has parsed what was given into these structs and chosen the output's
// format: the checks made in the order the tool has always made them, the
// encoder built, the texts read and the output written. The front end keeps
// what is its own: which parameters were given, the refusal of an output
// over an input by its own names for them, and how it shows notes.
//
//   EncodeCommand cmd;  // cmd.text, cmd.request, cmd.output, ...
//   ModelSource source(model, pretrained);
//   LayerSpec layer = source.layer_spec(given, cmd.request.dtype, is_given);
//   EncodeResult result = run_encode(cmd, source, layer, is_given, note);
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "embedpe/encode_request.h"
#include "embedpe/encoder.h"
#include "embedpe/error.h"
#include "embedpe/layer_spec.h"
#include "embedpe/model_source.h"
#include "embedpe/parts_dir.h"
#include "embedpe/pretrained_tokenizer.h"
#include "embedpe/progress.h"
#include "embedpe/text_input.h"
#include "embedpe/tokenizer.h"

namespace embedpe {

// A UsageError naming output_path if binary `what` (".npy") would go to
// standard output and that is a terminal (encode's, tokenize's and pe's).
void refuse_binary_to_terminal(const std::string& output, const std::string& what);

struct EncodeCommand {
  TextSpec text;
  EncodeRequest request;
  std::vector<std::string> emit;  // tensor words (select_tensors); empty: the format's
  EncodeOutput output;            // output.format: the front end's choice (format, or output_path's name)
  std::size_t batch_size = 128;
  int precision = 0;       // significant digits of floats in json and jsonl; 0: shortest round-trip
  bool quiet = false;    // no progress line on a terminal
  bool summary = false;  // the closing summary on standard error even when it is not a terminal
};

struct EncodeResult {
  std::optional<PartsDirStats> stats;  // output_dir's
  // The weights' position or LayerNorm tensors the spec leaves out (a note
  // naming parameters): a sum no model computes is otherwise silent.
  std::optional<Error> unused_tensors;
};

// The run: output, dropout, seq_len, threads and given ids checked, then the
// texts encoded into cmd.output. `note` hears why given ids go without the
// pretrained directory's tokenizer (ids_tokenizer).
EncodeResult run_encode(const EncodeCommand& cmd, const ModelSource& source, const LayerSpec& layer,
                        const IsGiven& is_given, const std::function<void(const Error&)>& note);

// The Encoder run_encode would run, with the same checks in the same order,
// for a front end that feeds the texts and keeps the tensors itself.
Encoder command_encoder(const EncodeCommand& cmd, const ModelSource& source, const LayerSpec& layer,
                        const IsGiven& is_given);

struct TokenizeCommand {
  TextSpec text;
  EncodeRequest request;  // its tokenization: BOS/EOS, pad id, seq_len, the sides
  TokenizeFormat format;  // the front end's choice (its flag, or the output's name)
  std::string output = "-";
};

// tokenize's run: the tokenizer read from `source`, the given ids checked
// against it, the texts written as ids in cmd.format.
void run_tokenize(const TokenizeCommand& cmd, const ModelSource& source);

// The tokenizer of the model outputs were made with, for decode and diff:
// model's or pretrained's when given; else the one the first of `outputs`
// that carries a record names (model_recorded_in), `note` told where; else
// none. A named model found nowhere, or changed, is thrown with `required`;
// without, `note` is told why, and there is none.
std::optional<Tokenizer> output_tokenizer(const std::string& model, const std::string& pretrained,
                                          PretrainedTokenizerKind kind, const std::vector<std::string>& outputs,
                                          bool required, const std::function<void(const Error&)>& note);

struct DecodeCommand {
  std::vector<std::string> ids;    // sequences of ids, "ID,ID,..."
  std::vector<std::string> files;  // lines of ids or embedpe outputs; "-": standard input
  std::string model, pretrained;   // else the model the files' records name, else the embedded one
  PretrainedTokenizerKind kind = PretrainedTokenizerKind::fast_if_any;
  bool skip_special_tokens = false;  // pretrained's tokenizer only
  std::string output = "-";
  std::string ids_label = "ids";   // how messages name ids
};

// decode's run: the tokenizer (output_tokenizer, required), the given ids
// checked against it, then each text decoded into output (decode_to).
void run_decode(const DecodeCommand& cmd, const std::function<void(const Error&)>& note);

}  // namespace embedpe
