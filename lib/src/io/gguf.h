// GGUF, the model file of llama.cpp and ggml: its metadata and its tensors,
// the data section mapped (never read whole), split files followed.
//
//   auto file = embedpe::gguf::File::open("llama-2-7b.Q4_K_M.gguf");
//   std::string arch = file->string_value("general.architecture").value_or("");
//   const embedpe::gguf::TensorInfo* t = file->find_tensor("token_embd.weight");
//   // t->dims: ggml's order [n_embd, n_vocab]; NumPy's is (n_vocab, n_embd)
//   const char* row0 = file->data(*t);
//
// The layout follows ggml's docs/gguf.md and its reader src/gguf.cpp (ggml
// commit d99724f2b141fed9e1a9f402213506c081433465): magic "GGUF", version 2
// or 3, tensor and key/value counts (uint64), the key/value pairs, the tensor
// infos, padding to general.alignment (a power of two, default 32), the data.
// Every count, length and offset is checked against the bytes that remain
// before anything is allocated: a bad file is one UsageError naming it (a
// truncated file, a count or length larger than the file, an unknown value
// type, a duplicate key or tensor name, more than 4 dimensions, a dimension
// of 0, an element count or byte size that overflows, an unknown tensor type,
// a misaligned offset, a tensor outside the data or overlapping another).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace embedpe {
class MappedFile;
}

namespace embedpe::gguf {

// docs/gguf.md's gguf_metadata_value_type.
enum class ValueType : std::uint32_t {
  uint8 = 0, int8 = 1, uint16 = 2, int16 = 3, uint32 = 4, int32 = 5, float32 = 6, boolean = 7,
  string = 8, array = 9, uint64 = 10, int64 = 11, float64 = 12,
};
const char* value_type_name(ValueType type);  // "uint32", "string", ...

// One metadata value. Integers are held in `u` (unsigned types) or `i`
// (signed, bool), floats in `f`, strings as views of the file's bytes. An
// array holds `count` elements of `element_type`: numbers packed as the file
// has them (`raw`, read by element()), strings as views, nested arrays as
// Values, so that what a file's metadata costs in memory is bounded by a
// small multiple of its size.
struct Value {
  ValueType type = ValueType::uint8;
  std::uint64_t u = 0;
  std::int64_t i = 0;
  double f = 0;
  std::string_view str;
  ValueType element_type = ValueType::uint8;
  std::size_t count = 0;
  std::string_view raw;                    // an array of numbers or bools
  std::vector<std::string_view> strings;   // an array of strings
  std::vector<Value> items;                // an array of arrays

  // Element k of an array of numbers or bools (k < count).
  Value element(std::size_t k) const;

  // The value as an integer when it is one (any integer type, bool), else none.
  std::optional<std::int64_t> integer() const;
  // The value as a number (integer or float), else none.
  std::optional<double> number() const;
  // A short rendering for reports: numbers, the string, "[array of N T]".
  std::string summary() const;
};

struct TensorInfo {
  std::string name;
  std::vector<std::uint64_t> dims;  // ggml order: dims[0] is the fastest (a row's length)
  std::uint32_t type = 0;           // ggml_type's number (ggml_types.h)
  std::uint64_t offset = 0;         // from the start of its part's data section, as stored
  std::size_t file_offset = 0;      // from the start of its part's file
  std::size_t size_bytes = 0;
  std::size_t part = 0;             // which file of a split holds it (0: the first)
  std::uint64_t elements() const;
  std::vector<std::size_t> numpy_shape() const;  // dims reversed
};

// One file's header, key/value pairs and tensor infos, checked against its bytes.
struct Parsed {
  std::uint32_t version = 0;
  std::vector<std::pair<std::string, Value>> metadata;  // in file order
  std::vector<TensorInfo> tensors;                      // in file order
  std::uint32_t alignment = 32;
  std::size_t data_offset = 0;
};
// Throws UsageError naming `source` for anything docs/gguf.md does not allow.
Parsed parse(std::string_view bytes, const std::string& source);

// Whether `bytes` start with GGUF's magic.
bool has_magic(std::string_view bytes);

class File {
 public:
  // The file at `path` and, when its name (NAME-0000K-of-0000N.gguf, N > 1)
  // or its split.count says it is part of a split, every part of the set
  // (`path` may be any of them), each checked against the set whichever is
  // named: a regular, non-empty GGUF file with split.count N, split.no K - 1
  // and the same split.tensors.count, the parts' tensors adding up to it, no
  // tensor name in two parts. Anything else is one UsageError (exit 2).
  static std::shared_ptr<const File> open(const std::string& path);
  ~File();

  const std::string& path() const { return path_; }                 // as given
  const std::vector<std::string>& part_paths() const { return part_paths_; }
  std::uint32_t version() const { return version_; }
  std::uint32_t alignment() const { return alignment_; }
  // The first part's metadata (general.*, tokenizer.*, ARCH.*), in file order.
  const std::vector<std::pair<std::string, Value>>& metadata() const { return metadata_; }
  const Value* find(std::string_view key) const;
  std::optional<std::string> string_value(std::string_view key) const;
  std::optional<std::int64_t> integer_value(std::string_view key) const;
  std::optional<bool> bool_value(std::string_view key) const;
  // Every part's tensors, the first part's first.
  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  const TensorInfo* find_tensor(std::string_view name) const;
  // The bytes of a tensor, mapped.
  const char* data(const TensorInfo& t) const;
  // A part's whole file, mapped.
  std::string_view part_bytes(std::size_t part) const;

 private:
  File() = default;
  std::string path_;
  std::vector<std::string> part_paths_;
  std::vector<std::unique_ptr<MappedFile>> maps_;
  std::uint32_t version_ = 0, alignment_ = 32;
  std::vector<std::pair<std::string, Value>> metadata_;
  std::vector<TensorInfo> tensors_;
};

// The part names of a split, from one of them: "x-00002-of-00003.gguf" →
// x-00001-of-00003.gguf .. x-00003-of-00003.gguf; empty if the name is not one.
std::vector<std::string> split_paths(const std::string& path);

}  // namespace embedpe::gguf
