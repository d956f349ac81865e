// A tensor of a Hugging Face checkpoint as read_pretrained_model reports it
// (pretrained_model.h: the tensors the input layer reads, and the others):
// what the checkpoint's reader finds, on its own so that the reader
// (src/layer/checkpoint.h) needs nothing of the model it serves.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace embedpe {

struct PretrainedTensor {
  std::string role;   // "token embedding", "position embedding", "LayerNorm weight", ...
  std::string name;   // as the checkpoint names it
  std::string file;   // the safetensors file holding it
  std::string dtype;  // "F32", "BF16", ...
  std::vector<std::size_t> shape;
};

}  // namespace embedpe
