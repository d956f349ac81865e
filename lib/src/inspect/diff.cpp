// embedpe diff: each kind of file as named tensors, through io's readers
// (tensor_io.h, weights.h) and the parts directory's manifest parser
// (manifest.h), as views into mapped files where the format allows; and the comparison,
// block by block on the thread pool, merged in order so that the figures do
// not depend on the thread count.
#include "embedpe/diff.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string_view>

#include "embedpe/dtype.h"
#include "embedpe/error.h"
#include "embedpe/tensor_io.h"
#include "embedpe/weights.h"
#include "file_name.h"
#include "half.h"
#include "manifest.h"
#include "model_files.h"
#include "parallel.h"
#include "shard_join.h"

namespace embedpe {
namespace {

constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
std::size_t times(std::size_t a, std::size_t b) { return b != 0 && a > kMax / b ? kMax : a * b; }
std::size_t product(const std::vector<std::size_t>& shape, std::size_t from = 0) {
  std::size_t n = 1;
  for (std::size_t k = from; k < shape.size(); ++k) n = times(n, shape[k]);
  return n;
}

// Contiguous elements of one tensor, little-endian, as stored.
struct Piece {
  const char* data = nullptr;
  std::size_t elements = 0;
};

struct Tensor {
  std::string name;
  DType stored = DType::float32;  // how the pieces hold its elements
  std::optional<DType> dtype;     // as its file states it; none where the format states none (JSON Lines)
  std::vector<std::size_t> shape;
  std::vector<Piece> pieces;  // joined along the first dimension (a parts directory's parts)

  std::size_t elements() const { return product(shape); }

  // Elements [first, first + n) as float64.
  void read(std::size_t first, std::size_t n, double* out) const {
    std::size_t p = 0;
    while (p < pieces.size() && first >= pieces[p].elements) first -= pieces[p++].elements;
    while (n > 0) {
      const Piece& piece = pieces.at(p);
      const std::size_t k = std::min(n, piece.elements - first);
      convert(piece.data + first * dtype_size(stored), k, out);
      out += k;
      n -= k;
      first = 0;
      ++p;
    }
  }

 private:
  template <class T>
  static void copy_as(const char* src, std::size_t n, double* out) {
    for (std::size_t i = 0; i < n; ++i) {
      T v;
      std::memcpy(&v, src + i * sizeof(T), sizeof(T));
      out[i] = static_cast<double>(v);
    }
  }

  void convert(const char* src, std::size_t n, double* out) const {
    switch (stored) {
      case DType::float64: return copy_as<double>(src, n, out);
      case DType::float32: return copy_as<float>(src, n, out);
      case DType::int64: return copy_as<std::int64_t>(src, n, out);
      case DType::int32: return copy_as<std::int32_t>(src, n, out);
      case DType::int16: return copy_as<std::int16_t>(src, n, out);
      case DType::int8: return copy_as<std::int8_t>(src, n, out);
      case DType::uint8: case DType::boolean: return copy_as<std::uint8_t>(src, n, out);
      case DType::float16: case DType::bfloat16:
        for (std::size_t i = 0; i < n; ++i) {
          std::uint16_t h;
          std::memcpy(&h, src + 2 * i, 2);
          out[i] = stored == DType::float16 ? half_to_float(h) : bfloat16_to_float(h);
        }
        return;
    }
  }
};

// One of A and B: its tensors and what keeps their bytes alive.
struct Operand {
  std::string path;
  std::vector<std::unique_ptr<MappedFile>> maps;
  std::vector<std::unique_ptr<std::string>> blobs;           // deflated .npz members, inflated
  std::vector<std::unique_ptr<std::vector<double>>> numbers;  // JSON values
  std::vector<Tensor> tensors;

  const Tensor* find(const std::string& name) const {
    for (const Tensor& t : tensors) {
      if (t.name == name) return &t;
    }
    return nullptr;
  }

  std::string_view map(const std::string& file) {
    maps.push_back(std::make_unique<MappedFile>(file));
    return maps.back()->bytes();
  }
};

std::string stem(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::size_t dot = base.rfind('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

void check_size(const Tensor& t, std::size_t available_bytes, const std::string& source) {
  const std::size_t n = t.elements();
  if (times(n, dtype_size(t.stored)) > available_bytes) {
    throw Error(source + " is truncated: " + t.name + "'s data is shorter than its shape");
  }
}

Tensor npy_tensor(std::string_view npy, const std::string& name, const std::string& source) {
  const NpyHeader h = parse_npy_header(npy, source);
  const std::optional<DType> dtype = dtype_from_numpy(h.descr, DTypes::all);
  if (!dtype) throw Error(source + " holds " + h.descr + " values, which diff does not read");
  if (h.fortran_order && h.shape.size() > 1) {
    throw Error(source + " is a Fortran-ordered array; save it C-ordered (np.ascontiguousarray)");
  }
  Tensor t{.name = name, .stored = *dtype, .dtype = dtype, .shape = h.shape, .pieces = {}};
  check_size(t, h.data_offset <= npy.size() ? npy.size() - h.data_offset : 0, source);
  t.pieces = {{npy.data() + h.data_offset, t.elements()}};
  return t;
}

void read_npz_file(Operand& side, std::string_view bytes, const std::string& source) {
  for (const NpzEntry& e : npz_entries(bytes, source)) {
    const std::string where = source + " member " + e.name + ".npy";
    std::string_view npy = e.data;
    check_npz_entry(e, source);  // a stored member's CRC-32 (a deflated one's is checked as it is inflated)
    if (e.method != 0) {
      std::vector<NpzMember> m = read_npz(bytes, source, {e.name});
      if (m.size() != 1) throw Error(where + " cannot be read");
      side.blobs.push_back(std::make_unique<std::string>(std::move(m[0].npy)));
      npy = *side.blobs.back();
    }
    if (npy_holds_text(npy, where)) continue;  // what the file says about itself (a shard's record), not a tensor
    side.tensors.push_back(npy_tensor(npy, e.name, where));
  }
}

void read_safetensors_file(Operand& side, std::string_view bytes, const std::string& source) {
  for (const SafetensorsEntry& e : read_safetensors_entries(bytes, source)) {
    const std::optional<DType> dtype = dtype_from_safetensors(e.dtype, DTypes::all);
    if (!dtype) throw Error(source + ": tensor " + e.name + " is " + e.dtype + ", which diff does not read");
    Tensor t{.name = e.name, .stored = *dtype, .dtype = dtype, .shape = e.shape, .pieces = {}};
    if (times(t.elements(), dtype_size(t.stored)) != e.size_bytes) {
      throw Error(source + ": tensor " + e.name + "'s data_offsets do not match its shape and dtype");
    }
    t.pieces = {{bytes.data() + e.offset, t.elements()}};
    side.tensors.push_back(std::move(t));
  }
}

// A JSON value of nested arrays of numbers: its shape and values, or false
// if it is not numeric (the tokens' strings, the config).
bool json_shape(const nlohmann::json& v, std::vector<std::size_t>& shape) {
  const nlohmann::json* at = &v;
  while (at->is_array()) {
    shape.push_back(at->size());
    if (at->empty()) return true;
    at = &(*at)[0];
  }
  return at->is_number();
}

void json_values(const nlohmann::json& v, const std::vector<std::size_t>& shape, std::size_t depth,
                 std::vector<double>& out, const std::string& where) {
  if (depth == shape.size()) {
    if (!v.is_number()) throw Error(where + " is not an array of numbers of one shape");
    out.push_back(v.get<double>());
    return;
  }
  if (!v.is_array() || v.size() != shape[depth]) throw Error(where + " is not an array of numbers of one shape");
  for (const auto& x : v) json_values(x, shape, depth + 1, out, where);
}

void add_json_tensor(Operand& side, const std::string& name, std::optional<DType> dtype,
                     std::vector<std::size_t> shape, std::vector<double> values) {
  side.numbers.push_back(std::make_unique<std::vector<double>>(std::move(values)));
  Tensor t;
  t.name = name;
  t.stored = DType::float64;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.pieces = {{reinterpret_cast<const char*>(side.numbers.back()->data()), side.numbers.back()->size()}};
  side.tensors.push_back(std::move(t));
}

bool is_json_member(const std::string& key) {
  return key != "config" && key != "shapes" && key != "dtypes" && key != "tokens" && key != "source" &&
         key != "line";
}

// JSON and JSON Lines are held whole, parsed (io's one JSON reader, model_files.h): at most this much.
constexpr std::size_t kMaxJsonBytes = std::size_t(1) << 30;

void read_json_output(Operand& side, const std::string& source) {
  const nlohmann::json doc = read_json_file(source, kMaxJsonBytes, "a JSON file diff reads");
  if (!doc.is_object()) throw Error(source + " is not a JSON object (embedpe's --format json)");
  const auto dtypes = doc.find("dtypes");
  for (const auto& [key, value] : doc.items()) {
    std::vector<std::size_t> shape;
    if (!is_json_member(key) || !json_shape(value, shape)) continue;
    std::vector<double> values;
    json_values(value, shape, 0, values, source + ": " + key);
    std::optional<DType> dtype;
    if (dtypes != doc.end() && dtypes->is_object() && dtypes->contains(key) && (*dtypes)[key].is_string()) {
      const std::string stated = (*dtypes)[key].get<std::string>();
      dtype = dtype_from_name(stated, DTypes::all);
      if (!dtype) throw Error(source + ": its dtypes give " + key + " as " + stated + ", which is not a dtype");
    }
    add_json_tensor(side, key, dtype, std::move(shape), std::move(values));
  }
}

// JSON Lines: a record per sequence, stacked into a batch.
void read_jsonl_output(Operand& side, const std::string& source) {
  const std::string text = read_input_file(source, kMaxJsonBytes, "a JSON Lines file diff reads");
  std::string_view bytes = text;
  struct Stack {
    std::string name;
    std::vector<std::size_t> shape;
    std::vector<double> values;
  };
  std::vector<Stack> stacks;
  std::size_t records = 0, line_no = 0;
  while (!bytes.empty()) {
    const std::size_t end = std::min(bytes.find('\n'), bytes.size());
    const std::string_view line = bytes.substr(0, end);
    bytes.remove_prefix(std::min(bytes.size(), end + 1));
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string where = source + ":" + std::to_string(line_no);
    const nlohmann::json rec = parse_model_json(line, where);
    if (!rec.is_object()) throw Error(where + " is not a JSON object (embedpe's --format jsonl)");
    std::size_t found = 0;
    for (const auto& [key, value] : rec.items()) {
      std::vector<std::size_t> shape;
      if (!is_json_member(key) || !json_shape(value, shape)) continue;
      const std::string name = key;  // clang 14: a lambda cannot capture a structured binding
      auto s = std::find_if(stacks.begin(), stacks.end(), [&name](const Stack& x) { return x.name == name; });
      if (records == 0) {
        stacks.push_back({key, shape, {}});
        s = stacks.end() - 1;
      } else if (s == stacks.end()) {
        throw Error(where + " has " + key + ", which the first record has not");
      } else if (s->shape != shape) {
        throw Error(where + ": " + key + " has another shape than in the first record; diff stacks records into a "
                    "batch (encode with --seq-len to give them one length)");
      }
      json_values(value, shape, 0, s->values, where + ": " + key);
      ++found;
    }
    if (found != stacks.size()) throw Error(where + " lacks a tensor that the first record has");
    ++records;
  }
  for (Stack& s : stacks) {
    s.shape.insert(s.shape.begin(), records);
    add_json_tensor(side, s.name, std::nullopt, std::move(s.shape), std::move(s.values));
  }
}

// The parts of a complete run, as its manifest (the one parser, manifest.h)
// lists them, joined along the batch; per-position tensors kept once.
void read_parts_dir(Operand& side, const std::string& dir) {
  struct stat st{};
  const std::string manifest_path = dir + "/" + kManifest;
  if (::lstat(manifest_path.c_str(), &st) != 0) {
    throw Error(dir + " is not a parts directory: its manifest " + manifest_path + " is missing (" +
                std::strerror(errno) + ")");
  }
  const Manifest manifest = load_manifest(dir, "", "diff reads the parts directories embedpe encode writes");
  if (!manifest.complete) {
    throw Error(dir + " is an unfinished run (its manifest says it is not complete); finish it with encode --resume");
  }
  for (std::size_t i = 0; i < manifest.parts.size(); ++i) {
    const std::string path = dir + "/" + manifest.parts[i].file;
    Operand part;
    const std::string_view bytes = side.map(path);
    read_npz_file(part, bytes, path);
    for (auto& b : part.blobs) side.blobs.push_back(std::move(b));
    for (Tensor& t : part.tensors) {
      Tensor* into = nullptr;
      for (Tensor& x : side.tensors) {
        if (x.name == t.name) into = &x;
      }
      if (into == nullptr) {
        if (i != 0) throw Error(path + " has " + t.name + ", which the first part has not");
        side.tensors.push_back(std::move(t));
        continue;
      }
      if (per_position_tensor(t.name)) continue;
      if (t.shape.empty() || into->stored != t.stored ||
          !std::equal(t.shape.begin() + 1, t.shape.end(), into->shape.begin() + 1, into->shape.end())) {
        throw Error(path + ": " + t.name + " has another dtype or shape than in the first part");
      }
      into->shape[0] += t.shape[0];
      into->pieces.push_back(t.pieces[0]);
    }
  }
}

Operand read_side(const std::string& path) {
  Operand side;
  side.path = path;
  struct stat st{};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    read_parts_dir(side, path);
    return side;
  }
  const std::string ext = lower_extension(path);
  if (ext != ".npy" && ext != ".npz" && ext != ".safetensors" && ext != ".json" && ext != ".jsonl") {
    throw Error(path + ": diff reads .npy, .npz, .safetensors, .json, .jsonl or a parts directory");
  }
  if (ext == ".json") read_json_output(side, path);
  if (ext == ".jsonl") read_jsonl_output(side, path);
  if (ext == ".json" || ext == ".jsonl") return side;
  const std::string_view bytes = side.map(path);
  if (ext == ".npy") side.tensors.push_back(npy_tensor(bytes, stem(path), path));
  if (ext == ".npz") read_npz_file(side, bytes, path);
  if (ext == ".safetensors") read_safetensors_file(side, bytes, path);
  return side;
}

// ---------------------------------------------------------------- comparing

// The float format whose units in the last place count.
enum class Ulp { f16, bf16, f32, f64, integer };

int ulp_rank(std::optional<DType> dtype) {  // lower: less precise
  if (!dtype) return 3;  // unstated
  switch (*dtype) {
    case DType::float16: case DType::bfloat16: return 0;
    case DType::float32: return 1;
    case DType::float64: return 2;
    default: return 4;  // an integer or bool
  }
}

Ulp ulp_kind(std::optional<DType> a, std::optional<DType> b) {
  const std::optional<DType> d = ulp_rank(a) <= ulp_rank(b) ? a : b;
  if (d == DType::float16) return Ulp::f16;
  if (d == DType::bfloat16) return Ulp::bf16;
  if (d == DType::float32) return Ulp::f32;
  if (ulp_rank(d) == 4) return Ulp::integer;
  return Ulp::f64;
}

double ulp_distance(double a, double b, Ulp kind) {
  auto key16 = [](std::uint16_t h) { return h & 0x8000 ? -std::int64_t(h & 0x7fff) : std::int64_t(h); };
  switch (kind) {
    case Ulp::integer: return std::fabs(a - b);
    case Ulp::f16: return std::fabs(double(key16(float_to_half(float(a))) - key16(float_to_half(float(b)))));
    case Ulp::bf16:
      return std::fabs(double(key16(float_to_bfloat16(float(a))) - key16(float_to_bfloat16(float(b)))));
    case Ulp::f32: {
      auto key = [](float f) {
        const std::uint32_t u = float_to_bits(f);
        return u & 0x80000000u ? -std::int64_t(u & 0x7fffffffu) : std::int64_t(u);
      };
      return std::fabs(double(key(float(a)) - key(float(b))));
    }
    case Ulp::f64: {
      auto key = [](double d) {
        std::uint64_t u;
        std::memcpy(&u, &d, 8);
        return u >> 63 ? -std::int64_t(u & ~(std::uint64_t(1) << 63)) : std::int64_t(u);
      };
      const std::int64_t ka = key(a), kb = key(b);
      // Below 2^63 each: the difference of unsigned magnitudes is exact.
      const std::uint64_t d = (ka < 0) == (kb < 0) ? std::uint64_t(ka > kb ? ka - kb : kb - ka)
                                                   : std::uint64_t(ka < 0 ? -ka : ka) + std::uint64_t(kb < 0 ? -kb : kb);
      return double(d);
    }
  }
  return 0;
}

// One block's figures, merged in order.
struct Partial {
  std::size_t compared = 0, nan = 0, beyond = 0;
  double max_abs = -1, max_rel = 0, max_ulp = 0, sum_abs = 0;
  std::size_t max_abs_at = 0;
  double dot = 0, na = 0, nb = 0;
  double worst_cos = 2;
  std::size_t worst_cos_row = 0;
  std::size_t first_beyond = kMax;

  void merge(const Partial& o) {
    compared += o.compared;
    nan += o.nan;
    beyond += o.beyond;
    if (o.max_abs > max_abs) {
      max_abs = o.max_abs;
      max_abs_at = o.max_abs_at;
    }
    max_rel = std::max(max_rel, o.max_rel);
    max_ulp = std::max(max_ulp, o.max_ulp);
    sum_abs += o.sum_abs;
    dot += o.dot;
    na += o.na;
    nb += o.nb;
    if (o.worst_cos < worst_cos) {
      worst_cos = o.worst_cos;
      worst_cos_row = o.worst_cos_row;
    }
    first_beyond = std::min(first_beyond, o.first_beyond);
  }
};

double cosine(double dot, double na, double nb) {
  if (na == 0 && nb == 0) return 1;
  if (na == 0 || nb == 0) return 0;
  return dot / (std::sqrt(na) * std::sqrt(nb));
}

// Which positions count: attention_mask's, for a tensor whose shape begins with its shape.
struct Positions {
  std::vector<unsigned char> keep;  // (positions,); empty: all
  std::size_t inner = 1;            // elements per position
};

const Tensor* find_either(const Operand& a, const Operand& b, const std::string& name) {
  const Tensor* t = a.find(name);
  return t != nullptr ? t : b.find(name);
}

bool begins_with(const std::vector<std::size_t>& shape, const std::vector<std::size_t>& prefix) {
  return !prefix.empty() && shape.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), shape.begin());
}

std::vector<std::size_t> unravel(std::size_t flat, const std::vector<std::size_t>& shape) {
  std::vector<std::size_t> index(shape.size());
  for (std::size_t k = shape.size(); k-- > 0;) {
    index[k] = shape[k] == 0 ? 0 : flat % shape[k];
    flat = shape[k] == 0 ? flat : flat / shape[k];
  }
  return index;
}

// Which positions count for a tensor of `shape`: with ignore_padding,
// attention_mask's (A's, else B's) where the shape begins with the mask's.
Positions kept_positions(const Operand& sa, const Operand& sb, const std::vector<std::size_t>& shape,
                         const DiffOptions& o) {
  Positions pos;
  if (!o.ignore_padding) return pos;
  const Tensor* mask = find_either(sa, sb, "attention_mask");
  if (mask != nullptr && begins_with(shape, mask->shape)) {
    std::vector<double> m(mask->elements());
    mask->read(0, m.size(), m.data());
    pos.keep.resize(m.size());
    for (std::size_t i = 0; i < m.size(); ++i) pos.keep[i] = m[i] != 0;
    pos.inner = product(shape, mask->shape.size());
  }
  return pos;
}

// Sums over one row's finite pairs, for its cosine.
struct RowSums {
  double dot = 0, na = 0, nb = 0;
  std::size_t count = 0;
};

// One pair of values (element e) into the block's figures and its row's sums.
void compare_pair(double x, double y, std::size_t e, Ulp ulp, const DiffOptions& o, Partial& p, RowSums& row) {
  ++p.compared;
  if (std::isnan(x) || std::isnan(y)) {
    ++p.nan;
    if (!(o.equal_nan && std::isnan(x) && std::isnan(y))) {
      ++p.beyond;
      p.first_beyond = std::min(p.first_beyond, e);
    }
    return;
  }
  const double err = x == y ? 0.0 : std::fabs(x - y);
  const bool close = x == y || (std::isfinite(x) && std::isfinite(y) && err <= o.atol + o.rtol * std::fabs(y));
  if (!close) {
    ++p.beyond;
    p.first_beyond = std::min(p.first_beyond, e);
  }
  if (err > p.max_abs) {
    p.max_abs = err;
    p.max_abs_at = e;
  }
  p.sum_abs += err;
  const double rel = err == 0 ? 0.0 : (y == 0 || !std::isfinite(err)) ? INFINITY : err / std::fabs(y);
  p.max_rel = std::max(p.max_rel, rel);
  if (err != 0) p.max_ulp = std::max(p.max_ulp, ulp_distance(x, y, ulp));
  if (std::isfinite(x) && std::isfinite(y)) {
    row.dot += x * y;
    row.na += x * x;
    row.nb += y * y;
    ++row.count;
  }
}

// The figures of elements [e0, e1), whole rows of `row_len`.
void compare_block(const Tensor& a, const Tensor& b, std::size_t e0, std::size_t e1, std::size_t row_len,
                   const Positions& pos, Ulp ulp, const DiffOptions& o, Partial& p) {
  constexpr std::size_t kChunk = 4096;
  std::vector<double> va(kChunk), vb(kChunk);
  RowSums row;
  for (std::size_t c0 = e0; c0 < e1; c0 += kChunk) {
    const std::size_t k = std::min(kChunk, e1 - c0);
    a.read(c0, k, va.data());
    b.read(c0, k, vb.data());
    for (std::size_t i = 0; i < k; ++i) {
      const std::size_t e = c0 + i;
      if (pos.keep.empty() || pos.keep[e / pos.inner] != 0) compare_pair(va[i], vb[i], e, ulp, o, p, row);
      if ((e + 1) % row_len != 0) continue;
      if (row.count > 0) {  // a row ends
        const double c = cosine(row.dot, row.na, row.nb);
        if (c < p.worst_cos) {
          p.worst_cos = c;
          p.worst_cos_row = e / row_len;
        }
      }
      p.dot += row.dot;
      p.na += row.na;
      p.nb += row.nb;
      row = {};
    }
  }
}

// An element's index and values, and its token where a side has input_ids.
DiffPoint point_at(const Operand& sa, const Operand& sb, const Tensor& a, const Tensor& b, std::size_t e) {
  const Tensor* ids = find_either(sa, sb, "input_ids");
  DiffPoint pt;
  pt.index = unravel(e, a.shape);
  const std::vector<std::size_t>& shape = a.shape;
  a.read(e, 1, &pt.a);
  b.read(e, 1, &pt.b);
  if (ids != nullptr && begins_with(shape, ids->shape)) {
    double id = 0;
    ids->read(e / product(shape, ids->shape.size()), 1, &id);
    pt.token = static_cast<std::int64_t>(id);
  }
  return pt;
}

TensorDiff compare(const Operand& sa, const Operand& sb, const Tensor& a, const Tensor& b, const DiffOptions& o) {
  TensorDiff d;
  d.name_a = a.name;
  d.name_b = b.name;
  d.dtype_a = a.dtype;
  d.dtype_b = b.dtype;
  d.shape_a = a.shape;
  d.shape_b = b.shape;
  d.shape_differs = a.shape != b.shape;
  d.dtype_differs = a.dtype && b.dtype && *a.dtype != *b.dtype;
  if (d.shape_differs) return d;

  const std::vector<std::size_t>& shape = a.shape;
  const std::size_t n = a.elements();
  const std::size_t row_len = shape.empty() ? 1 : std::max<std::size_t>(1, shape.back());
  const std::size_t rows = shape.empty() || shape.back() == 0 ? (n == 0 ? 0 : 1) : n / row_len;
  const Positions pos = kept_positions(sa, sb, shape, o);
  const Ulp ulp = ulp_kind(a.dtype, b.dtype);
  // Blocks of whole rows, about 64K elements each.
  constexpr std::size_t kBlockElements = std::size_t(1) << 16;
  const std::size_t rows_per_block = std::max<std::size_t>(1, kBlockElements / row_len);
  const std::size_t blocks = rows == 0 ? 0 : (rows + rows_per_block - 1) / rows_per_block;
  std::vector<Partial> partials(blocks);
  const std::size_t threads = usable_threads(o.threads == 0 ? available_cores() : o.threads);
  parallel_for(blocks, threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t blk = begin; blk < end; ++blk) {
      const std::size_t e0 = blk * rows_per_block * row_len;
      const std::size_t e1 = std::min(n, (blk + 1) * rows_per_block * row_len);
      compare_block(a, b, e0, e1, row_len, pos, ulp, o, partials[blk]);
    }
  });
  Partial all;
  for (const Partial& p : partials) all.merge(p);

  d.compared = all.compared;
  d.nan = all.nan;
  d.beyond = all.beyond;
  d.max_abs = std::max(0.0, all.max_abs);
  d.max_rel = all.max_rel;
  d.max_ulp = all.max_ulp;
  const std::size_t numeric = all.compared - all.nan;
  d.mean_abs = numeric == 0 ? 0 : all.sum_abs / double(numeric);
  d.cosine = cosine(all.dot, all.na, all.nb);
  if (all.worst_cos <= 1.5) {
    d.worst_row_cosine = all.worst_cos;
    std::vector<std::size_t> row_shape(shape.begin(), shape.empty() ? shape.end() : shape.end() - 1);
    d.worst_row = unravel(all.worst_cos_row, row_shape);
  }
  if (all.first_beyond != kMax) d.first = point_at(sa, sb, a, b, all.first_beyond);
  if (all.max_abs > 0) d.worst = point_at(sa, sb, a, b, all.max_abs_at);
  return d;
}

// ---------------------------------------------------------------- reporting

std::string index_text(const std::vector<std::size_t>& index) {
  std::string s = "[";
  for (std::size_t k = 0; k < index.size(); ++k) s += (k ? ", " : "") + std::to_string(index[k]);
  return s + "]";
}

std::string number(double v, const char* format = "%.3g") {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

nlohmann::ordered_json json_number(double v) {
  if (std::isnan(v) || std::isinf(v)) return number(v);
  return v;
}

nlohmann::ordered_json point_json(const DiffPoint& p, const PieceFn& piece) {
  nlohmann::ordered_json j{{"index", p.index}, {"a", json_number(p.a)}, {"b", json_number(p.b)}};
  if (p.token) {
    j["token_id"] = *p.token;
    if (piece) j["piece"] = piece(*p.token);
  }
  return j;
}

std::string point_text(const std::optional<DiffPoint>& p, const PieceFn& piece) {
  if (!p) return "-";
  std::string s = index_text(p->index);
  if (p->token) {
    s += " id " + std::to_string(*p->token);
    if (piece) s += " '" + piece(*p->token) + "'";
  }
  return s;
}

nlohmann::ordered_json dtype_json(std::optional<DType> d) {
  return d ? nlohmann::ordered_json(dtype_name(*d)) : nlohmann::ordered_json();
}

std::string dtype_text(std::optional<DType> d) { return d ? dtype_name(*d) : "-"; }

std::string label(const TensorDiff& t) { return t.name_a == t.name_b ? t.name_a : t.name_a + "=" + t.name_b; }

}  // namespace

bool DiffReport::differs() const {
  if (!only_in_a.empty() || !only_in_b.empty()) return true;
  return std::any_of(tensors.begin(), tensors.end(), [](const TensorDiff& t) { return t.differs(); });
}

DiffReport diff_files(const std::string& a, const std::string& b, const DiffOptions& options) {
  if (!(options.atol >= 0) || !(options.rtol >= 0)) throw UsageError("atol and rtol must be 0 or more");
  const Operand sa = read_side(a), sb = read_side(b);
  DiffReport report;
  report.a = a;
  report.b = b;
  report.options = options;
  std::vector<std::pair<const Tensor*, const Tensor*>> pairs;
  if (!options.pairs.empty()) {
    for (const auto& [na, nb] : options.pairs) {
      const Tensor* ta = sa.find(na);
      const Tensor* tb = sb.find(nb);
      if (ta == nullptr) throw Error(a + " has no tensor " + na);
      if (tb == nullptr) throw Error(b + " has no tensor " + nb);
      pairs.emplace_back(ta, tb);
    }
  } else if (sa.tensors.size() == 1 && sb.tensors.size() == 1) {
    pairs.emplace_back(&sa.tensors[0], &sb.tensors[0]);
  } else {
    for (const Tensor& t : sa.tensors) {
      if (const Tensor* u = sb.find(t.name)) {
        pairs.emplace_back(&t, u);
      } else {
        report.only_in_a.push_back(t.name);
      }
    }
    for (const Tensor& t : sb.tensors) {
      if (sa.find(t.name) == nullptr) report.only_in_b.push_back(t.name);
    }
    if (pairs.empty()) {
      throw Error(a + " and " + b + " have no tensor name in common; pair them as A_NAME=B_NAME");
    }
  }
  for (const auto& [ta, tb] : pairs) report.tensors.push_back(compare(sa, sb, *ta, *tb, options));
  return report;
}

nlohmann::ordered_json diff_json(const DiffReport& r, const PieceFn& piece) {
  nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
  for (const TensorDiff& t : r.tensors) {
    nlohmann::ordered_json j{{"a", t.name_a},
                             {"b", t.name_b},
                             {"same", !t.differs()},
                             {"shape_a", t.shape_a},
                             {"shape_b", t.shape_b},
                             {"dtype_a", dtype_json(t.dtype_a)},
                             {"dtype_b", dtype_json(t.dtype_b)},
                             {"shape_differs", t.shape_differs},
                             {"dtype_differs", t.dtype_differs}};
    if (!t.shape_differs) {
      j["compared"] = t.compared;
      j["nan"] = t.nan;
      j["max_abs"] = json_number(t.max_abs);
      j["max_rel"] = json_number(t.max_rel);
      j["max_ulp"] = json_number(t.max_ulp);
      j["mean_abs"] = json_number(t.mean_abs);
      j["cosine"] = json_number(t.cosine);
      j["worst_row_cosine"] = json_number(t.worst_row_cosine);
      j["worst_row"] = t.worst_row;
      j["beyond"] = t.beyond;
      j["beyond_fraction"] = t.compared == 0 ? 0.0 : double(t.beyond) / double(t.compared);
      j["first"] = t.first ? point_json(*t.first, piece) : nlohmann::ordered_json();
      j["worst"] = t.worst ? point_json(*t.worst, piece) : nlohmann::ordered_json();
    }
    tensors.push_back(std::move(j));
  }
  return {{"a", r.a},
          {"b", r.b},
          {"atol", r.options.atol},
          {"rtol", r.options.rtol},
          {"equal_nan", r.options.equal_nan},
          {"ignore_padding", r.options.ignore_padding},
          {"same", !r.differs()},
          {"tensors", tensors},
          {"only_in_a", r.only_in_a},
          {"only_in_b", r.only_in_b}};
}

std::string diff_table(const DiffReport& r, const PieceFn& piece) {
  std::vector<std::vector<std::string>> rows{
      {"tensor", "shape", "dtype", "max_abs", "max_rel", "max_ulp", "mean_abs", "cosine", "worst_row", "beyond", "first",
       "worst"}};
  for (const TensorDiff& t : r.tensors) {
    const std::string dtype =
        t.dtype_a == t.dtype_b ? dtype_text(t.dtype_a) : dtype_text(t.dtype_a) + "/" + dtype_text(t.dtype_b);
    if (t.shape_differs) {
      rows.push_back({label(t), shape_text(t.shape_a) + "/" + shape_text(t.shape_b), dtype, "shapes differ"});
      continue;
    }
    const double fraction = t.compared == 0 ? 0.0 : 100.0 * double(t.beyond) / double(t.compared);
    std::string worst_row = number(t.worst_row_cosine, "%.6f");
    if (!t.worst_row.empty()) worst_row.append(" ").append(index_text(t.worst_row));
    rows.push_back({label(t), shape_text(t.shape_a), dtype, number(t.max_abs), number(t.max_rel),
                    number(t.max_ulp, "%.0f"), number(t.mean_abs), number(t.cosine, "%.6f"), worst_row,
                    std::to_string(t.beyond) + " (" + number(fraction, "%.3g") + "%)", point_text(t.first, piece),
                    point_text(t.worst, piece)});
  }
  std::vector<std::size_t> widths(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(widths[c] - row[c].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  for (const std::string& n : r.only_in_a) out += "only in " + r.a + ": " + n + "\n";
  for (const std::string& n : r.only_in_b) out += "only in " + r.b + ": " + n + "\n";
  std::size_t differ = 0;
  for (const TensorDiff& t : r.tensors) differ += t.differs();
  char tol[96];
  std::snprintf(tol, sizeof tol, "atol %g, rtol %g%s", r.options.atol, r.options.rtol,
                r.options.equal_nan ? ", NaN equal to NaN" : "");
  out += r.differs() ? std::to_string(differ) + " of " + std::to_string(r.tensors.size()) + " tensors differ (" + tol + ")\n"
                     : std::to_string(r.tensors.size()) + " tensors the same within " + tol + "\n";
  return out;
}

}  // namespace embedpe
