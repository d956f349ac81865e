#include "embedpe/id_rows.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/tensor_io.h"
#include "embedpe/text_input.h"
#include "embedpe/tokenizer.h"
#include "embedpe/weights.h"
#include "file_name.h"
#include "model_files.h"

namespace embedpe {
namespace {

// `text` through the one JSON reader (model_files.h: a key twice, or too deep, is not JSON),
// discarded when it refuses it: what these callers test for.
nlohmann::json json_or_discarded(std::string_view text) {
  std::optional<nlohmann::json> doc = parse_json(text);
  return doc ? std::move(*doc) : nlohmann::json(nlohmann::json::value_t::discarded);
}

// Where rows go, with the model they must have been made with.
struct Rows {
  const std::string& model_sha256;
  const IdRowFn& fn;

  // Rows of a (rows, cols) id matrix, keeping the positions whose mask is 1
  // (all of them without a mask).
  template <class Ids, class Mask>
  void put_rows(std::size_t rows, std::size_t cols, Ids ids, Mask mask, const std::string& source) const {
    std::vector<int> row;
    for (std::size_t r = 0; r < rows; ++r) {
      row.clear();
      const std::string origin = rows == 1 ? source : source + " row " + std::to_string(r);
      for (std::size_t c = 0; c < cols; ++c) {
        if (!mask(r, c)) continue;
        const std::int64_t id = ids(r, c);
        if (id < 0 || id > std::numeric_limits<int>::max()) {
          throw Error(origin + ": id " + std::to_string(id) + " is not a token id (0 to " +
                      std::to_string(std::numeric_limits<int>::max()) + ")");
        }
        row.push_back(static_cast<int>(id));
      }
      fn(row, origin);
    }
  }
};

std::string shown(std::string_view word) {
  if (word.size() <= 24) return std::string(word);
  // Cut between characters: half a UTF-8 sequence would show as stray bytes.
  std::size_t cut = 24;
  while (cut > 0 && (static_cast<unsigned char>(word[cut]) & 0xC0) == 0x80) --cut;
  return std::string(word.substr(0, cut)) + "... (" + std::to_string(word.size()) + " characters)";
}

bool blank_char(char c) { return c == ' ' || c == '\t'; }

// "1,262,2", "1 262 2" or "1, 262, 2": ids from 0 to 2^31-1, digits only.
// Commas separate fields, so an empty one ("1,,2", "1,2,") is refused rather
// than skipped: a lost id would shift every position after it.
std::vector<int> parse_id_text_in(std::string_view line, const std::string& origin) {
  std::vector<int> ids;
  auto fail = [&](const std::string& why) -> void {
    throw Error(origin + ": " + why, {}, {{0, origin.size()}});
  };
  const bool has_comma = line.find(',') != std::string_view::npos;
  std::size_t i = 0;
  for (;;) {
    const std::size_t comma = std::min(line.find(',', i), line.size());
    const std::string_view field = line.substr(i, comma - i);
    std::size_t words = 0;
    for (std::size_t k = 0; k < field.size();) {
      if (blank_char(field[k])) {
        ++k;
        continue;
      }
      std::size_t j = k;
      while (j < field.size() && !blank_char(field[j])) ++j;
      const std::string_view word = field.substr(k, j - k);
      int id = 0;
      const bool digits = std::all_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; });
      const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), id);
      if (!digits || ec != std::errc() || end != word.data() + word.size()) {
        fail("expected ids (whole numbers from 0 to " + std::to_string(std::numeric_limits<int>::max()) +
             ", no sign) separated by spaces or commas, not '" + shown(word) + "'");
      }
      ids.push_back(id);
      ++words;
      k = j;
    }
    if (words == 0 && has_comma) fail("an empty id between commas in '" + shown(line) + "'; write ids like 1,262,2");
    if (comma == line.size()) break;
    i = comma + 1;
  }
  return ids;
}

// Refuses an output whose config names a model other than the one ids are
// decoded with: its ids would mean other pieces.
void check_model(const Rows& d, const nlohmann::json& config, const std::string& source) {
  if (d.model_sha256.empty() || config.is_null()) return;
  if (!config.is_object()) {
    throw UsageError(source + "'s config is not a JSON object, so the model its ids belong to is unknown",
                     {}, {{0, source.size()}});
  }
  std::optional<ModelNamed> named;
  try {
    named = model_named_by(config);
  } catch (const UsageError& e) {
    throw UsageError(source + ": " + e.what(), {}, {{0, source.size()}});
  }
  // No model (ids given with no tokenizer): the one given is the caller's choice.
  if (!named || named->sha256 == d.model_sha256) return;
  throw UsageError(source + " was made with another model (" + named->source + ", SHA-256 " +
                       named->sha256.substr(0, 12) + "...); decode it with that model",
                   {}, {{0, source.size()}});
}

// An embedpe JSON document (encode's or tokenize's: input_ids,
// attention_mask, config), or one JSON Lines record.
void decode_json(Rows& d, const nlohmann::json& doc, const std::string& source) {
  if (!doc.is_object()) throw Error(source + " is not a JSON object with input_ids");
  if (const auto config = doc.find("config"); config != doc.end()) check_model(d, *config, source);
  auto id_of = [&](const nlohmann::json& v, const std::string& where) {
    if (!v.is_number_integer()) throw Error(where + ": ids must be whole numbers");
    return v.get<std::int64_t>();
  };
  const auto ids = doc.find("input_ids");
  if (ids == doc.end() || !ids->is_array()) {
    throw Error(source + " has no input_ids (emit input_ids when encoding, or tokenize)");
  }
  const auto mask = doc.find("attention_mask");
  const bool has_mask = mask != doc.end() && mask->is_array();
  const bool one_row = ids->empty() || !(*ids)[0].is_array();  // a JSON Lines record: one sequence
  const std::size_t rows = one_row ? 1 : ids->size();
  for (std::size_t r = 0; r < rows; ++r) {
    const auto& row = one_row ? *ids : (*ids)[r];
    const auto* mrow = has_mask ? (one_row ? &*mask : &(*mask)[r]) : nullptr;
    if (!row.is_array() || (mrow && (!mrow->is_array() || mrow->size() != row.size()))) {
      throw Error(source + ": input_ids and attention_mask do not have the same shape");
    }
    d.put_rows(1, row.size(), [&](std::size_t, std::size_t c) { return id_of(row[c], source); },
               [&](std::size_t, std::size_t c) { return !mrow || (*mrow)[c] != 0; },
               one_row ? source : source + " row " + std::to_string(r));
  }
}

// A tensor's int64 or int32 elements, little-endian.
struct IntTensor {
  const char* data = nullptr;
  int width = 8;
  std::vector<std::size_t> shape;

  std::int64_t at(std::size_t i) const {
    if (width == 4) {
      std::int32_t v;
      std::memcpy(&v, data + 4 * i, 4);
      return v;
    }
    std::int64_t v;
    std::memcpy(&v, data + 8 * i, 8);
    return v;
  }
};

void decode_tensors(Rows& d, const IntTensor& ids, const std::optional<IntTensor>& mask, const std::string& source) {
  if (ids.shape.empty() || ids.shape.size() > 2) {
    throw Error(source + ": input_ids has " + std::to_string(ids.shape.size()) + " dimensions, expected 1 or 2");
  }
  const std::size_t rows = ids.shape.size() == 2 ? ids.shape[0] : 1;
  const std::size_t cols = ids.shape.back();
  // Rows of no ids hold no bytes: a header could claim 2^40 of them.
  constexpr std::size_t kMaxEmptyRows = std::size_t(1) << 24;
  if (cols == 0 && rows > kMaxEmptyRows) {
    throw Error(source + " claims " + std::to_string(rows) + " rows of no ids; at most " +
                std::to_string(kMaxEmptyRows) + " are read");
  }
  if (mask && mask->shape != ids.shape) throw Error(source + ": attention_mask and input_ids differ in shape");
  d.put_rows(rows, cols, [&](std::size_t r, std::size_t c) { return ids.at(r * cols + c); },
             [&](std::size_t r, std::size_t c) { return !mask || mask->at(r * cols + c) != 0; }, source);
}

IntTensor npy_tensor(std::string_view npy, const std::string& source) {
  const NpyHeader h = parse_npy_header(npy, source);
  if (h.descr != "<i8" && h.descr != "<i4") {
    throw Error(source + " holds " + h.descr + " values; ids are int64 (<i8) or int32 (<i4)");
  }
  if (h.fortran_order && h.shape.size() > 1) {
    throw Error(source + " is a Fortran-ordered array; save the ids C-ordered: np.save(path, np.ascontiguousarray(ids))");
  }
  IntTensor t{npy.data() + h.data_offset, h.descr == "<i4" ? 4 : 8, h.shape};
  // Elements and rows counted without overflow (saturating): a header may
  // claim any shape, and only what the file holds is ever read.
  constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
  auto times = [](std::size_t a, std::size_t b) { return b != 0 && a > kMax / b ? kMax : a * b; };
  const std::size_t available = h.data_offset <= npy.size() ? (npy.size() - h.data_offset) / t.width : 0;
  std::size_t n = 1;
  for (std::size_t s : h.shape) n = times(n, s);
  if (n > available) throw Error(source + " is truncated: its data is shorter than its shape");
  return t;
}

void decode_binary(Rows& d, const std::string& path, const std::string& ext) {
  MappedFile file(path);
  const std::string_view bytes = file.bytes();
  if (ext == ".npy") {
    decode_tensors(d, npy_tensor(bytes, path), std::nullopt, path);
  } else if (ext == ".npz") {
    std::optional<IntTensor> ids, mask;
    const auto members = read_npz(bytes, path, {"input_ids", "attention_mask", "config"});
    for (const auto& m : members) {
      if (m.name == "config") {
        if (npy_holds_text(m.npy, path)) check_model(d, json_or_discarded(npy_text(m.npy, path)), path);
        continue;
      }
      (m.name == "input_ids" ? ids : mask) = npy_tensor(m.npy, path + ": " + m.name);
    }
    if (!ids) throw Error(path + " has no input_ids (emit input_ids when encoding)");
    decode_tensors(d, *ids, mask, path);
  } else {  // .safetensors
    const std::vector<SafetensorsEntry> tensors = read_safetensors_entries(bytes, path);  // checks the header's bounds
    // The run's config, stored as JSON text in __metadata__ (the safetensors sink).
    std::uint64_t header_size = 0;
    for (int i = 7; i >= 0; --i) header_size = (header_size << 8) | static_cast<unsigned char>(bytes[i]);
    const nlohmann::json header = json_or_discarded(bytes.substr(8, header_size));
    if (header.is_object() && header.contains("__metadata__") && header["__metadata__"].is_object()) {
      const auto& meta = header["__metadata__"];
      if (meta.contains("config") && meta["config"].is_string()) {
        check_model(d, json_or_discarded(meta["config"].get<std::string>()), path);
      }
    }
    std::optional<IntTensor> ids, mask;
    for (const auto& t : tensors) {
      if (t.name != "input_ids" && t.name != "attention_mask") continue;
      if (t.dtype != "I64" && t.dtype != "I32") {
        throw Error(path + ": " + t.name + " has dtype " + t.dtype + "; ids and masks are I64 or I32");
      }
      IntTensor it{bytes.data() + t.offset, t.dtype == "I32" ? 4 : 8, t.shape};
      std::size_t n = it.width;  // bytes the shape needs; an overflow cannot match the data's span
      bool overflow = false;
      for (std::size_t s : t.shape) {
        if (s != 0 && n > std::numeric_limits<std::size_t>::max() / s) overflow = true;
        n *= s;
      }
      if (overflow || n != t.size_bytes) {
        throw Error(path + ": " + t.name + "'s shape and dtype do not match its " + std::to_string(t.size_bytes) +
                    " bytes of data (corrupt file)");
      }
      (t.name == "input_ids" ? ids : mask) = it;
    }
    if (!ids) throw Error(path + " has no input_ids (emit input_ids when encoding)");
    decode_tensors(d, *ids, mask, path);
  }
}

// Lines of ids, or (when the first text starts with '{') a JSON document or
// JSON Lines records.
void decode_lines(Rows& d, const std::string& path, std::size_t max_line_bytes) {
  InputOptions options;
  options.max_line_bytes = max_line_bytes;
  LineReader reader({path}, options);
  std::vector<TextLine> lines = reader.next(1);
  if (lines.empty()) return;
  const std::string name = reader.display_name(0);
  if (const auto start = lines[0].text.find_first_not_of(" \t"); start != std::string::npos && lines[0].text[start] == '{') {
    std::string all;
    std::vector<TextLine> records;
    for (; !lines.empty(); lines = reader.next(1024)) {
      for (auto& l : lines) {
        all += l.text;
        all += '\n';
        records.push_back(std::move(l));
      }
    }
    if (const std::optional<nlohmann::json> doc = parse_json(all)) return decode_json(d, *doc, name);
    for (const TextLine& r : records) {  // JSON Lines
      if (r.text.find_first_not_of(" \t") == std::string::npos) continue;
      const std::string origin = reader.origin(r.source, r.line);
      const std::optional<nlohmann::json> rec = parse_json(r.text);
      if (!rec) throw Error(origin + " is not valid JSON");
      decode_json(d, *rec, origin);
    }
    return;
  }
  for (; !lines.empty(); lines = reader.next(1024)) {
    for (const TextLine& l : lines) {
      const std::string origin = reader.origin(l.source, l.line);
      d.fn(parse_id_text(l.text, origin), origin);
    }
  }
}

}  // namespace

std::vector<int> parse_id_text(std::string_view text, const std::string& origin) { return parse_id_text_in(text, origin); }

IdRecord parse_id_line(std::string_view text, const std::string& origin) {
  const std::size_t start = text.find_first_not_of(" \t");
  if (start == std::string_view::npos || text[start] != '{') return {parse_id_text_in(text, origin), std::nullopt};
  auto fail = [&](const std::string& why) -> Error { return Error(origin + ": " + why, {}, {{0, origin.size()}}); };
  // A record is flat: three arrays of numbers. Deeper nesting is refused
  // before it costs memory; a key given twice is ambiguous.
  constexpr int kDepth = 8;
  std::vector<std::vector<std::string>> keys;
  auto callback = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (depth > kDepth) throw fail("a JSON record nested deeper than " + std::to_string(kDepth) + " levels");
    if (event == E::object_start) keys.emplace_back();
    if (event == E::object_end && !keys.empty()) keys.pop_back();
    if (event == E::key && !keys.empty()) {
      const std::string key = parsed.get<std::string>();
      if (std::find(keys.back().begin(), keys.back().end(), key) != keys.back().end()) {
        throw fail("the key " + shown(nlohmann::json(key).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) +
                   " is given twice in one object; give it once");
      }
      keys.back().push_back(key);
    }
    return true;
  };
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text, callback);
  } catch (const nlohmann::json::exception&) {
    throw fail("not a valid JSON record (a line of input_format ids is ids such as 1,262,2, or one JSON object "
               "with input_ids)");
  }
  if (!doc.is_object()) throw fail("not a JSON object");
  const auto member = [&](const char* name) -> const nlohmann::json* {
    const auto it = doc.find(name);
    if (it == doc.end()) return nullptr;
    if (!it->is_array()) throw fail(std::string(name) + " is a JSON " + it->type_name() + ", not an array");
    return &*it;
  };
  const nlohmann::json* ids = member("input_ids");
  if (!ids) throw fail("the record has no input_ids");
  const nlohmann::json* mask = member("attention_mask");
  const nlohmann::json* types = member("token_type_ids");
  const auto values = [&](const nlohmann::json& array, const char* name, std::int64_t max) {
    std::vector<int> out;
    out.reserve(array.size());
    for (const auto& v : array) {
      if (v.is_array()) {
        throw fail(std::string(name) + " holds arrays, a batch: write each sequence as a line of its own");
      }
      const bool whole = v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
      if (!whole || v.get<std::uint64_t>() > static_cast<std::uint64_t>(max)) {
        throw fail(std::string(name) + " holds " + shown(v.dump()) + "; expected whole numbers from 0 to " +
                   std::to_string(max));
      }
      out.push_back(static_cast<int>(v.get<std::uint64_t>()));
    }
    return out;
  };
  constexpr std::int64_t kMaxId = std::numeric_limits<int>::max();
  std::vector<int> all = values(*ids, "input_ids", kMaxId);
  std::optional<std::vector<int>> all_types;
  if (types) all_types = values(*types, "token_type_ids", kMaxId);
  std::vector<int> keep(all.size(), 1);
  if (mask) keep = values(*mask, "attention_mask", 1);
  for (const auto& [name, size] : {std::pair{"attention_mask", keep.size()},
                                   {"token_type_ids", all_types ? all_types->size() : all.size()}}) {
    if (size != all.size()) {
      throw fail(std::string(name) + " has " + std::to_string(size) + " values and input_ids " +
                 std::to_string(all.size()) + "; they are one per token");
    }
  }
  // The mask's ones are one run: padding on the left, on the right, or none.
  const auto first = std::find(keep.begin(), keep.end(), 1);
  const auto last = std::find(keep.rbegin(), keep.rend(), 1).base();
  if (std::find(first, last, 0) != last) {
    throw fail("attention_mask has zeros between ones; padding is on one side of the tokens");
  }
  IdRecord r;
  const auto from = first - keep.begin(), to = last - keep.begin();
  r.ids.assign(all.begin() + from, all.begin() + std::max(from, to));
  if (all_types) r.token_type_ids.emplace(all_types->begin() + from, all_types->begin() + std::max(from, to));
  // All padding is an empty sequence, on either side.
  r.padded = !r.ids.empty() && r.ids.size() != all.size();
  r.padding_left = r.padded && from > 0;
  if (r.padded && from > 0 && to < static_cast<std::ptrdiff_t>(keep.size())) {
    throw fail("attention_mask has zeros on both sides of the tokens; padding is on one side");
  }
  return r;
}

std::optional<nlohmann::json> output_config(const std::string& path) {
  const std::string ext = path == "-" ? "" : lower_extension(path);
  if (ext != ".json" && ext != ".npz" && ext != ".safetensors") return std::nullopt;
  std::optional<MappedFile> file;
  try {
    file.emplace(path);
  } catch (const Error&) {
    return std::nullopt;  // reading it for its rows says what is wrong
  }
  const std::string_view bytes = file->bytes();
  nlohmann::json config;
  try {
    if (ext == ".json") {
      const nlohmann::json doc = json_or_discarded(bytes);
      if (doc.is_object() && doc.contains("config")) config = doc["config"];
    } else if (ext == ".npz") {
      const auto members = read_npz(bytes, path, {"config"});
      if (!members.empty()) {
        config = npy_holds_text(members[0].npy, path)
                     ? json_or_discarded(npy_text(members[0].npy, path))
                     : nlohmann::json(nlohmann::json::value_t::discarded);
      }
    } else {
      read_safetensors_entries(bytes, path);  // checks the header's bounds
      std::uint64_t header_size = 0;
      for (int i = 7; i >= 0; --i) header_size = (header_size << 8) | static_cast<unsigned char>(bytes[i]);
      const nlohmann::json header = json_or_discarded(bytes.substr(8, header_size));
      if (header.is_object() && header.contains("__metadata__") && header["__metadata__"].is_object() &&
          header["__metadata__"].contains("config")) {
        const nlohmann::json& text = header["__metadata__"]["config"];
        config = text.is_string() ? json_or_discarded(text.get<std::string>())
                                  : nlohmann::json(nlohmann::json::value_t::discarded);
      }
    }
  } catch (const Error&) {
    return std::nullopt;
  }
  if (config.is_null()) return std::nullopt;  // none
  if (!config.is_object()) {
    throw UsageError(path + " carries a config that is not a JSON object, so the model its ids belong to is unknown",
                     {}, {{0, path.size()}});
  }
  return config;
}

std::optional<ModelNamed> model_named_by(const nlohmann::json& config) {
  const auto model = config.find("model");
  if (model == config.end() || model->is_null()) return std::nullopt;
  auto refuse = [](const std::string& what) -> UsageError {
    return UsageError("its config's " + what + ", so the model its ids belong to is unknown");
  };
  if (!model->is_object()) throw refuse("model is a JSON " + std::string(model->type_name()) + ", not an object");
  const auto text = [&](const char* key, bool required) -> std::optional<std::string> {
    const auto it = model->find(key);
    if (it == model->end()) {
      if (required) throw refuse("model has no " + std::string(key));
      return std::nullopt;
    }
    if (!it->is_string()) {
      throw refuse("model." + std::string(key) + " is a JSON " + it->type_name() + ", not a string");
    }
    return it->get<std::string>();
  };
  ModelNamed named{*text("source", true), *text("sha256", true), text("tokenizer_class", false).has_value()};
  const bool hex = named.sha256.size() == 64 && named.sha256.find_first_not_of("0123456789abcdef") == std::string::npos;
  if (!hex) throw refuse("model.sha256 is not a SHA-256 (64 lowercase hex digits)");
  if (named.source.empty() || named.source.find('\0') != std::string::npos) {
    throw refuse("model.source is not a path");
  }
  return named;
}

void read_id_rows(const std::string& path, const std::string& model_sha256, const IdRowFn& row) {
  Rows d{model_sha256, row};
  const std::string ext = path == "-" ? "" : lower_extension(path);
  if (ext == ".npy" || ext == ".npz" || ext == ".safetensors") {
    decode_binary(d, path, ext);
  } else {
    decode_lines(d, path, InputOptions::kDefaultMaxLineBytes);
  }
}

void decode_to(const Tokenizer& tokenizer, const std::vector<std::string>& given, const std::string& label,
               const std::vector<std::string>& files, const std::string& output, bool skip_special_tokens) {
  OutputFile out(output);
  auto put = [&](const std::vector<int>& ids, const std::string& origin) {
    tokenizer.check_ids(ids, origin);  // naming the line
    std::string text;
    try {
      text = tokenizer.decode(ids, skip_special_tokens);
    } catch (const Error& e) {
      throw Error(origin + ": " + e.what());
    }
    out.write(text + '\n');
  };
  for (std::size_t i = 0; i < given.size(); ++i) {
    const std::string origin = label + " " + std::to_string(i + 1);
    put(parse_id_text(given[i], origin), origin);
  }
  for (const std::string& path : files) read_id_rows(path, tokenizer.sha256(), put);
  out.commit();
}

}  // namespace embedpe
