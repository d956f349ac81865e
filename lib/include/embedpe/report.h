// Reports, as text for a person or JSON for a program: what a SentencePiece
// model and a weight file hold (`embedpe info`), rows E[ids] of an
// embedding table (`embedpe lookup`), and what quantizing a table did
// (`embedpe quantize`).
//
//   auto tok = embedpe::Tokenizer::from_file("m.model");
//   std::string text = embedpe::model_report(tok, embedpe::ReportFormat::text);
//   auto file = embedpe::WeightFile::open("model.safetensors");
//   std::string json = embedpe::weights_report(*file, "model.safetensors", embedpe::ReportFormat::json);
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "embedpe/dims.h"
#include "embedpe/embedding.h"
#include "embedpe/quantize.h"
#include "embedpe/tokenizer.h"
#include "embedpe/weights.h"

namespace embedpe {

enum class ReportFormat { text, json };

// The model: source, SHA-256, size, type, normalizer, byte fallback,
// vocabulary size and special ids (with their pieces, as text). JSON is the
// run config's model fields plus normalizer, byte_fallback and size_bytes.
nlohmann::ordered_json model_report_json(const Tokenizer& tokenizer);
std::string model_report(const Tokenizer& tokenizer, ReportFormat format);

// A weight file: format and size, its tensors (name, shape, dtype, bytes),
// the token and position tables found under the usual names, whether the
// output projections are tied to the embedding, and a stored factorization
// (ALBERT) with the bytes it saves. `path` is how the report names the file.
nlohmann::ordered_json weights_report_json(const WeightFile& file, const std::string& path);
std::string weights_report(const WeightFile& file, const std::string& path, ReportFormat format);

// A model, a weight file, or both, as one report: text one after the other;
// JSON {"model": ..., "weights": ...} with a weight file, else the model's
// fields alone. Either may be null, not both.
std::string info_report(const Tokenizer* model, const WeightFile* weights, const std::string& weights_path,
                        ReportFormat format);

// Rows E[ids] of `table`, `dims` of each (default: all). As text, one line
// per id, tab-separated: the id, its piece when a tokenizer is given, the
// values (shortest float32 text); as JSON, {table, d_model, ids, pieces,
// dims, rows}. UsageError naming `ids` for an id outside the table and
// `dims` for columns beyond it, before anything is read; Error for a NaN or
// infinity asked for as JSON (JSON has none; text writes nan and inf).
std::string table_rows_report(const EmbeddingTable& table, std::span<const std::int64_t> ids,
                              std::optional<Dims> dims, const Tokenizer* tokenizer, ReportFormat format);

// What quantize_table did to `tensor` of `input`, written to `output`: size
// saved and the errors of the rows and of the scaled output. `projection`
// names a factorized checkpoint's projection, which stays in the float file
// (JSON: projection_not_in_output; text leaves saying so to the caller), or
// is empty.
std::string quantize_report(const QuantizeReport& report, const std::string& input, const WeightTensor& tensor,
                            const std::string& output, const std::string& projection, ReportFormat format);

// What quantize_table_ggml found for `tensor` of `input`: the type's bits per
// weight, sizes, the errors of the rows (max, mean, RMS, relative RMS, the
// worst row) and of the scaled output; `output` names the dequantized
// float32 file written, or is empty. `projection` as for quantize_report.
std::string ggml_quantize_report(const GgmlQuantizeReport& report, const std::string& input,
                                 const WeightTensor& tensor, const std::string& output, const std::string& projection,
                                 ReportFormat format);

}  // namespace embedpe

namespace embedpe {

// What a GGUF file holds (info --pretrained FILE.gguf): version, parts and
// alignment; the architecture and its keys (general.*, ARCH.*); the tokenizer
// summary (model, vocabulary size, special ids, add_bos/add_eos/
// add_space_prefix, llama.cpp's defaults where a key is absent); the input
// layer embedpe builds, or why it refuses the architecture; every tensor with
// its ggml type, NumPy shape (ggml's order beside it) and bytes; the bits per
// weight of token_embd. Throws UsageError for a file that is not valid GGUF.
std::string gguf_report(const std::string& path, ReportFormat format);

class ModelSource;

// Parameters (snake_case name, value; "" for a switch) as a front end spells
// them: info's "equivalent flags" line.
using ParameterText = std::function<std::string(const std::vector<std::pair<std::string, std::string>>&)>;

// What a pretrained model holds (info --pretrained PATH): a GGUF file's
// gguf_report; a tokenizer.json's model and components; a model directory's
// architecture, the tensors its input layer uses (role, shape, dtype, file),
// the equivalent parameters (spelled by `parameters`), RoPE's, the tensors
// it does not use, and its tokenizer.json's model where it has one.
std::string pretrained_report(const ModelSource& source, ReportFormat format, const ParameterText& parameters);

}  // namespace embedpe
