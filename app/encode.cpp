// embedpe encode: text → ids → E[ids] × scale + PE → JSON / .npy / .npz.
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "commands.h"
#include "common.h"
#include "embedpe/embedding.h"
#include "embedpe/error.h"
#include "embedpe/input_layer.h"
#include "embedpe/json_writer.h"
#include "embedpe/output_file.h"
#include "embedpe/positional_encoding.h"
#include "embedpe/tensor_io.h"
#include "embedpe/version.h"

namespace embedpe::cli {
namespace {

enum class Format { json, npy, npz };
enum class TensorName { input_ids, attention_mask, token_embeddings, positional_encoding, output };

constexpr std::pair<const char*, TensorName> kTensorNames[] = {
    {"input_ids", TensorName::input_ids},
    {"attention_mask", TensorName::attention_mask},
    {"token_embeddings", TensorName::token_embeddings},
    {"positional_encoding", TensorName::positional_encoding},
    {"output", TensorName::output},
};

const char* name_of(TensorName t) {
  for (const auto& [name, value] : kTensorNames) {
    if (value == t) return name;
  }
  return "?";
}

struct EncodeCommand {
  TextOptions text;
  TokenizeFlags tokenize;
  std::size_t d_model = 512;
  std::size_t max_len = 5000;
  std::string scale = "sqrt";
  std::uint64_t seed = 0;
  bool train = false;
  std::optional<double> dropout;
  std::optional<Format> format;
  std::string output = "-";
  std::vector<std::string> emit;
  CLI::Option* seed_option = nullptr;
};

Format infer_format(const EncodeCommand& cmd) {
  if (cmd.format) return *cmd.format;
  auto ends_with = [&](const char* ext) {
    const std::string e(ext);
    return cmd.output.size() > e.size() && cmd.output.compare(cmd.output.size() - e.size(), e.size(), e) == 0;
  };
  if (ends_with(".npy")) return Format::npy;
  if (ends_with(".npz")) return Format::npz;
  return Format::json;
}

std::vector<TensorName> emitted(const EncodeCommand& cmd, Format format) {
  std::vector<TensorName> out;
  if (cmd.emit.empty()) {
    if (format == Format::npy) return {TensorName::output};
    return {TensorName::input_ids, TensorName::attention_mask, TensorName::output};
  }
  for (const auto& name : cmd.emit) {
    if (name == "all") {
      for (const auto& entry : kTensorNames) out.push_back(entry.second);
      continue;
    }
    auto it = std::find_if(std::begin(kTensorNames), std::end(kTensorNames),
                           [&](const auto& entry) { return name == entry.first; });
    if (it == std::end(kTensorNames)) {
      throw UsageError("--emit: unknown tensor '" + name +
                       "'; choose from input_ids, attention_mask, token_embeddings, positional_encoding, output, all");
    }
    out.push_back(it->second);
  }
  // Keep the canonical order and drop repeats, so outputs do not depend on
  // how the list was spelled.
  std::set<TensorName> unique(out.begin(), out.end());
  out.assign(unique.begin(), unique.end());
  if (format == Format::npy && out.size() != 1) {
    throw UsageError(".npy holds one tensor but --emit names " + std::to_string(out.size()) +
                     "; use --format npz for several");
  }
  return out;
}

void check_lengths(const Batch& batch, const Texts& texts, std::size_t max_len, const TokenizeFlags& flags) {
  if (flags.seq_len && *flags.seq_len > max_len) {
    throw UsageError("--seq-len " + std::to_string(*flags.seq_len) + " is longer than the PE table (--max-len " +
                     std::to_string(max_len) + "); raise --max-len or lower --seq-len");
  }
  if (batch.seq_len() <= max_len) return;
  auto longest = std::max_element(batch.pieces.begin(), batch.pieces.end(),
                                  [](const auto& a, const auto& b) { return a.size() < b.size(); });
  const std::size_t i = static_cast<std::size_t>(longest - batch.pieces.begin());
  throw UsageError(texts.origins[i] + " is " + std::to_string(longest->size()) +
                   " tokens long but the PE table has " + std::to_string(max_len) +
                   " positions; raise --max-len, or truncate with --seq-len");
}

void run_encode(const EncodeCommand& cmd) {
  const Format format = infer_format(cmd);
  const std::vector<TensorName> emit = emitted(cmd, format);
  const Scale scale = Scale::parse(cmd.scale);
  std::optional<Dropout> dropout;
  if (cmd.dropout && !(*cmd.dropout >= 0.0 && *cmd.dropout < 1.0)) {
    throw UsageError("--dropout must be in [0, 1), not " + std::to_string(*cmd.dropout));
  }
  if (cmd.dropout && !cmd.train) throw UsageError("--dropout only applies with --train (inference never drops)");
  if (cmd.train) {
    if (cmd.seed_option->count() == 0) {
      throw UsageError("--train needs an explicit --seed, so that the dropout mask can be reproduced");
    }
    dropout = Dropout{cmd.dropout.value_or(0.1), cmd.seed};
  }

  const Tokenizer tokenizer = load_tokenizer(cmd.tokenize.model);
  const Texts texts = load_texts(cmd.text);
  const Batch batch = tokenizer.encode_batch(texts.lines, encode_options(cmd.tokenize));
  check_lengths(batch, texts, cmd.max_len, cmd.tokenize);

  const bool want_tok = std::find(emit.begin(), emit.end(), TensorName::token_embeddings) != emit.end();
  InputLayer::check_memory(batch.size(), batch.seq_len(), cmd.d_model, want_tok);
  const RandomNormalTable table(tokenizer.info().vocab_size, cmd.d_model, cmd.seed);
  const SinusoidalEncoding pe({.d_model = cmd.d_model, .max_len = cmd.max_len});
  const InputLayer layer(table, pe, {.scale = scale, .dropout = dropout, .want_token_embeddings = want_tok});
  const InputLayerOutput result = layer.forward(batch.input_ids);

  std::vector<TensorRef> tensors;
  for (TensorName t : emit) {
    switch (t) {
      case TensorName::input_ids: tensors.push_back(tensor_ref(name_of(t), batch.input_ids)); break;
      case TensorName::attention_mask: tensors.push_back(tensor_ref(name_of(t), batch.attention_mask)); break;
      case TensorName::token_embeddings: tensors.push_back(tensor_ref(name_of(t), result.token_embeddings)); break;
      case TensorName::positional_encoding: tensors.push_back(tensor_ref(name_of(t), result.positional_encoding)); break;
      case TensorName::output: tensors.push_back(tensor_ref(name_of(t), result.output)); break;
    }
  }

  if (format != Format::json && cmd.output == "-" && ::isatty(STDOUT_FILENO)) {
    throw UsageError(std::string("refusing to write binary .") + (format == Format::npy ? "npy" : "npz") +
                     " to a terminal; give --output FILE or redirect standard output");
  }
  OutputFile out(cmd.output);
  switch (format) {
    case Format::npy: write_npy(out, tensors.front()); break;
    case Format::npz: write_npz(out, tensors); break;
    case Format::json: {
      nlohmann::ordered_json config = {
          {"embedpe_version", version()},
          {"model", model_json(tokenizer.info())},
          {"add_bos", !cmd.tokenize.no_bos},
          {"add_eos", !cmd.tokenize.no_eos},
          {"pad_id", batch.pad_id},
          {"seq_len", cmd.tokenize.seq_len ? nlohmann::ordered_json(*cmd.tokenize.seq_len) : nlohmann::ordered_json()},
          {"d_model", cmd.d_model},
          {"embedding", table.describe()},
          {"seed", cmd.seed},
          {"scale", scale.to_string()},
          {"scale_factor", scale.factor(cmd.d_model)},
          {"positional_encoding", {{"kind", "sinusoidal"}, {"layout", "interleaved"}, {"base", pe.options().base},
                                   {"max_len", cmd.max_len}}},
          {"training", cmd.train},
          {"dropout", dropout ? nlohmann::ordered_json(dropout->p) : nlohmann::ordered_json()},
          {"sequences", batch.size()},
          {"truncated", batch.truncated_count()},
      };
      nlohmann::ordered_json shapes = nlohmann::ordered_json::object(), dtypes = nlohmann::ordered_json::object();
      for (const auto& t : tensors) {
        shapes[t.name] = t.shape;
        dtypes[t.name] = dtype_name(t.dtype);
      }
      nlohmann::ordered_json meta = {{"config", config}, {"shapes", shapes}, {"dtypes", dtypes},
                                     {"tokens", batch.pieces}};
      write_json(out, meta, tensors);
      break;
    }
  }
  out.commit();
}

}  // namespace

void setup_encode(CLI::App& app) {
  auto cmd = std::make_shared<EncodeCommand>();
  auto* sub = app.add_subcommand("encode", "Text → token ids → embedding × scale + positional encoding");
  add_text_options(*sub, cmd->text);
  add_tokenize_flags(*sub, cmd->tokenize);
  sub->add_option("--d-model", cmd->d_model, "Embedding width")->capture_default_str()->check(CLI::PositiveNumber);
  sub->add_option("--max-len", cmd->max_len, "Positions in the PE table")->capture_default_str()->check(CLI::PositiveNumber);
  sub->add_option("--scale", cmd->scale, "Embedding scale: sqrt (√d_model), none, or a number")
      ->type_name("sqrt|none|X")
      ->capture_default_str();
  cmd->seed_option = sub->add_option("--seed", cmd->seed, "Seed of the N(0,1) embedding table (and of the dropout mask)")
                         ->capture_default_str();
  sub->add_flag("--train", cmd->train, "Training mode: apply inverted dropout (needs --seed)");
  sub->add_option("--dropout", cmd->dropout, "Dropout probability with --train (default 0.1)")
      ->type_name("P");
  add_choice<Format>(*sub, "--format", [cmd](Format f) { cmd->format = f; },
                     {{"json", Format::json}, {"npy", Format::npy}, {"npz", Format::npz}},
                     "Output format (default: from --output's extension, else json)");
  sub->add_option("--output,-o", cmd->output, "Output path (- for standard output)")
      ->type_name("PATH")
      ->capture_default_str();
  sub->add_option("--emit", cmd->emit,
                  "Tensors to write: input_ids, attention_mask, token_embeddings, positional_encoding, output, all "
                  "(default: output for npy; input_ids,attention_mask,output otherwise)")
      ->delimiter(',')
      ->type_name("NAME,...");
  sub->callback([cmd] { run_encode(*cmd); });
}

}  // namespace embedpe::cli
