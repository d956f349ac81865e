// Which tensors an encode run emits, by name, and each batch's tensors in
// the output dtype.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "embedpe/error.h"
#include "encode.h"

namespace embedpe::cli {
namespace {

constexpr std::pair<const char*, TensorName> kTensorNames[] = {
    {"input_ids", TensorName::input_ids},
    {"attention_mask", TensorName::attention_mask},
    {"token_embeddings", TensorName::token_embeddings},
    {"positional_encoding", TensorName::positional_encoding},
    {"output", TensorName::output},
    {"rope_cos", TensorName::rope_cos},  // not in "all": RoPE is never added to the input
    {"rope_sin", TensorName::rope_sin},
};

}  // namespace

const char* name_of(TensorName t) {
  for (const auto& [name, value] : kTensorNames) {
    if (value == t) return name;
  }
  return "?";
}

std::vector<TensorName> emitted(const EncodeCommand& cmd, const SinkFormat& format) {
  std::vector<TensorName> out;
  if (cmd.emit.empty()) {
    if (format.traits.one_tensor && cmd.output_dir.empty()) return {TensorName::output};
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
  if (format.traits.one_tensor && cmd.output_dir.empty() && out.size() != 1) {
    throw UsageError("." + std::string(format.name) + " holds one tensor but --emit names " + std::to_string(out.size()) +
                     "; use --format npz for several");
  }
  return out;
}

std::vector<TensorRef> tensors_of(const Context& ctx, const Computed& c, std::vector<TensorBuffer>& keep) {
  std::vector<TensorRef> tensors;
  keep.assign(ctx.emit.size(), {});
  for (std::size_t k = 0; k < ctx.emit.size(); ++k) {
    const TensorName t = ctx.emit[k];
    switch (t) {
      case TensorName::input_ids: tensors.push_back(tensor_ref(name_of(t), c.batch.input_ids)); break;
      case TensorName::attention_mask: tensors.push_back(tensor_ref(name_of(t), c.batch.attention_mask)); break;
      case TensorName::token_embeddings: tensors.push_back(tensor_ref(name_of(t), c.result.token_embeddings)); break;
      case TensorName::positional_encoding:
        tensors.push_back(tensor_ref(name_of(t), c.result.positional_encoding));
        break;
      case TensorName::output: tensors.push_back(tensor_ref(name_of(t), c.result.output)); break;
      case TensorName::rope_cos: tensors.push_back(tensor_ref(name_of(t), c.rope_cos)); break;
      case TensorName::rope_sin: tensors.push_back(tensor_ref(name_of(t), c.rope_sin)); break;
    }
    // Float tensors in the output dtype; ids and mask stay int64.
    if (tensors.back().dtype == DType::float32) tensors.back() = convert(tensors.back(), ctx.cmd.dtype, keep[k]);
  }
  return tensors;
}

}  // namespace embedpe::cli
