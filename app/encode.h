// What encode's output modes share: the command's options, the per-run
// context (tokenizer, layer) and computing one batch into the emitted tensors.
// encode.cpp writes single outputs; output_dir.cpp writes --output-dir parts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <xtensor/xtensor.hpp>

#include "common.h"
#include "embedpe/dtype.h"
#include "embedpe/input_layer.h"
#include "embedpe/rope.h"
#include "embedpe/sink.h"
#include "embedpe/text_input.h"
#include "embedpe/tokenizer.h"
#include "layer_setup.h"

namespace embedpe::cli {

enum class TensorName { input_ids, attention_mask, token_embeddings, positional_encoding, output, rope_cos, rope_sin };

struct EncodeCommand {
  TextOptions text;
  TokenizeFlags tokenize;
  LayerFlags layer;
  std::optional<std::size_t> rope_dim;
  bool train = false;
  std::optional<double> dropout;
  const SinkFormat* format = nullptr;  // --format; null: from --output's extension
  DType dtype = DType::float32;  // of the float tensors: float32, float16 or bfloat16
  std::string output = "-";
  std::vector<std::string> emit;
  std::size_t batch_size = 128;
  std::optional<std::size_t> threads;
  std::string output_dir;
  std::size_t shard_rows = 1024;
  bool resume = false;
  bool quiet = false;
  bool summary = false;
};

// What stays the same for every batch of a run.
struct Context {
  const EncodeCommand& cmd;
  const SinkFormat& format;
  std::vector<TensorName> emit;
  bool want_tok = false;
  bool want_rope = false;
  bool want_layer = false;  // any of token_embeddings, positional_encoding, output
  std::size_t threads = 1;          // for tokenizing, embedding and rendering text
  std::size_t compute_threads = 1;  // for tokenizing and embedding while a writer thread runs
  Tokenizer tokenizer;
  LayerParts parts;
  std::unique_ptr<InputLayer> layer;
  RopeFrequencies rope;
  nlohmann::ordered_json rope_config;
};

// One batch, computed.
struct Computed {
  Batch batch;
  InputLayerOutput result;
  xt::xtensor<float, 2> rope_cos, rope_sin;  // (seq_len, rope_dim)
};

// "output" for TensorName::output (emit.cpp).
const char* name_of(TensorName t);
// The tensors --emit names, in canonical order (the format's default when
// none are named); UsageError for unknown names or several in a one-tensor format.
std::vector<TensorName> emitted(const EncodeCommand& cmd, const SinkFormat& format);
// Refuses (UsageError), before any work, a run whose batches cannot fit in
// memory; `first` is the first batch's lines, `streaming` says whether two
// batches are held at once (encode_memory.cpp).
void check_encode_memory(const Context& ctx, const std::vector<TextLine>& first, bool streaming);

// Tokenizes and embeds one batch into `c`, whose buffers are reused.
// `origins` name the texts for errors; `first_row` is the batch's first row
// in the run (dropout masks depend on it).
void compute(const Context& ctx, const std::vector<std::string>& texts, const std::vector<std::string>& origins,
             std::size_t first_row, Computed& c);
// The emitted tensors of a computed batch, in the output dtype; `keep` holds
// converted copies the refs point into.
std::vector<TensorRef> tensors_of(const Context& ctx, const Computed& c, std::vector<TensorBuffer>& keep);
// Everything needed to reproduce the run's rows (model, layer, dtype, emit).
nlohmann::ordered_json run_config(const Context& ctx);

}  // namespace embedpe::cli
