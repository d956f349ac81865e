// embedpe encode: text → ids → E[ids] × scale + PE → JSON / .npy / .npz.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "commands.h"
#include "common.h"
#include "embedpe/error.h"
#include "embedpe/half.h"
#include "embedpe/input_layer.h"
#include "embedpe/json_writer.h"
#include "embedpe/output_file.h"
#include "embedpe/rope.h"
#include "embedpe/tensor_io.h"
#include "embedpe/version.h"
#include "layer_setup.h"

namespace embedpe::cli {
namespace {

enum class Format { json, npy, npz };
enum class OutDType { f32, f16, bf16 };
enum class TensorName { input_ids, attention_mask, token_embeddings, positional_encoding, output, rope_cos, rope_sin };

constexpr std::pair<const char*, TensorName> kTensorNames[] = {
    {"input_ids", TensorName::input_ids},
    {"attention_mask", TensorName::attention_mask},
    {"token_embeddings", TensorName::token_embeddings},
    {"positional_encoding", TensorName::positional_encoding},
    {"output", TensorName::output},
    {"rope_cos", TensorName::rope_cos},  // not in "all": RoPE is never added to the input
    {"rope_sin", TensorName::rope_sin},
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
  LayerFlags layer;
  RopeFlags rope;
  std::optional<std::size_t> rope_dim;
  bool train = false;
  std::optional<double> dropout;
  std::optional<Format> format;
  OutDType dtype = OutDType::f32;
  std::string output = "-";
  std::vector<std::string> emit;
};

Format infer_format(const EncodeCommand& cmd) {
  if (cmd.format) return *cmd.format;
  auto ends_with = [&](const std::string& e) {
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
      for (const auto& entry : kTensorNames) {
        if (entry.second != TensorName::rope_cos && entry.second != TensorName::rope_sin) out.push_back(entry.second);
      }
      continue;
    }
    auto it = std::find_if(std::begin(kTensorNames), std::end(kTensorNames),
                           [&](const auto& entry) { return name == entry.first; });
    if (it == std::end(kTensorNames)) {
      throw UsageError("--emit: unknown tensor '" + name +
                       "'; choose from input_ids, attention_mask, token_embeddings, positional_encoding, output, all, "
                       "rope_cos, rope_sin");
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

void check_lengths(const Batch& batch, const Texts& texts, const EncodeCommand& cmd) {
  if (cmd.layer.pe != PeKind::sinusoidal) return;  // learned tables are checked by the layer
  const std::size_t max_len = cmd.layer.max_len;
  const std::size_t offset = position_offset(cmd.layer);
  const std::size_t room = max_len > offset ? max_len - offset : 0;
  if (cmd.tokenize.seq_len && *cmd.tokenize.seq_len > room) {
    throw UsageError("--seq-len " + std::to_string(*cmd.tokenize.seq_len) + " is longer than the PE table (--max-len " +
                     std::to_string(max_len) + (offset ? ", less --position-offset " + std::to_string(offset) : "") +
                     "); raise --max-len or lower --seq-len");
  }
  if (batch.seq_len() <= room) return;
  auto longest = std::max_element(batch.pieces.begin(), batch.pieces.end(),
                                  [](const auto& a, const auto& b) { return a.size() < b.size(); });
  const std::size_t i = static_cast<std::size_t>(longest - batch.pieces.begin());
  throw UsageError(texts.origins[i] + " is " + std::to_string(longest->size()) +
                   " tokens long but the PE table has " + std::to_string(room) +
                   " positions; raise --max-len, or truncate with --seq-len");
}

// A float tensor in the requested output dtype: float16 storage, or float32
// values rounded to bfloat16. Values that do not fit float16 are an error.
struct Converted {
  std::vector<std::uint16_t> half;  // for f16
  xt::xtensor<float, 3> rounded3;   // for bf16
  xt::xtensor<float, 2> rounded2;
};

template <std::size_t N>
TensorRef convert(TensorRef ref, const xt::xtensor<float, N>& src, OutDType dtype, Converted& keep) {
  if (dtype == OutDType::f32) return ref;
  if (dtype == OutDType::f16) {
    keep.half.resize(src.size());
    for (std::size_t i = 0; i < src.size(); ++i) {
      const float v = src.data()[i];
      keep.half[i] = float_to_half(v);
      if (std::isfinite(v) && !std::isfinite(half_to_float(keep.half[i]))) {
        throw UsageError("tensor " + ref.name + " holds " + std::to_string(v) +
                         ", beyond float16's range (65504); use --dtype f32 or bf16");
      }
    }
    ref.dtype = DType::float16;
    ref.data = keep.half.data();
    return ref;
  }
  xt::xtensor<float, N> rounded = src;
  for (std::size_t i = 0; i < rounded.size(); ++i) {
    rounded.data()[i] = bfloat16_to_float(float_to_bfloat16(rounded.data()[i]));
  }
  if constexpr (N == 3) {
    keep.rounded3 = std::move(rounded);
    ref.data = keep.rounded3.data();
  } else {
    keep.rounded2 = std::move(rounded);
    ref.data = keep.rounded2.data();
  }
  return ref;
}

void run_encode(const EncodeCommand& cmd) {
  const Format format = infer_format(cmd);
  const std::vector<TensorName> emit = emitted(cmd, format);
  if (cmd.dtype == OutDType::bf16 && format != Format::json) {
    throw UsageError("--dtype bf16: NumPy has no bfloat16 dtype, so .npy/.npz cannot hold it; use --format json, "
                     "or --dtype f32 and convert (e.g. torch.from_numpy(a).bfloat16())");
  }
  if (cmd.dropout && !(*cmd.dropout >= 0.0 && *cmd.dropout < 1.0)) {
    throw UsageError("--dropout must be in [0, 1), not " + std::to_string(*cmd.dropout));
  }
  if (cmd.dropout && !cmd.train) throw UsageError("--dropout only applies with --train (inference never drops)");
  std::optional<Dropout> dropout;
  if (cmd.train) {
    if (cmd.layer.table.seed_option->count() == 0) {
      throw UsageError("--train needs an explicit --seed, so that the dropout mask can be reproduced");
    }
    dropout = Dropout{cmd.dropout.value_or(0.1), cmd.layer.table.seed};
  }
  if (format != Format::json && cmd.output == "-" && ::isatty(STDOUT_FILENO)) {
    throw UsageError(std::string("refusing to write binary .") + (format == Format::npy ? "npy" : "npz") +
                     " to a terminal; give --output FILE or redirect standard output");
  }

  const Tokenizer tokenizer = load_tokenizer(cmd.tokenize.model);
  const Texts texts = load_texts(cmd.text);
  const Batch batch = tokenizer.encode_batch(texts.lines, encode_options(cmd.tokenize));
  check_lengths(batch, texts, cmd);

  const bool want_tok = std::find(emit.begin(), emit.end(), TensorName::token_embeddings) != emit.end();
  if (cmd.layer.table.weights.empty()) {
    InputLayer::check_memory(batch.size(), batch.seq_len(), requested_d_model(cmd.layer.table), want_tok);
  }
  LayerParts parts = build_layer(cmd.layer, tokenizer);
  parts.options.dropout = dropout;
  parts.options.want_token_embeddings = want_tok;
  const InputLayer layer(*parts.table, parts.pe.get(), parts.options);
  const InputLayerOutput result = layer.forward(batch.input_ids, batch.attention_mask);

  // RoPE tables for the batch's positions, if asked for (never added).
  xt::xtensor<float, 2> rope_cos, rope_sin;  // (seq_len, rope_dim)
  nlohmann::ordered_json rope_config;
  if (std::find_if(emit.begin(), emit.end(), [](TensorName t) {
        return t == TensorName::rope_cos || t == TensorName::rope_sin;
      }) != emit.end()) {
    RopeOptions o = cmd.rope.options;
    o.dim = cmd.rope_dim.value_or(parts.table->d_model());
    o.seq_len = position_offset(cmd.layer) + batch.seq_len();
    const RopeFrequencies f = rope_frequencies(o);
    std::tie(rope_cos, rope_sin) = rope_tables(f, position_offset(cmd.layer), batch.seq_len());
    rope_config = rope_json(o, f);
  }

  std::vector<TensorRef> tensors;
  std::vector<Converted> converted(emit.size());
  for (std::size_t k = 0; k < emit.size(); ++k) {
    const TensorName t = emit[k];
    switch (t) {
      case TensorName::input_ids: tensors.push_back(tensor_ref(name_of(t), batch.input_ids)); break;
      case TensorName::attention_mask: tensors.push_back(tensor_ref(name_of(t), batch.attention_mask)); break;
      case TensorName::token_embeddings:
        tensors.push_back(convert(tensor_ref(name_of(t), result.token_embeddings), result.token_embeddings, cmd.dtype,
                                  converted[k]));
        break;
      case TensorName::positional_encoding:
        tensors.push_back(convert(tensor_ref(name_of(t), result.positional_encoding), result.positional_encoding,
                                  cmd.dtype, converted[k]));
        break;
      case TensorName::output:
        tensors.push_back(convert(tensor_ref(name_of(t), result.output), result.output, cmd.dtype, converted[k]));
        break;
      case TensorName::rope_cos:
        tensors.push_back(convert(tensor_ref(name_of(t), rope_cos), rope_cos, cmd.dtype, converted[k]));
        break;
      case TensorName::rope_sin:
        tensors.push_back(convert(tensor_ref(name_of(t), rope_sin), rope_sin, cmd.dtype, converted[k]));
        break;
    }
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
      };
      for (const auto& [key, value] : parts.config.items()) config[key] = value;
      if (!rope_config.is_null()) config["rope"] = rope_config;
      config["training"] = cmd.train;
      config["dropout"] = dropout ? nlohmann::ordered_json(dropout->p) : nlohmann::ordered_json();
      config["sequences"] = batch.size();
      config["truncated"] = batch.truncated_count();
      nlohmann::ordered_json shapes = nlohmann::ordered_json::object(), dtypes = nlohmann::ordered_json::object();
      for (const auto& t : tensors) {
        shapes[t.name] = t.shape;
        dtypes[t.name] = (cmd.dtype == OutDType::bf16 && t.dtype == DType::float32) ? "bfloat16" : dtype_name(t.dtype);
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
  add_layer_flags(*sub, cmd->layer);
  add_rope_flags(*sub, cmd->rope);
  sub->add_option("--rope-dim", cmd->rope_dim, "Rotary dimension for --emit rope_cos,rope_sin (default d_model)")
      ->type_name("N");
  sub->add_flag("--train", cmd->train, "Training mode: apply inverted dropout (needs --seed)");
  sub->add_option("--dropout", cmd->dropout, "Dropout probability with --train (default 0.1)")->type_name("P");
  add_choice<Format>(*sub, "--format", [cmd](Format f) { cmd->format = f; },
                     {{"json", Format::json}, {"npy", Format::npy}, {"npz", Format::npz}},
                     "Output format (default: from --output's extension, else json)");
  add_choice<OutDType>(*sub, "--dtype", [cmd](OutDType d) { cmd->dtype = d; },
                       {{"f32", OutDType::f32}, {"f16", OutDType::f16}, {"bf16", OutDType::bf16}},
                       "Float tensors as float32 (default), float16, or bfloat16 (JSON only)");
  sub->add_option("--output,-o", cmd->output, "Output path (- for standard output)")
      ->type_name("PATH")
      ->capture_default_str();
  sub->add_option("--emit", cmd->emit,
                  "Tensors to write: input_ids, attention_mask, token_embeddings, positional_encoding, output, all "
                  "(default: output for npy; input_ids,attention_mask,output otherwise); also rope_cos, rope_sin")
      ->delimiter(',')
      ->type_name("NAME,...");
  sub->callback([cmd] { run_encode(*cmd); });
}

}  // namespace embedpe::cli
