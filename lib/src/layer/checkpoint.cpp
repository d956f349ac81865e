#include "checkpoint.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "embedpe/error.h"
#include "model_files.h"

namespace embedpe::checkpoint {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::string holdings(const std::string& dir) {
  const std::string text = ModelFiles(dir).names_text(12);
  return text.empty() ? "nothing" : text;
}

std::string join_path(const std::string& dir, const std::string& name) { return (fs::path(dir) / name).string(); }

json read_json(const std::string& dir, const std::string& name) {
  ModelFiles files(dir);
  std::optional<json> value = files.json(name);
  if (!value) throw UsageError(dir + " has no " + name + " (it holds " + holdings(dir) + ")");
  if (!value->is_object()) throw UsageError(files.path(name) + " is not a JSON object");
  return std::move(*value);
}

Checkpoint::Checkpoint(const std::string& dir) : dir_(dir) {
  const std::string single = join_path(dir, "model.safetensors");
  const std::string index = join_path(dir, "model.safetensors.index.json");
  std::error_code ec;
  if (fs::exists(single, ec)) {
    for (const auto& e : entries_of(single)) where_[e.name] = single;
    return;
  }
  if (fs::exists(index, ec)) {
    read_index(index);
    return;
  }
  if (fs::exists(join_path(dir, "pytorch_model.bin"), ec) ||
      fs::exists(join_path(dir, "pytorch_model.bin.index.json"), ec)) {
    throw UsageError(dir + " holds its weights only as pytorch_model.bin, a pickle, which can run code when "
                           "loaded, so embedpe never reads it: convert it to model.safetensors (safetensors' "
                           "convert.py, or save_pretrained(DIR, safe_serialization=True)) and try again");
  }
  throw UsageError(dir + " has no model.safetensors or model.safetensors.index.json (it holds " + holdings(dir) + ")");
}

bool Checkpoint::sharded() const { return sharded_; }

bool Checkpoint::has(const std::string& name) const { return where_.count(name) != 0; }

PretrainedTensor Checkpoint::tensor(const std::string& role, const std::string& name) {
  const std::string& file = where_.at(name);
  for (const auto& e : entries_of(file)) {
    if (e.name == name) return {role, name, file, e.dtype, e.shape};
  }
  throw UsageError(index_path() + " names " + name + " in " + file + ", which does not hold it");
}

std::vector<PretrainedTensor> Checkpoint::others(const std::vector<PretrainedTensor>& used) const {
  std::set<std::string> taken;
  for (const auto& t : used) taken.insert(t.name);
  std::vector<PretrainedTensor> out;
  for (const auto& [name, file] : where_) {
    if (taken.count(name)) continue;
    PretrainedTensor t{"", name, file, "", {}};
    auto it = entries_.find(file);
    if (it != entries_.end()) {
      for (const auto& e : it->second) {
        if (e.name == name) {
          t.dtype = e.dtype;
          t.shape = e.shape;
        }
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

std::string Checkpoint::index_path() const { return join_path(dir_, "model.safetensors.index.json"); }

const std::vector<SafetensorsEntry>& Checkpoint::entries_of(const std::string& file) {
  auto it = entries_.find(file);
  if (it != entries_.end()) return it->second;
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    throw UsageError(index_path() + " names the shard " + fs::path(file).filename().string() + ", which " + dir_ +
                     " does not hold (it holds " + holdings(dir_) + ")");
  }
  std::vector<SafetensorsEntry> entries;
  try {
    const MappedFile map(file);
    entries = read_safetensors_entries(map.bytes(), file);
  } catch (const UsageError&) {
    throw;
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  if (sharded_) {  // the shard and the index agree on what it holds
    for (const auto& e : entries) {
      auto w = where_.find(e.name);
      if (w == where_.end()) {
        throw UsageError(file + " holds " + e.name + ", which " + index_path() + " does not list");
      }
      if (w->second != file) {
        throw UsageError(file + " holds " + e.name + ", which " + index_path() + " places in " +
                         fs::path(w->second).filename().string());
      }
    }
    for (const auto& placed : where_) {  // not a structured binding: clang 14 cannot capture one
      const std::string& name = placed.first;
      if (placed.second != file) continue;
      const bool held = std::any_of(entries.begin(), entries.end(), [&](const auto& e) { return e.name == name; });
      if (!held) throw UsageError(index_path() + " places " + name + " in " + file + ", which does not hold it");
    }
  }
  return entries_.emplace(file, std::move(entries)).first->second;
}

void Checkpoint::read_index(const std::string& index) {
  sharded_ = true;
  const json j = read_json(dir_, "model.safetensors.index.json");
  if (!j.contains("weight_map") || !j["weight_map"].is_object()) {
    throw UsageError(index + " has no weight_map object");
  }
  for (const auto& [name, shard] : j["weight_map"].items()) {
    if (!shard.is_string()) throw UsageError(index + ": weight_map's " + name + " is not a file name");
    const std::string s = shard.get<std::string>();
    // A plain file name in the directory: no NUL (which would end the name the system opens), no '/'.
    if (s.empty() || s.find('/') != std::string::npos || s.find('\0') != std::string::npos || s == "." ||
        s == "..") {
      throw UsageError(index + ": weight_map's " + name + " names " +
                       json_value_text(json(s)) +
                       ", not a file beside the index");
    }
    where_[name] = join_path(dir_, s);
  }
  if (where_.empty()) throw UsageError(index + " lists no tensors");
}


}  // namespace embedpe::checkpoint
