// Token ids read back, for turning them into text again (Tokenizer::decode):
// lines of ids separated by spaces or commas (spm_decode's input), or an
// embedpe output — .json, .jsonl, .npy, .npz, .safetensors — whose input_ids
// rows are kept where attention_mask is 1 (NumPy's own .npz, compressed,
// and int32 ids are read too).
//
//   embedpe::read_id_rows("out.npz", tok.sha256(), [&](const std::vector<int>& ids, const std::string& origin) {
//     std::cout << tok.decode(ids) << '\n';
//   });
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace embedpe {

// One row of ids and where it came from ("ids.txt:3", "out.npz row 2").
using IdRowFn = std::function<void(const std::vector<int>& ids, const std::string& origin)>;

// Reads every row of `path` ("-": standard input) in order. By extension,
// an embedpe output; else lines of ids, or JSON / JSON Lines when the first
// text starts with '{'. An output whose config names a model other than
// `model_sha256` (when that is not empty) is a UsageError: its ids mean
// other pieces. Bad input is an embedpe::Error naming the file and the line
// or row (ids are int64 or int32, C order; a .safetensors's I64 or I32).
void read_id_rows(const std::string& path, const std::string& model_sha256, const IdRowFn& row);

// "1,262,2", "1 262 2" or "1, 262, 2": ids from 0 to 2^31-1, digits only
// (no sign), separated by spaces or single commas. The one parser of a line
// of ids: decode's lines and --ids, encode's and tokenize's --ids and
// --input-format ids, lookup's --ids. An empty field ("1,,2", "1,2,"), a
// sign or anything else is an Error (exit 1: bad data) starting with
// `origin` ("ids.txt:3"); a front end that parses its own flags rethrows it
// as a usage error. A blank line is an empty sequence.
std::vector<int> parse_id_text(std::string_view text, const std::string& origin);

// One line of input_format ids: a sequence of ids as parse_id_text reads
// it, or, when the line starts with '{', one JSON object as Hugging Face's
// tokenizers dump a sequence (json.dumps(dict(tokenizer(text)))):
// {"input_ids": [...], "attention_mask": [...], "token_type_ids": [...]},
// the last two optional and each as long as input_ids; other members
// (special_tokens_mask, ...) are not read. The mask's zeros are padding, on
// one side (padding_left says which): the ids are the positions whose mask
// is 1. A key given twice, deep nesting, a value that is not a whole number
// in range (ids 0 to 2^31-1, mask 0 or 1, types 0 to 2^31-1), a nested
// batch, or a mask with zeros between ones is an Error starting with `origin`.
struct IdRecord {
  std::vector<int> ids;                  // the real tokens
  std::optional<std::vector<int>> token_type_ids;  // of the real tokens, when given
  bool padded = false;                   // the mask had zeros
  bool padding_left = false;             // they were on the left
};
IdRecord parse_id_line(std::string_view text, const std::string& origin);

// The config an embedpe output carries about the run that made it: a .json's
// "config", an .npz's "config" member, a .safetensors's "config"
// __metadata__ string. nullopt for anything else (lines of ids, .jsonl,
// .npy, NumPy's own files) and for a file that cannot be read as one. A
// config that is there but is not a JSON object (text that does not parse,
// a member that is not text) is a UsageError naming `path`: the record of
// the model is unknown, never taken as absent.
std::optional<nlohmann::json> output_config(const std::string& path);

// The model a config names (its "model": source and SHA-256): a
// SentencePiece file, "embedded default", or a Hugging Face directory
// (pretrained). Where to look for it is the caller's choice; the SHA-256
// says whether what is found there is that model. nullopt when the config
// has no model, or a null one (ids encoded with no tokenizer). A record
// that is not whole is a UsageError ("its config's model.source is a JSON
// number, not a string, ..."; the caller names the file): model not an
// object, source or sha256 missing or not a string, sha256 not 64 lowercase
// hex digits, tokenizer_class not a string.
struct ModelNamed {
  std::string source;
  std::string sha256;
  bool pretrained = false;
};
std::optional<ModelNamed> model_named_by(const nlohmann::json& config);

class Tokenizer;

// Decodes into `output` ("-": standard output), one text per line: each of
// `given` (sequences of ids, named "LABEL 1", "LABEL 2", ...), then every
// row of each of `files` (read_id_rows). Ids outside the vocabulary are an
// error naming where they came from; `output` is committed only when all
// are decoded. skip_special_tokens: Tokenizer::decode's (a pretrained tokenizer's).
void decode_to(const Tokenizer& tokenizer, const std::vector<std::string>& given, const std::string& label,
               const std::vector<std::string>& files, const std::string& output, bool skip_special_tokens = false);

}  // namespace embedpe
