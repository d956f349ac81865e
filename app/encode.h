// encode's options, shared by encode.cpp (flags, single outputs) and
// output_dir.cpp (--output-dir parts). The work is the library's
// (embedpe/encoder.h): these options only say how to set it up.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "common.h"
#include "embedpe/dtype.h"
#include "embedpe/sink.h"
#include "layer_flags.h"

namespace embedpe::cli {

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
  int precision = 0;  // --precision: significant digits of floats in json/jsonl; 0: shortest round-trip
};

}  // namespace embedpe::cli
