// Weight files: NumPy .npy and .safetensors, memory-mapped.
//
//   auto file = embedpe::WeightFile::open("model.safetensors");
//   for (const auto& t : file->tensors()) std::cout << t.name << '\n';
//   const auto& emb = embedpe::select_tensor(*file, "", embedpe::kEmbeddingNames, "token embedding");
//
// Nothing is read at open beyond the header: tensors stay in the page cache
// and rows are converted to float32 only when used, so one sentence against a
// 2 GB table costs about what it costs against a 2 MB one. Every header field
// is checked against the file (dtype, shape × element size = byte range,
// ranges inside the file and not overlapping) before any data is touched.
//
// Formats: .npy versions 1–3, C order, little-endian <f4, <f2, <f8;
// .safetensors (8-byte little-endian header length, JSON header, raw data)
// with F32, F16, BF16, F64, and I8 (as written by `embedpe quantize`); I64
// tensors (ids and masks that `embedpe encode` writes) are listed, not read;
// GGUF (llama.cpp's files, split ones too): tensors in NumPy's order (ggml's
// [n_embd, n_vocab] is (n_vocab, n_embd)), rows dequantized one at a time as
// ggml does (ggml_types.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "embedpe/dtype.h"
#include "embedpe/mapped_file.h"

namespace embedpe {

enum class WeightFormat { npy, safetensors, gguf };

struct WeightTensor {
  std::string name;
  DType dtype = DType::float32;  // float32, float16, bfloat16, float64 or int8
  std::vector<std::size_t> shape;
  std::size_t offset = 0;  // from the start of the file (of its part, for a split GGUF)
  std::size_t size_bytes = 0;
  // A GGUF tensor: its ggml type (ggml_type's number) and the part of a split
  // file holding it. A quantized one reads as float32 (dtype), whole rows.
  std::optional<std::uint32_t> ggml_type;
  std::size_t part = 0;
};

namespace gguf {
class File;
}

// A .safetensors file's tensors as its header lists them, sorted by name,
// dtype as written ("F32", "I64", ...): the container is checked (header
// length and depth, data_offsets inside the data and not overlapping), the
// dtype is left to the reader, which knows what it accepts. Throws
// embedpe::Error naming `source`.
struct SafetensorsEntry {
  std::string name;
  std::string dtype;
  std::vector<std::size_t> shape;
  std::size_t offset = 0;      // from the start of the file
  std::size_t size_bytes = 0;  // data_offsets' span
};
std::vector<SafetensorsEntry> read_safetensors_entries(std::string_view bytes, const std::string& source);

// Parses the header of a .npy or .safetensors file held in `bytes` and
// checks every tensor's byte range against it; throws embedpe::Error naming
// `source`. (WeightFile::open maps the file and calls this.)
std::vector<WeightTensor> parse_weight_header(std::string_view bytes, const std::string& source, WeightFormat& format);

// Whether `path` is a regular file meant as GGUF: named *.gguf (checked as
// GGUF when read), or starting with GGUF's magic.
bool is_gguf_file(const std::string& path);

class WeightFile {
 public:
  // The file at `path`, mapped. While a WeightFile of the same path is in use
  // and the path still names the same file, it is that one: every user of a
  // path (the layer's tables, the hashes a record carries) reads one mapping.
  static std::shared_ptr<const WeightFile> open(const std::string& path);

  const std::string& path() const { return path_; }
  WeightFormat format() const { return format_; }
  const std::vector<WeightTensor>& tensors() const { return tensors_; }
  const WeightTensor* find(std::string_view name) const;
  // The tensor's bytes (not necessarily aligned).
  const char* data(const WeightTensor& t) const;
  // A GGUF file's metadata and parts; null for the other formats.
  const gguf::File* gguf() const { return gguf_.get(); }
  std::size_t file_size() const { return bytes().size(); }
  // The whole file as mapped (what the tensors are read from; a split GGUF's first part).
  std::string_view bytes() const;

 private:
  WeightFile() = default;
  std::string path_;
  std::uint64_t dev_ = 0, ino_ = 0, mtime_ns_ = 0;  // the file at path_ when it was opened
  WeightFormat format_ = WeightFormat::npy;
  std::unique_ptr<MappedFile> map_;
  std::shared_ptr<const gguf::File> gguf_;  // a GGUF file: it holds the mappings (map_ is null)
  std::vector<WeightTensor> tensors_;
};

// "PATH[:TENSOR]", where both PATH and TENSOR may contain ':'. The path is
// the longest prefix (the whole text, or the text before a ':') that names an
// existing file, and the rest is the tensor: "w.safetensors:enc:emb" selects
// tensor "enc:emb" of w.safetensors. If no prefix exists (the error then
// names the path), the path ends at the first ':' after a ".safetensors" or
// ".npy", else at the last ':'.
struct TensorSpec {
  std::string path;
  std::string tensor;  // empty: find a usual name
};
TensorSpec parse_tensor_spec(const std::string& spec);

// refuse_output_over_inputs (output_file.h) for each of `outputs`, with
// `inputs` as (name, PATH[:TENSOR]) pairs: each tensor name dropped
// (parse_tensor_spec), empty ones skipped. The message names the input by
// its name as given.
void refuse_outputs_over_inputs(const std::vector<std::string>& outputs,
                                const std::vector<std::pair<std::string, std::string>>& inputs);

// Names under which frameworks store the tables embedpe uses.
extern const std::vector<std::string_view> kEmbeddingNames;
extern const std::vector<std::string_view> kPositionNames;
extern const std::vector<std::string_view> kOutputProjectionNames;  // lm_head.weight and the like
extern const std::vector<std::string_view> kTokenTypeNames;  // BERT's token_type_embeddings
extern const std::vector<std::string_view> kProjectionNames;  // ALBERT's embedding_hidden_mapping_in
extern const std::vector<std::string_view> kLayerNormWeightNames;
extern const std::vector<std::string_view> kLayerNormBiasNames;

// The one tensor of `usual_names` the file holds; null if it holds none, or
// several (which one is meant is then not known).
const WeightTensor* find_usual(const WeightFile& file, std::span<const std::string_view> usual_names);

// Whether a checkpoint's input embedding and output projection are tied
// (the same matrix, as in GPT-2, T5 or BERT's MLM head): the embedding
// found under the usual names (the only one present of kEmbeddingNames),
// and each output projection present (kOutputProjectionNames, in that
// order) with whether its bytes are the embedding's. A .safetensors file
// never shares one data range between two names, so tied weights either
// appear twice with the same bytes or, as Hugging Face saves them, once
// (no projection).
struct WeightTying {
  struct Projection {
    const WeightTensor* tensor = nullptr;
    bool same_bytes = false;  // same dtype and shape, identical bytes
  };
  const WeightTensor* embedding = nullptr;
  std::vector<Projection> projections;  // empty without an embedding
};
WeightTying weight_tying(const WeightFile& file);

// The tensor named `wanted`, or (if `wanted` is empty) the only tensor of a
// .npy, or the single one of `usual_names` present. Throws embedpe::Error
// listing the file's 2-D tensors when the choice is missing or ambiguous;
// `role` names what is looked for ("token embedding").
const WeightTensor& select_tensor(const WeightFile& file, const std::string& wanted,
                                  std::span<const std::string_view> usual_names, const std::string& role);

// "(2, 3)", "(5,)": a shape as NumPy prints it.
std::string shape_text(const std::vector<std::size_t>& shape);

// A 1-D float tensor as float32 values (LayerNorm gamma/beta).
std::vector<float> read_vector(const WeightFile& file, const WeightTensor& t);

// Converts `count` consecutive elements starting at element `first` of a
// float tensor (F32/F16/BF16/F64) to float32.
void read_floats(const WeightFile& file, const WeightTensor& t, std::size_t first, std::size_t count, float* out);

}  // namespace embedpe
