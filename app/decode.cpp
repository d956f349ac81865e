// embedpe decode: ids → text with the same model, the inverse of tokenize.
//
//   embedpe decode --ids 1,262,6523,920,2             one sequence per --ids
//   embedpe tokenize --format ids a.txt | embedpe decode   lines of ids (spm_decode's input)
//   embedpe decode out.npz                            an embedpe output: input_ids, padding dropped
//
// A FILE named .json, .jsonl, .npy, .npz or .safetensors is read as an embedpe
// output (input_ids, and attention_mask to drop padding). Any other file, and
// standard input, holds one sequence per line as ids separated by spaces or
// commas; input that starts with '{' is read as JSON or JSON Lines instead.
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "common.h"
#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/tensor_io.h"
#include "embedpe/text_input.h"
#include "embedpe/weights.h"

namespace embedpe::cli {
namespace {

struct DecodeCommand {
  std::vector<std::string> ids;    // --ids, repeatable
  std::vector<std::string> files;  // FILE...; "-" is standard input
  std::string model;
  std::string output = "-";
};

class Decoder {
 public:
  Decoder(const Tokenizer& tokenizer, OutputFile& out) : tokenizer_(tokenizer), out_(out) {}

  // One sequence; `origin` names it in errors ("a.txt:3", "--ids #2").
  void put(const std::vector<int>& ids, const std::string& origin) {
    std::string text;
    try {
      text = tokenizer_.decode(ids);
    } catch (const Error& e) {
      throw Error(origin + ": " + e.what());
    }
    text += '\n';
    out_.write(text);
  }

  // Rows of a (rows, cols) id matrix, keeping the positions whose mask is 1
  // (all of them without a mask). `at(r, c)` reads one element.
  template <class Ids, class Mask>
  void put_rows(std::size_t rows, std::size_t cols, Ids ids, Mask mask, const std::string& source) {
    std::vector<int> row;
    for (std::size_t r = 0; r < rows; ++r) {
      row.clear();
      for (std::size_t c = 0; c < cols; ++c) {
        if (!mask(r, c)) continue;
        const std::int64_t id = ids(r, c);
        if (id < 0 || id > std::numeric_limits<int>::max()) {
          throw Error(source + " row " + std::to_string(r) + ": id " + std::to_string(id) +
                      " is outside the model's vocabulary (0 to " + std::to_string(tokenizer_.info().vocab_size - 1) +
                      ")");
        }
        row.push_back(static_cast<int>(id));
      }
      put(row, source + " row " + std::to_string(r));
    }
  }

  const Tokenizer& tokenizer() const { return tokenizer_; }

 private:
  const Tokenizer& tokenizer_;
  OutputFile& out_;
};

// "1,262,2" or "1 262 2": ids from 0 to 2^31-1.
std::vector<int> parse_id_line(std::string_view line, const std::string& origin) {
  std::vector<int> ids;
  std::size_t i = 0;
  auto separator = [](char c) { return c == ' ' || c == '\t' || c == ','; };
  while (i < line.size()) {
    while (i < line.size() && separator(line[i])) ++i;
    if (i == line.size()) break;
    std::size_t j = i;
    while (j < line.size() && !separator(line[j])) ++j;
    const std::string_view word = line.substr(i, j - i);
    const auto id = try_parse_number<int>(word, {0, std::numeric_limits<int>::max()});
    if (!id) {
      throw UsageError(origin + ": expected ids (whole numbers from 0 to " +
                       std::to_string(std::numeric_limits<int>::max()) + ") separated by spaces or commas, not '" +
                       echo_value(word) + "'");
    }
    ids.push_back(*id);
    i = j;
  }
  return ids;
}

// An embedpe JSON document (encode's or tokenize's: input_ids,
// attention_mask, config), or one JSON Lines record.
void decode_json(Decoder& d, const nlohmann::json& doc, const std::string& source) {
  if (!doc.is_object()) throw Error(source + " is not a JSON object with input_ids");
  if (const auto config = doc.find("config"); config != doc.end() && config->is_object()) {
    const auto model = config->find("model");
    if (model != config->end() && model->is_object() && model->contains("sha256") &&
        (*model)["sha256"] != d.tokenizer().sha256()) {
      const std::string was = (*model).value("source", std::string("another model"));
      throw UsageError(source + " was made with another model (" + was + ", SHA-256 " +
                       (*model)["sha256"].get<std::string>().substr(0, 12) + "...); give that model with --model");
    }
  }
  auto id_of = [&](const nlohmann::json& v, const std::string& where) {
    if (!v.is_number_integer()) throw Error(where + ": ids must be whole numbers");
    return v.get<std::int64_t>();
  };
  const auto ids = doc.find("input_ids");
  if (ids == doc.end() || !ids->is_array()) {
    throw Error(source + " has no input_ids (encode with --emit input_ids, or tokenize)");
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

void decode_tensors(Decoder& d, const IntTensor& ids, const std::optional<IntTensor>& mask, const std::string& source) {
  if (ids.shape.empty() || ids.shape.size() > 2) {
    throw Error(source + ": input_ids has " + std::to_string(ids.shape.size()) + " dimensions, expected 1 or 2");
  }
  const std::size_t rows = ids.shape.size() == 2 ? ids.shape[0] : 1;
  const std::size_t cols = ids.shape.back();
  if (mask && mask->shape != ids.shape) throw Error(source + ": attention_mask and input_ids differ in shape");
  d.put_rows(rows, cols, [&](std::size_t r, std::size_t c) { return ids.at(r * cols + c); },
             [&](std::size_t r, std::size_t c) { return !mask || mask->at(r * cols + c) != 0; }, source);
}

IntTensor npy_tensor(std::string_view npy, const std::string& source) {
  const NpyHeader h = parse_npy_header(npy, source);
  if ((h.descr != "<i8" && h.descr != "<i4") || h.fortran_order) {
    throw Error(source + " holds " + h.descr + " values; ids are int64 (<i8) or int32 (<i4)");
  }
  IntTensor t{npy.data() + h.data_offset, h.descr == "<i4" ? 4 : 8, h.shape};
  std::size_t n = 1;
  for (std::size_t s : h.shape) n *= s;
  if (n > (npy.size() - h.data_offset) / static_cast<std::size_t>(t.width)) {
    throw Error(source + " is truncated: its data is shorter than its shape");
  }
  return t;
}

std::string lower_extension(const std::string& path) {
  const std::size_t slash = path.rfind('/'), dot = path.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

void decode_binary(Decoder& d, const std::string& path, const std::string& ext) {
  MappedFile file(path);
  const std::string_view bytes = file.bytes();
  if (ext == ".npy") {
    decode_tensors(d, npy_tensor(bytes, path), std::nullopt, path);
  } else if (ext == ".npz") {
    std::optional<IntTensor> ids, mask;
    const auto members = read_npz(bytes, path, {"input_ids", "attention_mask"});
    for (const auto& m : members) {
      (m.name == "input_ids" ? ids : mask) = npy_tensor(m.npy, path + ": " + m.name);
    }
    if (!ids) throw Error(path + " has no input_ids (encode with --emit input_ids)");
    decode_tensors(d, *ids, mask, path);
  } else {  // .safetensors
    WeightFormat format;
    const std::vector<WeightTensor> tensors = parse_weight_header(bytes, path, format);
    std::optional<IntTensor> ids, mask;
    for (const auto& t : tensors) {
      if (t.name != "input_ids" && t.name != "attention_mask") continue;
      if (t.dtype != DType::int64) throw Error(path + ": " + t.name + " is not int64");
      (t.name == "input_ids" ? ids : mask) = IntTensor{bytes.data() + t.offset, 8, t.shape};
    }
    if (!ids) throw Error(path + " has no input_ids (encode with --emit input_ids)");
    decode_tensors(d, *ids, mask, path);
  }
}

// Lines of ids, or (when the first text starts with '{') a JSON document or
// JSON Lines records.
void decode_lines(Decoder& d, const std::string& path, std::size_t max_line_bytes) {
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
    nlohmann::json doc = nlohmann::json::parse(all, nullptr, false);
    if (!doc.is_discarded()) return decode_json(d, doc, name);
    for (const TextLine& r : records) {  // JSON Lines
      if (r.text.find_first_not_of(" \t") == std::string::npos) continue;
      const std::string origin = name + ":" + std::to_string(r.line);
      nlohmann::json rec = nlohmann::json::parse(r.text, nullptr, false);
      if (rec.is_discarded()) throw Error(origin + " is not valid JSON");
      decode_json(d, rec, origin);
    }
    return;
  }
  for (; !lines.empty(); lines = reader.next(1024)) {
    for (const TextLine& l : lines) {
      const std::string origin = name + ":" + std::to_string(l.line);
      d.put(parse_id_line(l.text, origin), origin);
    }
  }
}

void run_decode(DecodeCommand cmd) {
  if (cmd.ids.empty() && cmd.files.empty()) {
    if (::isatty(STDIN_FILENO)) {
      throw UsageError("nothing to decode: give --ids 1,262,2, a FILE, or pipe ids into standard input");
    }
    cmd.files.push_back("-");
  }
  std::vector<std::pair<std::string, std::string>> inputs;
  for (const auto& f : cmd.files) inputs.emplace_back("FILE", f);
  inputs.emplace_back("--model", cmd.model);
  refuse_outputs_over_inputs({cmd.output}, inputs);
  const Tokenizer tokenizer = load_tokenizer(cmd.model);
  OutputFile out(cmd.output);
  Decoder d(tokenizer, out);
  for (std::size_t i = 0; i < cmd.ids.size(); ++i) {
    const std::string origin = "--ids #" + std::to_string(i + 1);
    d.put(parse_id_line(cmd.ids[i], origin), origin);
  }
  for (const std::string& path : cmd.files) {
    const std::string ext = path == "-" ? "" : lower_extension(path);
    if (ext == ".npy" || ext == ".npz" || ext == ".safetensors") {
      decode_binary(d, path, ext);
    } else {
      decode_lines(d, path, InputOptions::kDefaultMaxLineBytes);
    }
  }
  out.commit();
}

}  // namespace

void setup_decode(CLI::App& app) {
  auto cmd = std::make_shared<DecodeCommand>();
  auto* sub = app.add_subcommand("decode", "Token ids → text with the same model (the inverse of tokenize)");
  sub->add_option("FILE", cmd->files,
                  "Lines of ids (spaces or commas; - or none: standard input), or an embedpe output "
                  "(.json, .jsonl, .npy, .npz, .safetensors: input_ids, padding dropped by attention_mask)")
      ->type_name("FILE")
      ->check(non_empty_path());
  sub->add_option("--ids", cmd->ids, "One sequence of ids, e.g. 1,262,2 (repeat for several)")
      ->type_name("IDS")
      ->allow_extra_args(false);
  add_model_option(*sub, cmd->model);
  add_output_option(*sub, cmd->output);
  sub->callback([cmd] { run_decode(*cmd); });
}

}  // namespace embedpe::cli
