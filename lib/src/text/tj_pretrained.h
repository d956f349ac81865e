// Private: a tokenizer.json behind embedpe::Tokenizer, as
// AutoTokenizer.from_pretrained(DIR) builds the fast tokenizer from it
// (transformers v4.44.2): the file through tj::Tokenizer, then what the
// directory's tokenizer_config.json adds: LlamaTokenizerFast's and
// GemmaTokenizerFast's template rebuilt from add_bos_token/add_eos_token, the
// special tokens (pad, bos, eos, unk, ...) and those PreTrainedTokenizerFast
// adds when the file lacks them, BertTokenizerFast's normalizer rebuilt from
// do_lower_case/strip_accents/tokenize_chinese_chars, the padding and truncation sides,
// model_max_length and the class's model_input_names. A bare tokenizer.json
// is Tokenizer.from_file(PATH): no settings beyond the file.
#pragma once

#include <memory>
#include <string>

#include "pretrained_encoder.h"

namespace embedpe::detail {

// `path`: a directory holding tokenizer.json, or a tokenizer.json file.
std::unique_ptr<PretrainedEncoder> load_tokenizer_json(const std::string& path);

}  // namespace embedpe::detail
