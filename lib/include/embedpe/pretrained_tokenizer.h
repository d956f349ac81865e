// The tokenizer of a Hugging Face model directory, as
// AutoTokenizer.from_pretrained(DIR, use_fast=False) builds it: the class named by
// tokenizer_config.json (else config.json's tokenizer_class or model_type), its id
// mapping (fairseq offsets, vocab.json, added tokens after the pieces, language codes),
// its normalisation (ALBERT/XLNet lowercasing and accent stripping), its added tokens
// split out of the text before SentencePiece, and its template of special tokens.
//
//   embedpe::Tokenizer tok = embedpe::load_pretrained_tokenizer("models/xlm-roberta-base");
//   embedpe::EncodeOptions opt = embedpe::pretrained_encode_options(tok);  // the directory's padding side
//   embedpe::Batch b = tok.encode_batch({"Hello"}, opt);   // [0, ..., 2], as HF gives it
//
// The Tokenizer's entry points then give HF's input_ids, attention_mask and
// token_type_ids (encode_batch, encode_pair_batch), tokens (id_to_piece) and
// decode. add_bos=false / add_eos=false leave out the template's tokens before /
// after the text; seq_len is HF's max_length with truncation=True and
// padding='max_length', no seq_len is padding='longest'.
#pragma once

#include <optional>
#include <string>

#include "embedpe/tokenizer.h"

namespace embedpe {

// Throws UsageError (one line) for a directory it cannot use: a missing or unreadable
// file (naming what is there), an unknown tokenizer_class or model_type (listing the
// supported ones), a tokenizer that is not SentencePiece.
// A directory with a tokenizer.json (or such a file itself) gives the fast
// tokenizer (tokenizer.json's pipeline, tokenizer_config.json applied) unless
// `kind` is slow.
Tokenizer load_pretrained_tokenizer(const std::string& dir,
                                    PretrainedTokenizerKind kind = PretrainedTokenizerKind::fast_if_any);

// Whether `path` names a tokenizer.json file as `--pretrained` takes one: anything but a
// directory whose name ends in ".json", in any case (its reader refuses what is not a
// regular file, naming it).
bool is_tokenizer_json_file(const std::string& path);

// EncodeOptions with the directory's defaults: its padding_side and truncation_side.
EncodeOptions pretrained_encode_options(const Tokenizer& tokenizer);
// `given` with the sides a front end left unset taken from those defaults,
// then checked (check_padding).
EncodeOptions pretrained_encode_options(const Tokenizer& tokenizer, EncodeOptions given,
                                        std::optional<Side> padding_side, std::optional<Side> truncation_side);

}  // namespace embedpe
