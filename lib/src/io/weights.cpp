#include "embedpe/weights.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <limits.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>

#include <nlohmann/json.hpp>

#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "half.h"
#include "memory.h"
#include "embedpe/tensor_io.h"
#include "ggml_types.h"
#include "gguf.h"
#include "in_file.h"
#include "weight_files_in_use.h"

namespace embedpe {

const std::vector<std::string_view> kEmbeddingNames = {
    "token_embd.weight",                   // GGUF (llama.cpp)
    "model.embed_tokens.weight",           // LLaMA, Mistral, Qwen (HF)
    "embeddings.word_embeddings.weight",   // BERT, RoBERTa without prefix
    "bert.embeddings.word_embeddings.weight",
    "roberta.embeddings.word_embeddings.weight",
    "albert.embeddings.word_embeddings.weight",
    "electra.embeddings.word_embeddings.weight",
    "shared.weight",                       // T5, BART
    "model.shared.weight",
    "encoder.embed_tokens.weight",
    "model.encoder.embed_tokens.weight",
    "decoder.embed_tokens.weight",
    "tok_embeddings.weight",               // Meta LLaMA checkpoints
    "transformer.wte.weight",              // GPT-2
    "wte.weight",
    "transformer.word_embeddings.weight",  // BLOOM
    "gpt_neox.embed_in.weight",
    "embed_tokens.weight",
    "token_embedding.embedding.weight",    // the Annotated Transformer's TransformerInput
    "weight",                              // a bare nn.Embedding state_dict
};

const std::vector<std::string_view> kPositionNames = {
    "transformer.wpe.weight", "wpe.weight",
    "embeddings.position_embeddings.weight", "bert.embeddings.position_embeddings.weight",
    "roberta.embeddings.position_embeddings.weight", "albert.embeddings.position_embeddings.weight",
    "electra.embeddings.position_embeddings.weight",
    "model.encoder.embed_positions.weight", "encoder.embed_positions.weight",
    "model.decoder.embed_positions.weight", "decoder.embed_positions.weight",
};

const std::vector<std::string_view> kTokenTypeNames = {
    "embeddings.token_type_embeddings.weight", "bert.embeddings.token_type_embeddings.weight",
    "roberta.embeddings.token_type_embeddings.weight", "albert.embeddings.token_type_embeddings.weight",
    "electra.embeddings.token_type_embeddings.weight",
};

const std::vector<std::string_view> kOutputProjectionNames = {
    "lm_head.weight",                  // HF causal LMs (LLaMA, Mistral, Qwen, GPT-2, BLOOM), T5, BART
    "output.weight",                   // Meta LLaMA checkpoints
    "embed_out.weight", "gpt_neox.embed_out.weight",  // GPT-NeoX, Pythia
    "cls.predictions.decoder.weight",  // BERT's MLM head
    "lm_head.decoder.weight",          // RoBERTa's MLM head
    "predictions.decoder.weight",      // ALBERT's MLM head
};

const WeightTensor* find_usual(const WeightFile& file, std::span<const std::string_view> usual_names) {
  const WeightTensor* one = nullptr;
  for (auto name : usual_names) {
    if (const WeightTensor* found = file.find(name)) {
      if (one) return nullptr;
      one = found;
    }
  }
  return one;
}

WeightTying weight_tying(const WeightFile& file) {
  WeightTying t;
  t.embedding = find_usual(file, kEmbeddingNames);
  if (!t.embedding) return t;
  const WeightTensor& a = *t.embedding;
  for (auto name : kOutputProjectionNames) {
    if (const WeightTensor* b = file.find(name)) {
      t.projections.push_back({b, a.dtype == b->dtype && a.shape == b->shape && a.size_bytes == b->size_bytes &&
                                      std::memcmp(file.data(a), file.data(*b), a.size_bytes) == 0});
    }
  }
  return t;
}

const std::vector<std::string_view> kProjectionNames = {
    "encoder.embedding_hidden_mapping_in.weight", "albert.encoder.embedding_hidden_mapping_in.weight",
    "electra.embeddings_project.weight",  // ELECTRA, when its embedding_size is not hidden_size
};

const std::vector<std::string_view> kLayerNormWeightNames = {
    "embeddings.LayerNorm.weight", "bert.embeddings.LayerNorm.weight", "roberta.embeddings.LayerNorm.weight",
    "albert.embeddings.LayerNorm.weight", "electra.embeddings.LayerNorm.weight",
    "model.encoder.layernorm_embedding.weight", "encoder.layernorm_embedding.weight",
    "layernorm_embedding.weight",
};
const std::vector<std::string_view> kLayerNormBiasNames = {
    "embeddings.LayerNorm.bias", "bert.embeddings.LayerNorm.bias", "roberta.embeddings.LayerNorm.bias",
    "albert.embeddings.LayerNorm.bias", "electra.embeddings.LayerNorm.bias",
    "model.encoder.layernorm_embedding.bias", "encoder.layernorm_embedding.bias",
    "layernorm_embedding.bias",
};

// ------------------------------------------------------------ parsing

namespace {

constexpr std::size_t kMaxSafetensorsHeader = 100u << 20;  // as the reference implementation
constexpr std::size_t kMaxSafetensorsDepth = 64;

// The deepest nesting of [ and { in JSON text, outside strings: refused
// before parsing, so that a hostile header cannot exhaust the stack.
std::size_t json_depth(std::string_view text) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

std::size_t element_count(const std::vector<std::size_t>& shape, const std::string& what) {
  std::size_t n = 1;
  for (std::size_t d : shape) n = checked_product({n, d}, what);
  return n;
}

void parse_npy(const std::string& path, std::string_view bytes, std::vector<WeightTensor>& out) {
  NpyHeader h = parse_npy_header(bytes, path);
  if (h.descr.size() == 3 && h.descr[0] == '>') {
    throw Error(path + ": big-endian dtype " + h.descr + "; convert with arr.astype('<" + h.descr.substr(1) + "')");
  }
  WeightTensor t;
  t.name = "";
  const std::optional<DType> dtype = dtype_from_numpy(h.descr);
  if (dtype == DType::float32 || dtype == DType::float16 || dtype == DType::float64) t.dtype = *dtype;
  else throw Error(path + ": dtype " + h.descr + " is not supported; embedpe reads float32 (<f4), float16 (<f2) and float64 (<f8)");
  if (h.fortran_order) {
    throw Error(path + ": Fortran-ordered array; save a C-ordered copy with np.save(path, np.ascontiguousarray(arr))");
  }
  t.shape = h.shape;
  t.offset = h.data_offset;
  t.size_bytes = checked_product({element_count(h.shape, path), dtype_size(t.dtype)}, path);
  const std::size_t available = bytes.size() - h.data_offset;
  if (available != t.size_bytes) {
    throw Error(path + ": the header says shape (" + [&] {
      std::string s;
      for (std::size_t i = 0; i < h.shape.size(); ++i) s += (i ? ", " : "") + std::to_string(h.shape[i]);
      return s;
    }() + ") = " + std::to_string(t.size_bytes) + " bytes of data but the file has " + std::to_string(available) +
                (available < t.size_bytes ? " (truncated?)" : ""));
  }
  out.push_back(std::move(t));
}

DType safetensors_dtype(const std::string& path, const std::string& name, const std::string& s) {
  const std::optional<DType> dtype = dtype_from_safetensors(s);
  // I64 is listed (embedpe encode's ids and mask), never read as a table.
  if (dtype) return *dtype;
  throw Error(path + ": tensor " + name + " has dtype " + s +
              ", which embedpe does not read (F32, F16, BF16, F64, or I8 from embedpe quantize)");
}

void parse_safetensors(const std::string& path, std::string_view bytes, std::vector<WeightTensor>& out) {
  for (SafetensorsEntry& e : read_safetensors_entries(bytes, path)) {
    WeightTensor t;
    t.name = std::move(e.name);
    t.dtype = safetensors_dtype(path, t.name, e.dtype);
    t.shape = std::move(e.shape);
    t.size_bytes = checked_product({element_count(t.shape, path), dtype_size(t.dtype)}, path);
    if (e.size_bytes != t.size_bytes) {
      throw Error(path + ": tensor " + t.name + ": shape and dtype need " + std::to_string(t.size_bytes) +
                  " bytes but data_offsets span " + std::to_string(e.size_bytes));
    }
    t.offset = e.offset;
    out.push_back(std::move(t));
  }
}


}  // namespace

std::string shape_text(const std::vector<std::size_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

std::vector<SafetensorsEntry> read_safetensors_entries(std::string_view bytes, const std::string& path) {
  if (bytes.size() < 8) throw Error(path + ": too short for a .safetensors file");
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= std::uint64_t(static_cast<unsigned char>(bytes[i])) << (8 * i);
  if (n > kMaxSafetensorsHeader) {
    throw Error(path + ": header length " + std::to_string(n) + " is over the 100 MiB (" +
                std::to_string(kMaxSafetensorsHeader) + "-byte) limit of .safetensors headers; the file is corrupt "
                "or not .safetensors");
  }
  if (n > bytes.size() - 8) {
    throw Error(path + ": header length " + std::to_string(n) + " is impossible for a " + std::to_string(bytes.size()) +
                "-byte file; the file is truncated or not .safetensors");
  }
  if (json_depth(bytes.substr(8, n)) > kMaxSafetensorsDepth) {
    throw Error(path + ": the .safetensors header nests deeper than " + std::to_string(kMaxSafetensorsDepth) +
                " levels, the limit (a real header nests 3 deep); the file is corrupt or not .safetensors");
  }
  // nlohmann::json keeps the last of a key given twice: a tensor listed
  // twice would silently be its second entry, the first's bytes unreferenced.
  // Refused naming the key, as a JSON Lines record's duplicate is.
  std::vector<std::vector<std::string>> keys;  // of each open object
  auto no_duplicates = [&path, &keys](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (event == E::object_start) keys.emplace_back();
    if (event == E::object_end && !keys.empty()) keys.pop_back();
    if (event == E::key && !keys.empty()) {
      std::string key = parsed.get<std::string>();
      std::vector<std::string>& seen = keys.back();
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
        const std::string quoted = nlohmann::json(key).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        if (keys.size() == 1) {
          throw Error(path + ": the .safetensors header lists tensor " + quoted +
                      " twice; which entry is meant is ambiguous (corrupt file)");
        }
        const std::string tensor = keys.front().empty() ? std::string("?") : keys.front().back();
        throw Error(path + ": the .safetensors header gives the key " + quoted + " twice in one object (under " +
                    nlohmann::json(tensor).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                    "); which one is meant is ambiguous (corrupt file)");
      }
      seen.push_back(std::move(key));
    }
    return true;
  };
  auto header = nlohmann::json::parse(bytes.substr(8, n), no_duplicates, /*allow_exceptions=*/false);
  if (header.is_discarded() || !header.is_object()) {
    throw Error(path + ": the .safetensors header is not a JSON object (corrupt file)");
  }
  const std::size_t data_start = 8 + n;
  const std::size_t data_size = bytes.size() - data_start;
  std::vector<SafetensorsEntry> out;
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") continue;
    const std::string& tensor = name;  // clang 14 cannot capture a structured binding
    auto bad = [&](const std::string& why) { return Error(path + ": tensor " + tensor + ": " + why); };
    if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") || !entry.contains("data_offsets") ||
        !entry["dtype"].is_string() || !entry["shape"].is_array() || !entry["data_offsets"].is_array() ||
        entry["data_offsets"].size() != 2) {
      throw bad("needs dtype, shape and data_offsets [begin, end]");
    }
    SafetensorsEntry t;
    t.name = name;
    t.dtype = entry["dtype"].get<std::string>();
    for (const auto& d : entry["shape"]) {
      if (!d.is_number_unsigned()) throw bad("shape must be non-negative integers");
      t.shape.push_back(d.get<std::size_t>());
    }
    const auto& off = entry["data_offsets"];
    if (!off[0].is_number_unsigned() || !off[1].is_number_unsigned()) throw bad("data_offsets must be integers");
    const std::size_t begin = off[0].get<std::size_t>(), end = off[1].get<std::size_t>();
    if (begin > end || end > data_size) {
      throw bad("data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "] fall outside the " +
                std::to_string(data_size) + " bytes of data (truncated or corrupt file)");
    }
    t.offset = data_start + begin;
    t.size_bytes = end - begin;
    ranges.emplace_back(begin, end);
    out.push_back(std::move(t));
  }
  std::sort(ranges.begin(), ranges.end());
  for (std::size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i].first < ranges[i - 1].second) throw Error(path + ": tensors' data_offsets overlap (corrupt file)");
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

std::vector<WeightTensor> parse_weight_header(std::string_view bytes, const std::string& source, WeightFormat& format) {
  std::vector<WeightTensor> tensors;
  if (bytes.substr(0, 6) == "\x93NUMPY") {
    format = WeightFormat::npy;
    parse_npy(source, bytes, tensors);
  } else if (bytes.size() >= 9 && bytes[8] == '{') {
    format = WeightFormat::safetensors;
    parse_safetensors(source, bytes, tensors);
  } else {
    throw Error("weight file " + source + " is neither a .npy nor a .safetensors file");
  }
  return tensors;
}

namespace {
// The files open now, by path (WeightFile::open, weight_file_in_use).
std::mutex g_open_files_mutex;
std::vector<std::pair<std::string, std::weak_ptr<const WeightFile>>> g_open_files;
}  // namespace

std::shared_ptr<const WeightFile> weight_file_in_use(const std::string& path) {
  std::lock_guard lock(g_open_files_mutex);
  for (auto it = g_open_files.rbegin(); it != g_open_files.rend(); ++it) {
    if (it->first != path) continue;
    if (std::shared_ptr<const WeightFile> f = it->second.lock()) return f;
  }
  return nullptr;
}

bool is_gguf_file(const std::string& path) {
  static constexpr std::string_view kExtension = ".gguf";
  const bool named = path.size() > kExtension.size() &&
                     path.compare(path.size() - kExtension.size(), kExtension.size(), kExtension) == 0;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return named;  // gguf::File::open says why it cannot be read
  char magic[4] = {};
  struct stat st;
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  // A name ending .gguf is taken as one whatever it is (gguf::File::open
  // refuses what is not a regular file); other files by their magic.
  const bool yes = named || (regular && ::read(fd, magic, 4) == 4 && gguf::has_magic(std::string_view(magic, 4)));
  ::close(fd);
  return yes;
}

namespace {

// A GGUF file's tensors as WeightTensors: NumPy's order, the float types as
// their DType, the others (quantized, integer) with their ggml type.
std::vector<WeightTensor> gguf_tensors(const gguf::File& file) {
  std::vector<WeightTensor> out;
  for (const gguf::TensorInfo& g : file.tensors()) {
    WeightTensor t;
    t.name = g.name;
    t.shape = g.numpy_shape();
    t.offset = g.file_offset;
    t.size_bytes = g.size_bytes;
    t.part = g.part;
    t.ggml_type = g.type;
    switch (static_cast<ggml::Type>(g.type)) {
      case ggml::Type::F16: t.dtype = DType::float16; break;
      case ggml::Type::BF16: t.dtype = DType::bfloat16; break;
      default: t.dtype = DType::float32; break;  // F32, and what dequantizes to it
    }
    out.push_back(std::move(t));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

}  // namespace

std::shared_ptr<const WeightFile> WeightFile::open(const std::string& path) {
  // A second open of a path that still names the same file (device, inode,
  // size, modification time) shares the mapping.
  auto& mutex = g_open_files_mutex;
  auto& open_files = g_open_files;
  const auto identity = [&](struct stat& st) { return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode); };
  const auto mtime_ns = [](const struct stat& st) {
    return static_cast<std::uint64_t>(st.st_mtim.tv_sec) * 1000000000u + static_cast<std::uint64_t>(st.st_mtim.tv_nsec);
  };
  std::lock_guard lock(mutex);
  std::erase_if(open_files, [](const auto& entry) { return entry.second.expired(); });
  struct stat st {};
  const bool known = identity(st);
  for (const auto& [name, weak] : open_files) {
    if (name != path) continue;
    std::shared_ptr<const WeightFile> f = weak.lock();
    if (f && known && f->dev_ == st.st_dev && f->ino_ == st.st_ino && f->file_size() == std::size_t(st.st_size) &&
        f->mtime_ns_ == mtime_ns(st)) {
      return f;
    }
  }
  std::shared_ptr<WeightFile> file(new WeightFile());
  file->path_ = path;
  // Taken before the mapping: if the file is replaced in between, the next
  // open sees another identity and maps afresh, never the other way round.
  if (known) {
    file->dev_ = st.st_dev;
    file->ino_ = st.st_ino;
    file->mtime_ns_ = mtime_ns(st);
  }
  if (is_gguf_file(path)) {
    file->gguf_ = gguf::File::open(path);
    file->format_ = WeightFormat::gguf;
    file->tensors_ = gguf_tensors(*file->gguf_);
  } else {
    file->map_ = std::make_unique<MappedFile>(path);
    file->tensors_ = parse_weight_header(file->map_->bytes(), path, file->format_);
  }
  if (known) open_files.emplace_back(path, file);
  return file;
}

const char* WeightFile::data(const WeightTensor& t) const {
  return gguf_ ? gguf_->part_bytes(t.part).data() + t.offset : map_->bytes().data() + t.offset;
}

std::string_view WeightFile::bytes() const { return gguf_ ? gguf_->part_bytes(0) : map_->bytes(); }

const WeightTensor* WeightFile::find(std::string_view name) const {
  for (const auto& t : tensors_) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

TensorSpec parse_tensor_spec(const std::string& spec) {
  auto exists = [](const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && !S_ISDIR(st.st_mode);
  };
  if (spec.find(':') == std::string::npos || exists(spec)) return {spec, ""};
  for (auto colon = spec.rfind(':'); colon != std::string::npos && colon > 0; colon = spec.rfind(':', colon - 1)) {
    if (exists(spec.substr(0, colon))) return {spec.substr(0, colon), spec.substr(colon + 1)};
  }
  for (const std::string ext : {".safetensors:", ".npy:"}) {
    const auto at = spec.find(ext);
    if (at != std::string::npos) {
      const auto colon = at + ext.size() - 1;
      return {spec.substr(0, colon), spec.substr(colon + 1)};
    }
  }
  const auto colon = spec.rfind(':');
  return {spec.substr(0, colon), spec.substr(colon + 1)};
}

void refuse_outputs_over_inputs(const std::vector<std::string>& outputs,
                                const std::vector<std::pair<std::string, std::string>>& inputs) {
  std::vector<std::pair<std::string, std::string>> paths;
  for (const auto& [name, spec] : inputs) {
    if (!spec.empty()) paths.emplace_back(name, parse_tensor_spec(spec).path);
  }
  for (const auto& output : outputs) refuse_output_over_inputs(output, paths);
}

const WeightTensor& select_tensor(const WeightFile& file, const std::string& wanted,
                                  std::span<const std::string_view> usual_names, const std::string& role) {
  auto candidates = [&] {
    std::string s;
    for (const auto& t : file.tensors()) {
      if (t.shape.size() != 2) continue;
      s += (s.empty() ? "" : ", ") + t.name + " " + shape_text(t.shape) + " " + dtype_info(t.dtype).safetensors;
    }
    return s.empty() ? std::string("none") : s;
  };
  if (file.format() == WeightFormat::npy) {
    if (!wanted.empty()) throw UsageError(file.path() + " is a .npy file holding one array; drop ':" + wanted + "'");
    return file.tensors().front();
  }
  if (!wanted.empty()) {
    if (const auto* t = file.find(wanted)) return *t;
    throw Error(file.path() + " has no tensor '" + wanted + "'; its 2-D tensors: " + candidates());
  }
  std::vector<const WeightTensor*> found;
  for (auto name : usual_names) {
    if (const auto* t = file.find(name)) found.push_back(t);
  }
  if (found.size() == 1) return *found.front();
  if (found.empty()) {
    throw UsageError(file.path() + " has no tensor with a usual " + role + " name; pick one with " + file.path() +
                     ":NAME from its 2-D tensors: " + candidates());
  }
  std::string names;
  for (const auto* t : found) names += (names.empty() ? "" : ", ") + t->name;
  throw UsageError(file.path() + " has several " + role + " tables (" + names + "); pick one with " + file.path() +
                   ":NAME");
}

void read_floats(const WeightFile& file, const WeightTensor& t, std::size_t first, std::size_t count, float* out) {
  const char* src = file.data(t);
  if (t.ggml_type) {
    // ggml's rows: dequantize_row, one whole row at a time, only the rows asked for.
    const auto type = static_cast<ggml::Type>(*t.ggml_type);
    const std::size_t width = t.shape.empty() ? 1 : t.shape.back();
    if (width == 0 || first % width != 0 || count % width != 0) {
      throw InternalError(file.path() + ": " + t.name + " is read by whole rows");
    }
    const std::size_t bytes = ggml::row_bytes(type, width);
    for (std::size_t r = 0; r < count / width; ++r) {
      ggml::dequantize_row(type, src + (first / width + r) * bytes, out + r * width, width);
    }
    return;
  }
  switch (t.dtype) {
    case DType::float32:
      std::memcpy(out, src + 4 * first, 4 * count);
      break;
    case DType::float64:
      for (std::size_t i = 0; i < count; ++i) {
        double v;
        std::memcpy(&v, src + 8 * (first + i), 8);
        out[i] = static_cast<float>(v);
        if (std::isfinite(v) && !std::isfinite(out[i])) {
          const std::size_t width = t.shape.size() == 2 ? std::max<std::size_t>(1, t.shape[1]) : 1;
          char value[32];
          std::snprintf(value, sizeof value, "%g", v);
          throw Error(file.path() + ": " + (t.name.empty() ? "" : "tensor " + t.name + " ") + "row " +
                      std::to_string((first + i) / width) + " holds " + value +
                      ", beyond float32's range (3.4e38); embedpe computes in float32");
        }
      }
      break;
    case DType::float16:
    case DType::bfloat16:
      for (std::size_t i = 0; i < count; ++i) {
        std::uint16_t v;
        std::memcpy(&v, src + 2 * (first + i), 2);
        out[i] = t.dtype == DType::float16 ? half_to_float(v) : bfloat16_to_float(v);
      }
      break;
    case DType::int8:
      throw Error(file.path() + ": tensor " + t.name + " is int8; it needs its per-row scales to be read");
    case DType::int64:  // refused when the header is parsed
      throw Error(file.path() + ": tensor " + t.name + " is int64, not a float tensor");
    case DType::int32: case DType::int16: case DType::uint8: case DType::boolean:  // diff's only: never a weight
      throw InternalError(file.path() + ": tensor " + t.name + " is " + dtype_name(t.dtype));
  }
}

std::vector<float> read_vector(const WeightFile& file, const WeightTensor& t) {
  if (t.shape.size() != 1) {
    throw Error(file.path() + ": " + (t.name.empty() ? "the array" : "tensor " + t.name) + " has shape " +
                shape_text(t.shape) + "; expected a vector");
  }
  std::vector<float> v(t.shape[0]);
  read_floats(file, t, 0, v.size(), v.data());
  return v;
}

}  // namespace embedpe
