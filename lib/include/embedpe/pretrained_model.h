// A Hugging Face model directory (config.json and its safetensors weights)
// read into the LayerSpec that builds the very input layer the model's own
// code runs: the tensor an encoder's hidden_states[0] holds, or a
// decoder-only model's inputs_embeds after any normalizer, in float32.
//
//   embedpe::PretrainedModel m = embedpe::read_pretrained_model("xlm-roberta-base");
//   embedpe::Layer layer = embedpe::build_layer(m.spec, tokenizer);
//   // m.spec: learned positions from padding_idx + 1 counted over ids != pad,
//   // token type 0, LayerNorm(eps) — each tensor named PATH:TENSOR
//
// The model type comes from config.json's model_type (never from a
// repository's name); each type's embedding module is ported as the
// modeling_*.py of Hugging Face transformers computes it:
//   xlm-roberta, camembert, roberta  (word + token type) + position, LayerNorm;
//                                    positions padding_idx + 1 + cumsum(ids != pad)
//   bart, mbart                      word × embed_scale + position (offset 2), layernorm_embedding
//   m2m_100 (NLLB too)               word × embed_scale + fairseq sinusoid over ids != pad
//   marian, pegasus                  word × embed_scale + static sinusoid (concat halves)
//   albert                           (word + type) + position, LayerNorm in E, then
//                                    embedding_hidden_mapping_in (hidden_states[0] is after it)
//   deberta-v2                       word (+ position if position_biased_input) (+ type),
//                                    embed_proj, LayerNorm, × attention_mask
//   bert                             (word + token type) + position (by column), LayerNorm
//   distilbert                       word + position (by column), LayerNorm (eps 1e-12)
//   gpt2                             wte + wpe (by column)
//   modernbert                       word, LayerNorm (norm_eps, bias if norm_bias)
//   gemma, gemma3_text, gemma3       word × √hidden_size (the normalizer, in the weights' dtype;
//                                    gemma3: the text model of text_config)
//   t5, mt5, llama, mistral, qwen2,  word
//   qwen3, deepseek_v3, xlnet
//
// Weights: model.safetensors, or the shards model.safetensors.index.json
// names (only those holding used tensors are opened; each is checked against
// the index). Tensors are found under the base model's name and under the
// task model's prefix (roberta., bert., distilbert., model., albert., deberta., transformer.).
// A directory holding only pytorch_model.bin is refused: a pickle can run
// code when loaded, so it is never read.
//
// Every refusal is a UsageError of one line naming the directory: a missing
// file (listing what is there), an unknown model_type (listing the
// supported ones), a config that disagrees with the weights.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "embedpe/dtype.h"
#include "embedpe/layer_spec.h"
#include "embedpe/pretrained_tensor.h"

namespace embedpe {

struct PretrainedModel {
  std::string dir;
  std::string model_type;    // config.json model_type
  std::string architecture;  // config.json architectures[0], or "" if it names none
  std::string description;   // one line: what the input layer computes
  LayerSpec spec;            // the layer, every tensor named PATH:TENSOR
  std::size_t hidden_size = 0;
  std::int64_t vocab_size = 0;
  std::optional<std::int64_t> pad_token_id;
  std::optional<std::size_t> max_positions;  // the longest sequence the position table holds; none: unbounded
  std::vector<PretrainedTensor> used;        // the tensors the input layer reads
  std::vector<PretrainedTensor> unused;      // the checkpoint's other tensors
  // The explicit parameters that build the same layer, in order (snake_case
  // names as LayerSpec's front ends spell them, with their values; a flag
  // that takes no value has an empty one).
  std::vector<std::pair<std::string, std::string>> parameters;
  // Where RoPE is the position scheme: the kind's parameters (rope_theta,
  // rope_scaling, rope_factor, ...) as config.json gives them; else empty.
  std::vector<std::pair<std::string, std::string>> rope;
  // The weights' dtype (config.json torch_dtype), "" when it names none.
  std::string torch_dtype;
  // Gemma's normalizer multiplies in the weights' dtype: HF makes it
  // torch.tensor(hidden_size**0.5, dtype=hidden_states.dtype).
  bool normalizer_in_dtype = false;
};

// The scale of a model run in `dtype` (torch_dtype=): Gemma's normalizer
// rounded to that dtype, as HF rounds it (√3072 = 55.43 is 55.5 in
// bfloat16); for every other model, and in float32, spec.scale. With
// float16 or bfloat16 weights, E[ids] × normalizer is then exact before the
// output's one rounding, as HF's is.
Scale pretrained_scale(const PretrainedModel& m, DType dtype);

// The model types read_pretrained_model supports.
const std::vector<std::string>& pretrained_model_types();

// Reads DIR/config.json and the headers of its weights.
PretrainedModel read_pretrained_model(const std::string& dir);

// Reads only DIR/config.json and says what RoPE it uses, without opening any
// weights: for inspecting the position scheme. A UsageError for a model
// type whose positions are not RoPE.
struct PretrainedRope {
  std::vector<std::pair<std::string, std::string>> parameters;  // as PretrainedModel::rope
  std::size_t head_dim = 0;  // the rotary width: head_dim, else hidden_size / num_attention_heads
};
PretrainedRope pretrained_rope(const std::string& dir);

}  // namespace embedpe
