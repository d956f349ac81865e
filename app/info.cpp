// embedpe info: what a SentencePiece model and a weight file hold.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <utility>
#include <memory>
#include <optional>
#include <string>

#include "clikit/usage.h"
#include "commands.h"
#include "common.h"
#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/pretrained_model.h"
#include "embedpe/pretrained_tokenizer.h"
#include "embedpe/report.h"
#include "embedpe/weights.h"
#include "layer_flags.h"

namespace embedpe::cli {
namespace {

struct InfoCommand {
  std::string model;
  std::string weights;
  std::string pretrained;
  ReportFormat format = ReportFormat::text;
};

// A word of a command line as a POSIX shell reads it back.
std::string shell_word(const std::string& word) {
  const bool plain = !word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                             "0123456789_-+=.,:/@%") == std::string::npos;
  if (plain) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The flags of parameters (snake_case) as the command line spells them.
std::string flags_text(const std::vector<std::pair<std::string, std::string>>& parameters) {
  std::string text;
  for (const auto& [name, value] : parameters) {
    std::string flag = "--" + name;
    std::replace(flag.begin(), flag.end(), '_', '-');
    text += (text.empty() ? "" : " ") + flag + (value.empty() ? "" : " " + shell_word(value));
  }
  return text;
}

// Bytes of one element of a safetensors dtype ("F32": 4); 0 for one not known.
std::size_t dtype_bytes(const std::string& dtype) {
  for (const auto& [name, size] : {std::pair<const char*, std::size_t>{"F64", 8}, {"I64", 8}, {"U64", 8},
                                   {"F32", 4}, {"I32", 4}, {"U32", 4}, {"F16", 2}, {"BF16", 2}, {"I16", 2},
                                   {"U16", 2}, {"I8", 1}, {"U8", 1}, {"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1}}) {
    if (dtype == name) return size;
  }
  return 0;
}

// "1.3 GiB", "512 KiB", "100 bytes".
std::string byte_text(std::size_t bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  std::size_t u = 0;
  while (v >= 1024 && u + 1 < std::size(units)) {
    v /= 1024;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return text;
}

nlohmann::ordered_json tensor_json(const PretrainedTensor& t) {
  nlohmann::ordered_json j = {{"name", t.name}, {"file", t.file}};
  if (!t.role.empty()) j["role"] = t.role;
  if (!t.dtype.empty()) j["dtype"] = t.dtype;
  if (!t.dtype.empty()) j["shape"] = t.shape;
  return j;
}

// info --pretrained DIR: what was understood of the model directory.
std::string pretrained_report(const PretrainedModel& m, ReportFormat format) {
  if (format == ReportFormat::json) {
    nlohmann::ordered_json j = {{"pretrained", m.dir},
                                {"model_type", m.model_type},
                                {"architecture", m.architecture},
                                {"input_layer", m.description},
                                {"hidden_size", m.hidden_size},
                                {"vocab_size", m.vocab_size},
                                {"max_positions", m.max_positions ? nlohmann::ordered_json(*m.max_positions) : nullptr},
                                {"torch_dtype", m.torch_dtype}};
    j["used"] = nlohmann::ordered_json::array();
    for (const auto& t : m.used) j["used"].push_back(tensor_json(t));
    j["parameters"] = m.parameters;
    j["flags"] = flags_text(m.parameters);
    if (!m.rope.empty()) j["rope"] = m.rope;
    j["unused"] = nlohmann::ordered_json::array();
    for (const auto& t : m.unused) j["unused"].push_back(tensor_json(t));
    return j.dump(2) + "\n";
  }
  std::string text = "model directory: " + m.dir + "\n";
  text += "model_type: " + m.model_type + (m.architecture.empty() ? " (no architectures: base model names)" : "") + "\n";
  if (!m.architecture.empty()) text += "architecture: " + m.architecture + "\n";
  text += "input layer: " + m.description + "\n";
  text += "hidden_size: " + std::to_string(m.hidden_size) + ", vocab_size: " + std::to_string(m.vocab_size) +
          ", positions: " + (m.max_positions ? std::to_string(*m.max_positions) : std::string("no bound")) + "\n";
  if (!m.torch_dtype.empty()) text += "torch_dtype: " + m.torch_dtype + " (computed in float32, as from_pretrained)\n";
  text += "tensors used:\n";
  for (const auto& t : m.used) {
    text += "  " + t.role + ": " + t.name + " " + shape_text(t.shape) + " " + t.dtype + " in " + t.file + "\n";
  }
  text += "equivalent flags: " + flags_text(m.parameters) + "\n";
  if (!m.rope.empty()) text += "RoPE (inside attention): " + flags_text(m.rope) + "\n";
  // A summary: a 7B checkpoint has hundreds (--format json lists every one).
  std::size_t bytes = 0, unopened = 0;
  for (const auto& t : m.unused) {
    if (t.dtype.empty()) {
      ++unopened;
      continue;
    }
    std::size_t size = dtype_bytes(t.dtype);
    for (std::size_t n : t.shape) size *= n;
    bytes += size;
  }
  text += "tensors the input layer does not use: " + std::to_string(m.unused.size());
  if (!m.unused.empty()) {
    text += " (" + byte_text(bytes) + (unopened ? ", and " + std::to_string(unopened) + " in shards not opened" : "") +
            "; --format json lists them all)";
  }
  text += "\n";
  constexpr std::size_t kShown = 5;
  for (std::size_t i = 0; i < m.unused.size() && i < kShown; ++i) {
    const auto& t = m.unused[i];
    text += "  " + t.name + (t.dtype.empty() ? " (in " + t.file + ", not opened)" : " " + shape_text(t.shape) + " " + t.dtype) +
            "\n";
  }
  if (m.unused.size() > kShown) text += "  ... and " + std::to_string(m.unused.size() - kShown) + " more\n";
  return text;
}

bool is_tokenizer_json_file(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
}

// The tokenizer.json of `path` (a file, or a directory's): its model and components,
// after `report` (a directory's own report, "" for a file).
std::string tokenizer_json_report(const std::string& path, std::string report, ReportFormat format) {
  const Tokenizer tokenizer = load_pretrained_tokenizer(path);
  const PretrainedTokenizerInfo& p = *tokenizer.info().pretrained;
  if (format == ReportFormat::json) {
    nlohmann::ordered_json j = report.empty() ? nlohmann::ordered_json{{"pretrained", path}}
                                              : nlohmann::ordered_json::parse(report);
    j["tokenizer"] = {{"format", "tokenizer.json"}, {"components", p.description},
                      {"tokenizer_class", p.tokenizer_class}, {"vocab_size", tokenizer.info().vocab_size}};
    return j.dump(2) + "\n";
  }
  if (report.empty()) report = "tokenizer.json: " + path + "\n";
  return report + "tokenizer: " + p.description + "; " + p.tokenizer_class + ", " +
         std::to_string(tokenizer.info().vocab_size) + " ids\n";
}

void run_info(const InfoCommand& cmd) {
  if (!cmd.pretrained.empty()) {
    if (!cmd.model.empty() || !cmd.weights.empty()) {
      throw UsageError("--pretrained describes a model directory; --model and --weights describe single files: "
                       "give one or the other");
    }
    std::string text;
    if (is_gguf_file(cmd.pretrained)) {
      text = gguf_report(cmd.pretrained, cmd.format);
    } else if (is_tokenizer_json_file(cmd.pretrained)) {
      text = tokenizer_json_report(cmd.pretrained, "", cmd.format);  // a tokenizer.json alone: no layer
    } else {
      text = pretrained_report(read_pretrained_model(cmd.pretrained), cmd.format);
      if (std::filesystem::exists(std::filesystem::path(cmd.pretrained) / "tokenizer.json")) {
        text = tokenizer_json_report(cmd.pretrained, text, cmd.format);
      }
    }
    OutputFile out("-");
    out.write(text);
    out.commit();
    return;
  }
  refuse_outputs_over_inputs({"-"}, {{"--model", cmd.model}, {"--weights", cmd.weights}});
  // The default model when nothing is named.
  std::optional<Tokenizer> model;
  if (!cmd.model.empty() || cmd.weights.empty()) model = load_tokenizer(cmd.model);
  const std::shared_ptr<const WeightFile> weights = cmd.weights.empty() ? nullptr : WeightFile::open(cmd.weights);
  const std::string text = info_report(model ? &*model : nullptr, weights.get(), cmd.weights, cmd.format);
  OutputFile out("-");
  out.write(text);
  out.commit();
}

}  // namespace

void setup_info(CLI::App& app) {
  auto cmd = std::make_shared<InfoCommand>();
  auto* sub = app.add_subcommand("info", "What a SentencePiece model (vocabulary, special ids, type, SHA-256) or a "
                                         "weight file (tensors, shapes, dtypes) holds");
  option_group(*sub, kInputGroup);
  add_model_option(*sub, cmd->model);
  sub->add_option("--weights", cmd->weights, "A .npy or .safetensors file: list its tensors")->type_name("PATH")
      ->check(non_empty_path());
  add_pretrained_option(*sub, cmd->pretrained,
                        "A Hugging Face model directory: its architecture, the tensors its input layer uses, the "
                        "equivalent flags, and the tensors it does not use; or a GGUF file: its metadata, tokenizer, "
                        "tensors (type, shape, bytes) and token_embd's bits per weight");
  option_group(*sub, kOutputGroup);
  add_choice<ReportFormat>(*sub, "--format", [cmd](ReportFormat f) { cmd->format = f; },
                           {{"text", ReportFormat::text}, {"json", ReportFormat::json}}, "text or json", "text");
  clikit::set_examples(*sub, {
                       "embedpe info",
                       "embedpe info --model llama2-tokenizer.model",
                       "embedpe info --weights model.safetensors",
                       "embedpe info --pretrained xlm-roberta-base",
                       "embedpe info --pretrained llama-2-7b.Q4_K_M.gguf --format json"});
  sub->callback([cmd] { run_info(*cmd); });
}

}  // namespace embedpe::cli
