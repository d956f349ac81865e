// Where two JSON values differ, leaf by leaf: how resume says which setting
// changed ("config model.sha256: ... then, ... now") and how merge says where
// two shards' configs part ("model.sha256, seed").
//
//   for (const JsonDifference& d : json_differences(old_config, new_config)) ...
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace embedpe {

struct JsonDifference {
  std::string path;       // "model.sha256"; empty when the two values differ as a whole
  std::string then, now;  // each side's value as JSON text, "(none)" for a key only the other has
};

// Objects are compared key by key (a's keys in order, then the keys only b
// has); anything else, arrays included, as a whole.
std::vector<JsonDifference> json_differences(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b);

}  // namespace embedpe
