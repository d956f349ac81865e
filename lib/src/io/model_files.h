// A model's own files (a Hugging Face directory's config.json, weight index,
// tokenizer JSON, vocabulary and SentencePiece files), read as every input
// is read: through InFile (a regular file only: a FIFO, device or directory
// is refused, never waited on or read forever; noted by device and inode as
// an input, so that no output replaces it, even through standard output),
// under a size cap named in the message, and hashed as read. JSON goes
// through one reader (parse_model_json): at most kMaxModelJsonDepth levels,
// and a key given twice in one object is refused, as JSONL, safetensors and
// npz refuse it. Every refusal is a UsageError of one line naming the file
// (and the key). read_json_file is the same reader for any JSON input file
// that is not a model's (diff's JSON and JSON Lines outputs).
//
//   ModelFiles files("xlm-roberta-base");
//   std::optional<nlohmann::json> config = files.json("config.json");   // nullopt: no such file
//   std::optional<std::string> model = files.read("sentencepiece.bpe.model", kMaxModelBytes, "...");
//   std::string digest = files.digest();   // of every file read so far
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <map>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace embedpe {

// A model's settings file (config.json, tokenizer_config.json,
// special_tokens_map.json, added_tokens.json, model.safetensors.index.json):
// the largest real ones are a few hundred KiB.
inline constexpr std::size_t kMaxModelJsonBytes = std::size_t(16) << 20;
// tokenizer.json and vocab.json, a whole vocabulary (a few tens of MiB at most).
inline constexpr std::size_t kMaxModelVocabBytes = std::size_t(128) << 20;
// Nesting: model JSON is a few levels deep.
inline constexpr std::size_t kMaxModelJsonDepth = 64;

// "16 MiB": a cap as messages name it.
std::string byte_size_text(std::size_t bytes);

// A JSON value as a message quotes it: compact, at most 60 characters.
std::string json_value_text(const nlohmann::json& value);

// What nlohmann's parser found, as a message says it: the parser's reason
// without its "[json.exception...]" tag and without the bytes it last read
// (they may be anything); a number that overflows a double said so.
std::string json_parse_reason(const std::exception& e);
// The number (shortened past 24 characters) when `e` is nlohmann's
// "number overflow" error, else nullopt.
std::optional<std::string> json_overflowing_number(const std::exception& e);

// Parses `text`, the file `shown`, as JSON. Only the top-level keys for
// which `keep` is true are kept when `keep` is given (the rest is parsed,
// checked and dropped). UsageError naming the file: not JSON, nested more
// than kMaxModelJsonDepth levels, a key twice in one object.
nlohmann::json parse_model_json(std::string_view text, const std::string& shown,
                                const std::function<bool(const std::string&)>& keep = {});

// The same reader for JSON whose refusal its caller words (decode's JSON and
// JSON Lines input; the records and manifests an embedpe run wrote and reads
// back, their keys in the order written: Json = nlohmann::ordered_json):
// nullopt for text that is not JSON, nests more than kMaxModelJsonDepth levels
// or gives a key twice in one object.
template <class Json = nlohmann::json>
std::optional<Json> parse_json(std::string_view text);
extern template std::optional<nlohmann::json> parse_json(std::string_view text);
extern template std::optional<nlohmann::ordered_json> parse_json(std::string_view text);

// The input file at `path`, whole, read as ModelFiles::read reads a model's
// file: InFile's policy (a regular file only, never waited on; noted as an
// input), at most `max_bytes` ("PATH is N bytes, more than `what` can be
// (CAP)"). Every refusal is a UsageError of one line naming the file.
std::string read_input_file(const std::string& path, std::size_t max_bytes, const std::string& what);
// The same file parsed by parse_model_json: the one reader of a JSON file.
nlohmann::json read_json_file(const std::string& path, std::size_t max_bytes, const std::string& what);

// Refuses a pretrained path (a directory, tokenizer.json or .gguf file) that
// is not there, naming it: a UsageError.
void refuse_missing_pretrained(const std::string& path);

class ModelFiles {
 public:
  explicit ModelFiles(std::string dir) : dir_(std::move(dir)) {}
  const std::string& dir() const { return dir_; }
  // DIR/NAME, as messages name it.
  std::string path(const std::string& name) const;
  // Whether something (a file, a link, anything) is at DIR/NAME.
  bool has(const std::string& name) const;
  // What DIR holds, as messages list it: its names sorted, joined by ", ",
  // at most `shown` of them and then "and N more"; "" when it holds nothing
  // (or cannot be listed).
  std::string names_text(std::size_t shown = std::numeric_limits<std::size_t>::max()) const;

  // NAME's bytes, or nullopt when nothing is at DIR/NAME. Refused
  // (UsageError): not a regular file, unreadable, more than `max_bytes`
  // (the message says the file "is N bytes, more than `what` can be (CAP)").
  std::optional<std::string> read(const std::string& name, std::size_t max_bytes, const std::string& what);
  // NAME as JSON (parse_model_json), at most `max_bytes`; nullopt when absent.
  std::optional<nlohmann::json> json(const std::string& name, std::size_t max_bytes = kMaxModelJsonBytes,
                                     const std::function<bool(const std::string&)>& keep = {});

  // Notes DIR/NAME as an input (no output may replace it) without reading it,
  // when it is a regular file: a file of the model this command does not need
  // (the weights, for a tokenizer). Anything else is left to its reader.
  void note(const std::string& name) const;
  // Notes every file of a Hugging Face model directory that a loader of it may
  // read (config.json, the weights, the tokenizer files of either kind), so
  // that no output replaces or appends to one, whichever of them this command
  // reads. Any other file there (an earlier output) is left alone.
  void note_model_files() const;
  // Leaves NAME, read for a check only, out of digest().
  void leave_out_of_digest(const std::string& name) { hashes_.erase(name); }
  // NAME → SHA-256 of every file read so far.
  const std::map<std::string, std::string>& hashes() const { return hashes_; }
  // The SHA-256 of the lines "HEX  NAME\n" of every file read, sorted by
  // name: what `sha256sum NAME... | sort -k2 | sha256sum` prints in DIR.
  std::string digest() const;

 private:
  std::string dir_;
  std::map<std::string, std::string> hashes_;
};

}  // namespace embedpe
