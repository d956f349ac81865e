// GGUF reading: our own code, following ggml's docs/gguf.md and the checks of
// its reader src/gguf.cpp (gguf_init_from_reader), ggml commit
// d99724f2b141fed9e1a9f402213506c081433465. Where ggml's reader is stricter
// than the format (it wants tensors packed in file order), this one asks what
// the format asks: aligned, inside the data section, not overlapping.
#include "gguf.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>
#include <sys/stat.h>

#include "embedpe/error.h"
#include "embedpe/mapped_file.h"
#include "ggml_types.h"

namespace embedpe::gguf {

namespace {

constexpr std::uint32_t kMaxDims = 4;     // GGML_MAX_DIMS
constexpr int kMaxArrayDepth = 8;         // nested arrays: deeper is refused, not recursed into

// A cursor over one file's bytes: every read checks what remains.
class Reader {
 public:
  Reader(std::string_view bytes, const std::string& source) : bytes_(bytes), source_(source) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw UsageError(source_ + ": not a valid GGUF file: " + what);
  }
  std::size_t pos() const { return pos_; }
  std::size_t remaining() const { return bytes_.size() - pos_; }

  template <class T>
  T read(const char* what) {
    if (remaining() < sizeof(T)) fail("truncated in " + std::string(what) + " at byte " + std::to_string(pos_));
    T v;
    std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;  // GGUF is little-endian, as every host embedpe builds on
  }

  std::string_view view(std::size_t start, std::size_t n) const { return bytes_.substr(start, n); }

  std::string_view read_string(const std::string& what) {
    const auto n = read<std::uint64_t>(what.c_str());
    if (n > remaining()) {
      fail(what + " is " + std::to_string(n) + " bytes long, more than the " + std::to_string(remaining()) +
           " left in the file");
    }
    std::string_view s = bytes_.substr(pos_, static_cast<std::size_t>(n));
    pos_ += static_cast<std::size_t>(n);
    return s;
  }

 private:
  std::string_view bytes_;
  const std::string& source_;
  std::size_t pos_ = 0;
};

// The fewest bytes one element of `type` takes in the file (an array's count
// is checked against it before anything is reserved).
std::size_t min_bytes(ValueType type) {
  switch (type) {
    case ValueType::uint8: case ValueType::int8: case ValueType::boolean: return 1;
    case ValueType::uint16: case ValueType::int16: return 2;
    case ValueType::uint32: case ValueType::int32: case ValueType::float32: return 4;
    case ValueType::uint64: case ValueType::int64: case ValueType::float64: case ValueType::string: return 8;
    case ValueType::array: return 12;
  }
  return 1;
}

bool known_type(std::uint32_t t) { return t <= static_cast<std::uint32_t>(ValueType::float64); }

Value read_value(Reader& r, ValueType type, const std::string& key, int depth) {
  Value v;
  v.type = type;
  switch (type) {
    case ValueType::uint8: v.u = r.read<std::uint8_t>(key.c_str()); break;
    case ValueType::int8: v.i = r.read<std::int8_t>(key.c_str()); break;
    case ValueType::uint16: v.u = r.read<std::uint16_t>(key.c_str()); break;
    case ValueType::int16: v.i = r.read<std::int16_t>(key.c_str()); break;
    case ValueType::uint32: v.u = r.read<std::uint32_t>(key.c_str()); break;
    case ValueType::int32: v.i = r.read<std::int32_t>(key.c_str()); break;
    case ValueType::uint64: v.u = r.read<std::uint64_t>(key.c_str()); break;
    case ValueType::int64: v.i = r.read<std::int64_t>(key.c_str()); break;
    case ValueType::float32: v.f = r.read<float>(key.c_str()); break;
    case ValueType::float64: v.f = r.read<double>(key.c_str()); break;
    case ValueType::boolean: {
      const auto b = r.read<std::uint8_t>(key.c_str());
      if (b > 1) r.fail("key " + key + " is a bool of value " + std::to_string(b) + " (0 or 1 expected)");
      v.i = b;
      break;
    }
    case ValueType::string: v.str = r.read_string("the value of key " + key); break;
    case ValueType::array: {
      if (depth >= kMaxArrayDepth) r.fail("key " + key + " nests arrays deeper than " + std::to_string(kMaxArrayDepth));
      const auto element = r.read<std::uint32_t>(key.c_str());
      if (!known_type(element)) {
        r.fail("key " + key + " is an array of unknown value type " + std::to_string(element));
      }
      v.element_type = static_cast<ValueType>(element);
      const auto n = r.read<std::uint64_t>(key.c_str());
      if (n > r.remaining() / min_bytes(v.element_type)) {
        r.fail("key " + key + " has " + std::to_string(n) + " elements, more than the file holds");
      }
      v.count = static_cast<std::size_t>(n);
      if (v.element_type == ValueType::string) {
        v.strings.reserve(v.count);
        for (std::size_t k = 0; k < v.count; ++k) v.strings.push_back(r.read_string("an element of key " + key));
      } else if (v.element_type == ValueType::array) {
        v.items.reserve(v.count);
        for (std::size_t k = 0; k < v.count; ++k) v.items.push_back(read_value(r, v.element_type, key, depth + 1));
      } else {
        const std::size_t start = r.pos();
        for (std::size_t k = 0; k < v.count; ++k) read_value(r, v.element_type, key, depth + 1);  // bools checked
        v.raw = r.view(start, r.pos() - start);
      }
      break;
    }
  }
  return v;
}

std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, bool& overflow) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) overflow = true;
  return a * b;
}

}  // namespace

const char* value_type_name(ValueType type) {
  static constexpr const char* kNames[] = {"uint8", "int8",   "uint16", "int16", "uint32", "int32", "float32",
                                           "bool",  "string", "array",  "uint64", "int64", "float64"};
  const auto i = static_cast<std::uint32_t>(type);
  return i < std::size(kNames) ? kNames[i] : "unknown";
}

std::optional<std::int64_t> Value::integer() const {
  switch (type) {
    case ValueType::uint8: case ValueType::uint16: case ValueType::uint32: case ValueType::uint64:
      if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
      return static_cast<std::int64_t>(u);
    case ValueType::int8: case ValueType::int16: case ValueType::int32: case ValueType::int64: case ValueType::boolean:
      return i;
    default: return std::nullopt;
  }
}

std::optional<double> Value::number() const {
  if (type == ValueType::float32 || type == ValueType::float64) return f;
  if (type == ValueType::uint8 || type == ValueType::uint16 || type == ValueType::uint32 || type == ValueType::uint64) {
    return static_cast<double>(u);
  }
  if (auto n = integer()) return static_cast<double>(*n);
  return std::nullopt;
}

std::string Value::summary() const {
  switch (type) {
    case ValueType::string: return std::string(str);
    case ValueType::boolean: return i ? "true" : "false";
    case ValueType::float32: case ValueType::float64: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.9g", f);
      return buf;
    }
    case ValueType::array:
    {
      char buf[48];
      std::snprintf(buf, sizeof buf, "[%zu %s]", count, value_type_name(element_type));
      return buf;
    }
    case ValueType::uint8: case ValueType::uint16: case ValueType::uint32: case ValueType::uint64:
      return std::to_string(u);
    default: return std::to_string(i);
  }
}

Value Value::element(std::size_t k) const {
  Value v;
  v.type = element_type;
  const std::size_t size = min_bytes(element_type);
  const char* p = raw.data() + k * size;
  const auto get = [p](auto x) {
    std::memcpy(&x, p, sizeof x);
    return x;
  };
  switch (element_type) {
    case ValueType::uint8: v.u = get(std::uint8_t()); break;
    case ValueType::int8: v.i = get(std::int8_t()); break;
    case ValueType::boolean: v.i = get(std::uint8_t()); break;
    case ValueType::uint16: v.u = get(std::uint16_t()); break;
    case ValueType::int16: v.i = get(std::int16_t()); break;
    case ValueType::uint32: v.u = get(std::uint32_t()); break;
    case ValueType::int32: v.i = get(std::int32_t()); break;
    case ValueType::uint64: v.u = get(std::uint64_t()); break;
    case ValueType::int64: v.i = get(std::int64_t()); break;
    case ValueType::float32: v.f = get(float()); break;
    case ValueType::float64: v.f = get(double()); break;
    default: break;
  }
  return v;
}

std::uint64_t TensorInfo::elements() const {
  std::uint64_t n = 1;
  for (auto d : dims) n *= d;  // checked at parse
  return n;
}

std::vector<std::size_t> TensorInfo::numpy_shape() const {
  return {dims.rbegin(), dims.rend()};
}

bool has_magic(std::string_view bytes) { return bytes.size() >= 4 && bytes.substr(0, 4) == "GGUF"; }

Parsed parse(std::string_view bytes, const std::string& source) {
  Reader r(bytes, source);
  if (!has_magic(bytes)) r.fail("it does not start with \"GGUF\"");
  r.read<std::uint32_t>("the magic");
  Parsed out;
  out.version = r.read<std::uint32_t>("the version");
  if (out.version != 2 && out.version != 3) {
    r.fail("version " + std::to_string(out.version) + " (embedpe reads versions 2 and 3, as ggml does" +
           ((out.version & 0xFFFF) == 0 ? "; a big-endian file?" : "") + ")");
  }
  const auto n_tensors = r.read<std::uint64_t>("the tensor count");
  const auto n_kv = r.read<std::uint64_t>("the key/value count");
  // A key/value pair takes at least 8 + 4 + 1 bytes, a tensor info 8 + 4 + 8 + 4 + 8.
  if (n_kv > r.remaining() / 13) r.fail(std::to_string(n_kv) + " key/value pairs, more than the file holds");
  if (n_tensors > r.remaining() / 24) r.fail(std::to_string(n_tensors) + " tensors, more than the file holds");

  std::set<std::string, std::less<>> keys;
  out.metadata.reserve(static_cast<std::size_t>(n_kv));
  for (std::uint64_t k = 0; k < n_kv; ++k) {
    std::string key(r.read_string("key " + std::to_string(k)));
    if (!keys.insert(key).second) r.fail("key " + key + " appears twice");
    const auto type = r.read<std::uint32_t>(key.c_str());
    if (!known_type(type)) r.fail("key " + key + " has unknown value type " + std::to_string(type));
    Value v = read_value(r, static_cast<ValueType>(type), key, 0);
    out.metadata.emplace_back(std::move(key), std::move(v));
  }
  for (const auto& [key, v] : out.metadata) {
    if (key != "general.alignment") continue;
    if (v.type != ValueType::uint32) r.fail("general.alignment is a " + std::string(value_type_name(v.type)) + ", not a uint32");
    if (v.u == 0 || (v.u & (v.u - 1)) != 0) r.fail("general.alignment " + std::to_string(v.u) + " is not a power of 2");
    out.alignment = static_cast<std::uint32_t>(v.u);
  }

  std::set<std::string, std::less<>> names;
  out.tensors.reserve(static_cast<std::size_t>(n_tensors));
  for (std::uint64_t k = 0; k < n_tensors; ++k) {
    TensorInfo t;
    t.name = std::string(r.read_string("the name of tensor " + std::to_string(k)));
    if (!names.insert(t.name).second) r.fail("tensor " + t.name + " appears twice");
    const auto n_dims = r.read<std::uint32_t>(t.name.c_str());
    if (n_dims > kMaxDims) {
      r.fail("tensor " + t.name + " has " + std::to_string(n_dims) + " dimensions (ggml allows up to 4)");
    }
    bool overflow = false;
    std::uint64_t elements = 1;
    for (std::uint32_t d = 0; d < n_dims; ++d) {
      const auto dim = r.read<std::uint64_t>(t.name.c_str());
      if (dim == 0) r.fail("tensor " + t.name + " has a dimension of 0");
      t.dims.push_back(dim);
      elements = checked_mul(elements, dim, overflow);
    }
    if (overflow || elements > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      r.fail("tensor " + t.name + "'s element count overflows");
    }
    t.type = r.read<std::uint32_t>(t.name.c_str());
    const ggml::TypeInfo* info = ggml::type_info(t.type);
    if (!info) r.fail("tensor " + t.name + " has type " + std::to_string(t.type) + ", which ggml does not define");
    const std::uint64_t row = t.dims.empty() ? 1 : t.dims[0];
    if (row % info->block_elems != 0) {
      r.fail("tensor " + t.name + " (" + info->name + ") has rows of " + std::to_string(row) +
             " elements, not a multiple of its block of " + std::to_string(info->block_elems));
    }
    const std::uint64_t bytes_total = checked_mul(elements / info->block_elems, info->block_bytes, overflow);
    if (overflow || bytes_total > std::numeric_limits<std::size_t>::max()) r.fail("tensor " + t.name + "'s size overflows");
    t.size_bytes = static_cast<std::size_t>(bytes_total);
    t.offset = r.read<std::uint64_t>(t.name.c_str());
    if (t.offset % out.alignment != 0) {
      r.fail("tensor " + t.name + "'s offset " + std::to_string(t.offset) + " is not a multiple of the alignment " +
             std::to_string(out.alignment));
    }
    out.tensors.push_back(std::move(t));
  }

  // The data section starts at the next multiple of the alignment (ggml pads
  // only when there are tensors).
  const std::size_t end = r.pos();
  std::size_t data = end;
  if (!out.tensors.empty()) {
    const std::size_t pad = (out.alignment - end % out.alignment) % out.alignment;
    if (pad > bytes.size() - end) r.fail("truncated before its data section");
    data = end + pad;
  }
  out.data_offset = data;
  const std::size_t data_size = bytes.size() - data;
  std::vector<std::pair<std::uint64_t, const TensorInfo*>> ranges;
  for (auto& t : out.tensors) {
    if (t.offset > data_size || t.size_bytes > data_size - t.offset) {
      r.fail("tensor " + t.name + " (" + std::to_string(t.size_bytes) + " bytes at data offset " + std::to_string(t.offset) +
             ") ends past the end of the file: truncated?");
    }
    t.file_offset = data + static_cast<std::size_t>(t.offset);
    ranges.emplace_back(t.offset, &t);
  }
  std::sort(ranges.begin(), ranges.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t k = 1; k < ranges.size(); ++k) {
    const TensorInfo& prev = *ranges[k - 1].second;
    if (prev.offset + prev.size_bytes > ranges[k].first) {
      r.fail("tensors " + prev.name + " and " + ranges[k].second->name + " overlap");
    }
  }
  return out;
}

std::vector<std::string> split_paths(const std::string& path) {
  // NAME-KKKKK-of-NNNNN.gguf (llama.cpp's llama_split_path: "%s-%05d-of-%05d.gguf")
  static constexpr std::string_view kSuffix = ".gguf";
  if (path.size() < 16 + kSuffix.size() || path.compare(path.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) {
    return {};
  }
  const std::size_t stem = path.size() - kSuffix.size();
  const std::string tail = path.substr(stem - 15, 15);  // "-00001-of-00003"
  const auto digits = [](std::string_view s) {
    return s.size() == 5 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (tail[0] != '-' || tail.substr(6, 4) != "-of-" || !digits(tail.substr(1, 5)) || !digits(tail.substr(10, 5))) return {};
  const int n = std::stoi(tail.substr(10, 5));
  if (n < 1) return {};
  const std::string base = path.substr(0, stem - 15);
  std::vector<std::string> out;
  for (int k = 1; k <= n; ++k) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "-%05d-of-%05d.gguf", k, n);
    out.push_back(base + buf);
  }
  return out;
}

File::~File() = default;

namespace {

// What cannot be a GGUF file is refused as a bad file (exit 2), before mapping.
std::unique_ptr<MappedFile> map_gguf(const std::string& path, const std::string& missing) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) {
    const int error = errno;
    throw UsageError(error == ENOENT && !missing.empty() ? missing
                                                         : "cannot read GGUF file " + path + ": " + std::strerror(error));
  }
  if (!S_ISREG(info.st_mode)) throw UsageError(path + ": not a valid GGUF file: it is not a regular file");
  if (info.st_size == 0) throw UsageError(path + ": not a valid GGUF file: it is empty");
  try {
    return std::make_unique<MappedFile>(path);
  } catch (const UsageError&) {
    throw;
  } catch (const Error& e) {
    throw UsageError("cannot read GGUF file " + path + ": " + e.what());
  }
}

std::optional<std::int64_t> integer_of(const Parsed& p, std::string_view key) {
  for (const auto& [k, v] : p.metadata) {
    if (k == key) return v.type == ValueType::boolean ? std::nullopt : v.integer();
  }
  return std::nullopt;
}

bool has_key(const Parsed& p, std::string_view key) {
  return std::any_of(p.metadata.begin(), p.metadata.end(), [key](const auto& kv) { return kv.first == key; });
}

std::string key_text(const Parsed& p, std::string_view key) {
  if (!has_key(p, key)) return "missing";
  const auto v = integer_of(p, key);
  return v ? std::to_string(*v) : "not an integer";
}

}  // namespace

std::shared_ptr<const File> File::open(const std::string& path) {
  std::shared_ptr<File> f(new File());
  f->path_ = path;
  f->maps_.push_back(map_gguf(path, ""));
  Parsed first = parse(f->maps_[0]->bytes(), path);
  f->part_paths_ = {path};

  // A split (gguf-split, llama.cpp's llama_split_path): NAME-KKKKK-of-NNNNN.gguf,
  // each part carrying split.no (K - 1), split.count (N) and
  // split.tensors.count (the set's tensors). Whichever part is named, every
  // part is read and checked against the set, so the answer is the same.
  const std::vector<std::string> by_name = split_paths(path);
  const auto count = integer_of(first, "split.count");
  if (has_key(first, "split.count") && !count) throw UsageError(path + ": split.count is not an integer");
  if (by_name.size() <= 1 && (!count || *count <= 1)) {
    if (count && *count == 1 && by_name.size() == 1 && integer_of(first, "split.no").value_or(0) != 0) {
      throw UsageError(path + ": split.no is " + key_text(first, "split.no") + " in a split of 1 part");
    }
    f->version_ = first.version;
    f->alignment_ = first.alignment;
    f->metadata_ = std::move(first.metadata);
    f->tensors_ = std::move(first.tensors);
    return f;
  }
  if (!count) {
    throw UsageError(path + ": its name makes it part of a split of " + std::to_string(by_name.size()) +
                     " files, but it has no split.count");
  }
  if (by_name.size() != static_cast<std::size_t>(*count)) {
    throw UsageError(path + ": split.count is " + std::to_string(*count) + " but the name is not NAME-" +
                     "KKKKK-of-" + std::to_string(*count) + ".gguf, so its other parts cannot be found");
  }
  const std::size_t n = by_name.size();
  const std::size_t named = static_cast<std::size_t>(std::find(by_name.begin(), by_name.end(), path) - by_name.begin());
  f->part_paths_ = by_name;
  first = Parsed{};  // it views the map cleared next; each part is read again, in order
  f->maps_.clear();
  std::set<std::string, std::less<>> names;
  std::optional<std::int64_t> total;
  for (std::size_t k = 0; k < n; ++k) {
    const std::string& part = by_name[k];
    f->maps_.push_back(map_gguf(part, path + " is part " + std::to_string(named + 1) + " of " + std::to_string(n) +
                                          ", and part " + part + " is missing"));
    Parsed p = parse(f->maps_.back()->bytes(), part);
    const auto pcount = integer_of(p, "split.count");
    if (pcount != static_cast<std::int64_t>(n)) {
      throw UsageError(part + ": its split.count is " + key_text(p, "split.count") + ", not " + std::to_string(n) +
                       " as its name and " + path + " say");
    }
    if (integer_of(p, "split.no") != static_cast<std::int64_t>(k)) {
      throw UsageError(part + ": its split.no is " + key_text(p, "split.no") + ", not " + std::to_string(k) +
                       " as its name says");
    }
    const auto ptotal = integer_of(p, "split.tensors.count");
    if (!ptotal) throw UsageError(part + ": its split.tensors.count is " + key_text(p, "split.tensors.count"));
    if (k == 0) {
      total = ptotal;
      f->version_ = p.version;
      f->alignment_ = p.alignment;
      f->metadata_ = std::move(p.metadata);
    } else if (ptotal != total) {
      throw UsageError(part + ": its split.tensors.count is " + std::to_string(*ptotal) + ", but part " + by_name[0] +
                       "'s is " + std::to_string(*total));
    }
    for (auto& t : p.tensors) {
      if (!names.insert(t.name).second) throw UsageError(part + ": tensor " + t.name + " is also in another part");
      t.part = k;
      f->tensors_.push_back(std::move(t));
    }
  }
  if (*total != static_cast<std::int64_t>(f->tensors_.size())) {
    throw UsageError(path + ": split.tensors.count is " + std::to_string(*total) + " but its parts hold " +
                     std::to_string(f->tensors_.size()) + " tensors");
  }
  return f;
}

const Value* File::find(std::string_view key) const {
  for (const auto& [k, v] : metadata_) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::optional<std::string> File::string_value(std::string_view key) const {
  const Value* v = find(key);
  if (!v || v->type != ValueType::string) return std::nullopt;
  return std::string(v->str);
}

std::optional<std::int64_t> File::integer_value(std::string_view key) const {
  const Value* v = find(key);
  if (!v || v->type == ValueType::boolean) return std::nullopt;
  return v->integer();
}

std::optional<bool> File::bool_value(std::string_view key) const {
  const Value* v = find(key);
  if (!v || v->type != ValueType::boolean) return std::nullopt;
  return v->i != 0;
}

const TensorInfo* File::find_tensor(std::string_view name) const {
  for (const auto& t : tensors_) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

const char* File::data(const TensorInfo& t) const { return maps_[t.part]->bytes().data() + t.file_offset; }

std::string_view File::part_bytes(std::size_t part) const { return maps_[part]->bytes(); }

}  // namespace embedpe::gguf
