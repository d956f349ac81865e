// Pieces the subcommands share: where the texts and the model come from, and
// the tokenization flags of encode and tokenize.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "clikit/values.h"
#include "embedpe/encode_request.h"
#include "embedpe/error.h"
#include "embedpe/param_table.h"
#include "embedpe/pretrained_tokenizer.h"
#include "embedpe/text_input.h"
#include "embedpe/tokenizer.h"
#include "embedpe/weights.h"  // refuse_outputs_over_inputs

namespace embedpe::cli {

// The value checks every command shares (clikit/values.h).
using clikit::add_choice;
using clikit::add_number;
using clikit::add_span;
using clikit::format_from_extension;
using clikit::non_empty_path;
using clikit::number_text;
using clikit::NumberRange;
using clikit::option_group;
using clikit::refuse_contradicting_extension;
using clikit::Span;

struct TokenizeFlags {
  std::string model;       // --model; empty: the embedded default
  std::string pretrained;  // --pretrained DIR: a Hugging Face directory's tokenizer
  PretrainedTokenizerKind kind = PretrainedTokenizerKind::fast_if_any;  // --tokenizer
  // BOS/EOS, padding and truncation (the sides unset: the directory's); encode's flags set the rest.
  EncodeRequest request;
};

// Every numeric option is added with clikit::add_number (a bad value is one
// line naming the flag and the accepted range), within the library's limits
// (kMaxDModel, kMaxSeqLen, kMaxThreads, kMaxShards, kMaxBatchRows:
// embedpe/param_table.h). Positions stay below kMaxPePosition (2^53).

// --scale sqrt|none|X: X a number from -1e6 to 1e6.
CLI::Option* add_scale_option(CLI::App& cmd, std::string& scale, const std::string& help =
                                  "Embedding scale: sqrt (√d_model), none, or a number");

// "ID,ID,..." (or spaces) ids from 0 to 2^31-1, read by the one id parser
// (embedpe::parse_id_text); a bad value is a CLI::ValidationError naming `flag`.
std::vector<std::int64_t> parse_ids(const std::string& flag, const std::string& text);

void add_text_options(CLI::App& cmd, TextSpec& options);
// --ids IDS, repeatable: each value checked as it is parsed, and appended to `ids`.
CLI::Option* add_ids_option(CLI::App& cmd, std::vector<std::string>& ids, const std::string& help);
// --output/-o PATH, default "-" (standard output).
void add_output_option(CLI::App& cmd, std::string& output);
// --no-clobber/-n (as cp -n) on every command of `app` that has --output or
// --output-dir, whoever declared them: called once, after every setup_X, so
// that a new command that writes gets it too. It sets embedpe::set_no_clobber
// (every OutputFile and OutputDirectory then refuses to replace anything) and
// refuses an existing --output / --output-dir before the command starts
// (--output-dir with --resume continues the run there: not refused).
void add_no_clobber(CLI::App& app);
// "embedpe: note: WHAT, without the directory's tokenizer (WHY)": given ids
// (encode) or rows (lookup) go without --pretrained's tokenizer, which could
// not be read (`why`, respelled as flags).
void note_without_tokenizer(const char* what, const Error& why);
void add_tokenize_flags(CLI::App& cmd, TokenizeFlags& flags);
// --model only (info).
CLI::Option* add_model_option(CLI::App& cmd, std::string& model);

// "embedpe COMMAND: NOTE" on stderr, the note's parameters respelled as
// flags: what output_tokenizer says of the model an output names.
std::function<void(const Error&)> command_note(const char* command);
// --pretrained DIR, resolved as a Hub name too (excludes `model`, --model, when given).
CLI::Option* add_pretrained_option(CLI::App& cmd, std::string& dir, CLI::Option* model,
                                   const std::string& help =
                                       "Hugging Face model directory (or a tokenizer.json): its tokenizer gives the "
                                       "ids, template and padding side AutoTokenizer gives (tokenizer.json, else the "
                                       "slow SentencePiece class)");
// --tokenizer fast|slow: which of a --pretrained directory's tokenizers.
CLI::Option* add_tokenizer_kind_option(CLI::App& cmd, PretrainedTokenizerKind& kind);

}  // namespace embedpe::cli
