// embedpe info: what a SentencePiece model and a weight file hold.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "clikit/usage.h"
#include "commands.h"
#include "common.h"
#include "embedpe/encoder.h"
#include "embedpe/error.h"
#include "embedpe/output_file.h"
#include "embedpe/projection.h"
#include "embedpe/weights.h"

namespace embedpe::cli {
namespace {

enum class InfoFormat { text, json };

struct InfoCommand {
  std::string model;
  std::string weights;
  InfoFormat format = InfoFormat::text;
};

std::string special(const Tokenizer& tok, int id) {
  if (id < 0) return "-1 (none)";
  return std::to_string(id) + "  " + std::string(tok.id_to_piece(id));
}

void row(std::string& text, const char* key, const std::string& value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%-14s", key);
  text += buf + value + "\n";
}

// Which tensor encode would take for `names`, or "" (none or ambiguous).
std::string usual(const WeightFile& file, const std::vector<std::string_view>& names) {
  const WeightTensor* t = find_usual(file, names);
  return t ? t->name : "";
}

void model_info(const Tokenizer& tok, InfoFormat format, std::string& text, nlohmann::ordered_json& doc) {
  const ModelInfo& info = tok.info();
  if (format == InfoFormat::json) {
    nlohmann::ordered_json m = model_config(tok);
    m["normalizer"] = info.normalizer;
    m["byte_fallback"] = info.byte_fallback;
    m["size_bytes"] = info.size_bytes;
    doc["model"] = m;
    return;
  }
  row(text, "model", info.source);
  row(text, "sha256", tok.sha256());
  row(text, "size", std::to_string(info.size_bytes) + " bytes");
  row(text, "type", info.model_type);
  row(text, "normalizer", info.normalizer.empty() ? "(none)" : info.normalizer);
  row(text, "byte_fallback", info.byte_fallback ? "yes" : "no");
  row(text, "vocab_size", std::to_string(info.vocab_size));
  row(text, "pad_id", special(tok, info.pad_id));
  row(text, "bos_id", special(tok, info.bos_id));
  row(text, "eos_id", special(tok, info.eos_id));
  row(text, "unk_id", special(tok, info.unk_id));
}

void weights_info(const std::string& path, InfoFormat format, std::string& text, nlohmann::ordered_json& doc) {
  auto file = WeightFile::open(path);
  const char* kind = file->format() == WeightFormat::npy ? "npy" : "safetensors";
  const std::string emb = file->format() == WeightFormat::npy ? "(the array)" : usual(*file, kEmbeddingNames);
  const std::string pos = file->format() == WeightFormat::npy ? "" : usual(*file, kPositionNames);
  const WeightTying tying = weight_tying(*file);
  std::string tied;  // "yes: lm_head.weight has the same bytes; no: output.weight differs"
  nlohmann::ordered_json projections = nlohmann::ordered_json::array();
  for (const auto& p : tying.projections) {
    tied += (tied.empty() ? "" : "; ") + std::string(p.same_bytes ? "yes: " : "no: ") + p.tensor->name +
            (p.same_bytes ? " has the same bytes" : " differs");
    projections.push_back({{"name", p.tensor->name}, {"tied", p.same_bytes}});
  }
  if (tying.embedding && tied.empty()) tied = "no output projection stored (a tied model may store it once)";
  const bool any_tied = std::any_of(tying.projections.begin(), tying.projections.end(),
                                    [](const auto& p) { return p.same_bytes; });
  const std::optional<StoredFactorization> factorized = stored_factorization(*file);
  if (format == InfoFormat::json) {
    nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
    for (const auto& t : file->tensors()) {
      tensors.push_back({{"name", t.name}, {"shape", t.shape}, {"dtype", dtype_info(t.dtype).safetensors},
                         {"bytes", t.size_bytes}});
    }
    doc["weights"] = {{"path", path}, {"format", kind}, {"size_bytes", file->file_size()}, {"tensors", tensors},
                      {"token_embedding", emb}, {"position_embedding", pos},
                      {"output_projections", projections},
                      {"tied", projections.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(any_tied)}};
    if (factorized) {
      const auto& f = *factorized;
      doc["weights"]["factorized"] = {
          {"table", f.table->name}, {"projection", f.weight->name},
          {"bias", f.bias ? nlohmann::ordered_json(f.bias->name) : nlohmann::ordered_json()},
          {"embedding_size", f.embedding_size}, {"d_model", f.d_model}, {"bytes", f.bytes},
          {"full_table_bytes", f.full_bytes},
          {"saved_bytes", static_cast<std::int64_t>(f.full_bytes) - static_cast<std::int64_t>(f.bytes)}};
    }
    return;
  }
  if (!text.empty()) text += "\n";
  row(text, "weights", path + " (" + kind + ", " + std::to_string(file->file_size()) + " bytes)");
  row(text, "embedding", emb.empty() ? "(none or several usual names; give PATH:TENSOR)" : emb);
  if (!pos.empty()) row(text, "positions", pos);
  if (!tied.empty()) row(text, "tied", tied);
  if (factorized) {
    const auto& f = *factorized;
    char saved[256];
    std::snprintf(saved, sizeof saved, "%zu bytes for the (%zu, %zu) table and the projection to %zu, against %zu "
                  "for a (%zu, %zu) table: ",
                  f.bytes, f.vocab, f.embedding_size, f.d_model, f.full_bytes, f.vocab, f.d_model);
    std::string line = saved;
    if (f.bytes < f.full_bytes) {
      std::snprintf(saved, sizeof saved, "%.1f%% saved",
                    100.0 * static_cast<double>(f.full_bytes - f.bytes) / static_cast<double>(f.full_bytes));
      line += saved;
    } else {
      line += "nothing saved (E is not below d_model)";
    }
    row(text, "factorized", line);
  }
  for (const auto& t : file->tensors()) {
    std::string shape = "(";
    for (std::size_t i = 0; i < t.shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(t.shape[i]);
    shape += t.shape.size() == 1 ? ",)" : ")";
    char line[512];
    std::snprintf(line, sizeof line, "  %-40s %-16s %-5s %zu bytes\n", t.name.empty() ? "(array)" : t.name.c_str(),
                  shape.c_str(), dtype_info(t.dtype).safetensors, t.size_bytes);
    text += line;
  }
}

void run_info(const InfoCommand& cmd) {
  refuse_outputs_over_inputs({"-"}, {{"--model", cmd.model}, {"--weights", cmd.weights}});
  std::string text;
  nlohmann::ordered_json doc = nlohmann::ordered_json::object();
  if (!cmd.model.empty() || cmd.weights.empty()) model_info(load_tokenizer(cmd.model), cmd.format, text, doc);
  if (!cmd.weights.empty()) weights_info(cmd.weights, cmd.format, text, doc);
  OutputFile out("-");
  if (cmd.format == InfoFormat::json) {
    // Just the model's fields when only the model was asked about.
    out.write((cmd.weights.empty() ? doc["model"] : doc).dump(2) + "\n");
  } else {
    out.write(text);
  }
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
  option_group(*sub, kOutputGroup);
  add_choice<InfoFormat>(*sub, "--format", [cmd](InfoFormat f) { cmd->format = f; },
                         {{"text", InfoFormat::text}, {"json", InfoFormat::json}}, "text or json", "text");
  clikit::set_examples(*sub, {
                       "embedpe info",
                       "embedpe info --model llama2-tokenizer.model",
                       "embedpe info --weights model.safetensors"});
  sub->callback([cmd] { run_info(*cmd); });
}

}  // namespace embedpe::cli
