// A Hugging Face model directory's weights as read_pretrained_model reads them
// (pretrained_model.cpp): model.safetensors, or the shards its index names,
// each opened only where a tensor is used and checked against the index; and
// its JSON files, read as every model file is (model_files.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "embedpe/pretrained_tensor.h"
#include "embedpe/weights.h"

namespace embedpe::checkpoint {

// The files a directory holds, for a message: "a, b and c".
std::string holdings(const std::string& dir);
std::string join_path(const std::string& dir, const std::string& name);

// DIR/NAME as a JSON object, read as every model file is (model_files.h).
nlohmann::json read_json(const std::string& dir, const std::string& name);

// The checkpoint's tensors: where each is, and the headers of the files opened.
class Checkpoint {
 public:
  explicit Checkpoint(const std::string& dir);

  bool sharded() const;
  bool has(const std::string& name) const;

  // The tensor's file and header entry; opens its shard (checked against the index) on first use.
  PretrainedTensor tensor(const std::string& role, const std::string& name);

  // Every tensor but the `used` ones; shards not opened list names only.
  std::vector<PretrainedTensor> others(const std::vector<PretrainedTensor>& used) const;

 private:
  std::string index_path() const;

  const std::vector<SafetensorsEntry>& entries_of(const std::string& file);

  void read_index(const std::string& index);

  std::string dir_;
  bool sharded_ = false;
  std::map<std::string, std::string> where_;  // tensor name → its file
  std::map<std::string, std::vector<SafetensorsEntry>> entries_;
};

}  // namespace embedpe::checkpoint
