#!/usr/bin/python3
"""The input layer of the model types tokenizer.json directories name (issue 47, item 4), computed
by transformers v4.44.2's own modelling code where it has the class, and by the published
formula of the newer ones.

    PYTHONPATH=/tmp/hfenv /usr/bin/python3 tools/make_tj_layer_goldens.py

(/tmp/hfenv: transformers v4.44.2 built offline by shared/tools/hfenv/setup.sh; torch from Debian.)

For each case this writes tests/models/tj_layer/NAME/ (config.json with small sizes: hidden 16,
one layer, vocabulary 1000 where the model's is larger; model.safetensors: a random checkpoint
under the exact tensor names the config's `architectures` class saves, tied copies left out as
save_pretrained does) and tests/golden/tj_layer/NAME.npz: for batches of ids padded on the right
and on the left (and one with the pad id inside a sequence), `ids_S`, `mask_S`, `types_S`
(token_type_ids given to the model; zeros where the type has none) and `out_S`, the model's
`hidden_states[0]` (float32), with `pad_id`.

Run for real (transformers v4.44.2, `model(input_ids, attention_mask, token_type_ids,
output_hidden_states=True).hidden_states[0]` in eval mode):
  bert         BertForMaskedLM, config of tokenizer_json/bert_base_uncased (word + absolute position
               + token type, LayerNorm); the right-padded batch has type ids 1 on its second half
  minilm       BertModel, config of tokenizer_json/all_minilm_l6_v2_st (no prefix in the names)
  roberta      RobertaForMaskedLM, roberta-base's published config: positions from padding_idx + 1
               (create_position_ids_from_input_ids), type_vocab_size 1
  gpt2         GPT2LMHeadModel, gpt2's published config: wte + wpe, positions arange(seq) on a
               plain call even when left-padded (GPT2Model.forward builds position_ids with
               torch.arange when none are given)
  llama3       LlamaForCausalLM (LLaMA-3-8B's published config): E[ids]
  qwen2_5      Qwen2ForCausalLM (Qwen2.5-0.5B's published config, tied embeddings): E[ids]
Formula of the published code (transformers main, huggingface/transformers, src/transformers/models/):
  qwen3        qwen3/modeling_qwen3.py Qwen3Model.forward: inputs_embeds = self.embed_tokens(input_ids)
  deepseek_v3  deepseek_v3/modeling_deepseek_v3.py DeepseekV3Model.forward: the same
  gemma3       gemma3/modeling_gemma3.py Gemma3TextScaledWordEmbedding.forward:
               `super().forward(input_ids) * self.embed_scale.to(self.weight.dtype)`, embed_scale =
               config.hidden_size ** 0.5 (Gemma3TextModel: `embed_scale=self.config.hidden_size**0.5`)
  modernbert   modernbert/modeling_modernbert.py ModernBertEmbeddings: `self.drop(self.norm(
               self.tok_embeddings(input_ids)))`, norm = nn.LayerNorm(hidden_size, eps=norm_eps,
               bias=norm_bias) (defaults 1e-5, False), dropout off in eval
"""
import json
import os
import sys

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'tools'))
from make_hf_layer_goldens import write_safetensors  # noqa: E402

import transformers  # noqa: E402

assert transformers.__version__ == '4.44.2', transformers.__version__
OUT_MODELS = os.path.join(ROOT, 'tests', 'models', 'tj_layer')
OUT_GOLDEN = os.path.join(ROOT, 'tests', 'golden', 'tj_layer')
TJ = os.path.join(ROOT, 'tests', 'golden', 'tokenizer_json')
HIDDEN = 16
SMALL_VOCAB = 1000


def load(case):
    with open(os.path.join(TJ, case, 'config.json')) as f:
        return json.load(f)


# Published config.json values (the hub's) for the directories without a committed config.json.
ROBERTA = {"architectures": ["RobertaForMaskedLM"], "model_type": "roberta", "attention_probs_dropout_prob": 0.1,
           "bos_token_id": 0, "eos_token_id": 2, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 768,
           "initializer_range": 0.02, "intermediate_size": 3072, "layer_norm_eps": 1e-05, "max_position_embeddings": 514,
           "num_attention_heads": 12, "num_hidden_layers": 12, "pad_token_id": 1, "type_vocab_size": 1, "vocab_size": 50265}
GPT2 = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "activation_function": "gelu_new", "attn_pdrop": 0.1,
        "bos_token_id": 50256, "embd_pdrop": 0.1, "eos_token_id": 50256, "initializer_range": 0.02,
        "layer_norm_epsilon": 1e-05, "n_ctx": 1024, "n_embd": 768, "n_head": 12, "n_layer": 12, "n_positions": 1024,
        "resid_pdrop": 0.1, "vocab_size": 50257}
LLAMA3 = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "bos_token_id": 128000, "eos_token_id": 128001,
          "hidden_act": "silu", "hidden_size": 4096, "intermediate_size": 14336, "max_position_embeddings": 8192,
          "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "rms_norm_eps": 1e-05,
          "rope_theta": 500000.0, "tie_word_embeddings": False, "vocab_size": 128256}
QWEN2_5 = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "bos_token_id": 151643, "eos_token_id": 151643,
           "hidden_act": "silu", "hidden_size": 896, "intermediate_size": 4864, "max_position_embeddings": 32768,
           "max_window_layers": 24, "num_attention_heads": 14, "num_hidden_layers": 24, "num_key_value_heads": 2,
           "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 32768, "tie_word_embeddings": True,
           "use_sliding_window": False, "vocab_size": 151936}
QWEN3 = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 1024, "intermediate_size": 3072,
         "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 28,
         "max_position_embeddings": 40960, "rms_norm_eps": 1e-06, "rope_theta": 1000000, "tie_word_embeddings": True,
         "vocab_size": 151936, "bos_token_id": 151643, "eos_token_id": 151645}
DEEPSEEK_V3 = {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "hidden_size": 7168,
               "num_hidden_layers": 61, "vocab_size": 129280, "rms_norm_eps": 1e-06, "tie_word_embeddings": False,
               "bos_token_id": 0, "eos_token_id": 1}
GEMMA3 = {"architectures": ["Gemma3ForCausalLM"], "model_type": "gemma3_text", "hidden_size": 1152, "head_dim": 256,
          "num_hidden_layers": 26, "vocab_size": 262144, "rms_norm_eps": 1e-06, "pad_token_id": 0, "bos_token_id": 2,
          "eos_token_id": 1, "torch_dtype": "bfloat16"}
MODERNBERT = {"architectures": ["ModernBertForMaskedLM"], "model_type": "modernbert", "hidden_size": 768,
              "num_hidden_layers": 22, "vocab_size": 50368, "norm_eps": 1e-05, "norm_bias": False, "pad_token_id": 50283,
              "max_position_embeddings": 8192}


def small(cfg):
    cfg = dict(cfg)
    for k in ('hidden_size', 'n_embd'):
        if k in cfg:
            cfg[k] = HIDDEN
    for k in ('num_hidden_layers', 'n_layer'):
        if k in cfg:
            cfg[k] = 1
    for k in ('num_attention_heads', 'n_head'):
        if k in cfg:
            cfg[k] = 2
    if 'num_key_value_heads' in cfg:
        cfg['num_key_value_heads'] = 1
    if 'head_dim' in cfg:
        cfg['head_dim'] = HIDDEN // 2
    if 'intermediate_size' in cfg:
        cfg['intermediate_size'] = 2 * HIDDEN
    if cfg.get('vocab_size', 0) > 2048:
        cfg['vocab_size'] = SMALL_VOCAB
    for k in ('pad_token_id', 'bos_token_id', 'eos_token_id'):
        if isinstance(cfg.get(k), int) and cfg[k] >= cfg['vocab_size']:
            cfg[k] = cfg['vocab_size'] - 1 - ('pad_token_id', 'bos_token_id', 'eos_token_id').index(k)
    return cfg


def batches(pad, seed, with_types):
    rng = np.random.default_rng(seed)
    lengths = [6, 3, 5]
    width = max(lengths)
    rows = []
    for n in lengths:
        ids = rng.integers(3, SMALL_VOCAB, size=n)
        ids[ids == pad] = 4 if pad != 4 else 5
        rows.append(ids)
    out = {}
    for side in ('right', 'left'):
        ids = np.full((len(rows), width), pad, dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        types = np.zeros((len(rows), width), dtype=np.int64)
        for i, r in enumerate(rows):
            sl = slice(0, len(r)) if side == 'right' else slice(width - len(r), width)
            ids[i, sl], mask[i, sl] = r, 1
            if with_types and side == 'right':
                types[i, len(r) // 2:len(r)] = 1  # a pair: second segment type 1 (BERT's template)
        out[side] = (ids, mask, types)
    inner = np.array([np.concatenate([rows[0][:2], [pad], rows[0][2:]])], dtype=np.int64)
    out['inner'] = (inner, np.ones(inner.shape, dtype=np.int64), np.zeros(inner.shape, dtype=np.int64))
    return out


def save(name, cfg, tensors, golden):
    d = os.path.join(OUT_MODELS, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'config.json'), 'w') as f:
        json.dump(cfg, f, indent=2)
        f.write('\n')
    write_safetensors(os.path.join(d, 'model.safetensors'), tensors)
    os.makedirs(OUT_GOLDEN, exist_ok=True)
    np.savez(os.path.join(OUT_GOLDEN, name + '.npz'), **golden)


def run_transformers(name, cfg, seed, with_types=False):
    cfg = small(cfg)
    config = transformers.AutoConfig.for_model(**cfg)
    cls = getattr(transformers, cfg['architectures'][0])
    torch.manual_seed(seed)
    model = cls(config).eval()
    state = model.state_dict()
    # save_pretrained leaves tied copies out (the input table is the one kept).
    tied = set()
    if getattr(config, 'tie_word_embeddings', True):
        for key in getattr(model, '_tied_weights_keys', None) or []:
            tied.add(key)
    tensors = {k: v.detach().clone() for k, v in state.items() if k not in tied and not k.endswith(('.attn.bias', '.attn.masked_bias'))}
    pad = cfg.get('pad_token_id')
    pad = 0 if pad is None else pad
    golden = {'pad_id': np.array(pad)}
    with torch.no_grad():
        for side, (ids, mask, types) in batches(pad, seed, with_types).items():
            kwargs = {'input_ids': torch.from_numpy(ids), 'attention_mask': torch.from_numpy(mask),
                      'output_hidden_states': True}
            if cfg['model_type'] == 'bert':
                kwargs['token_type_ids'] = torch.from_numpy(types)
            out = model(**kwargs).hidden_states[0]
            golden.update({'ids_' + side: ids, 'mask_' + side: mask, 'types_' + side: types,
                           'out_' + side: out.numpy().astype(np.float32)})
    save(name, cfg, tensors, golden)
    print(name, cls.__name__, {k: tuple(v.shape) for k, v in list(tensors.items())[:3]}, '...', len(tensors), 'tensors')


def run_formula(name, cfg, seed, table_name, extra, formula, dtype=torch.float32):
    cfg = small(cfg)
    g = torch.Generator().manual_seed(seed)
    table = (torch.randn(cfg['vocab_size'], HIDDEN, generator=g) * 0.5).to(dtype)
    tensors = {table_name: table}
    for k, shape in extra.items():
        tensors[k] = (1.0 + 0.1 * torch.randn(*shape, generator=g)).to(dtype)
    pad = cfg.get('pad_token_id')
    pad = 0 if pad is None else pad
    golden = {'pad_id': np.array(pad)}
    for side, (ids, mask, types) in batches(pad, seed, False).items():
        out = formula(cfg, tensors, torch.from_numpy(ids))
        golden.update({'ids_' + side: ids, 'mask_' + side: mask, 'types_' + side: types,
                       'out_' + side: out.to(torch.float32).numpy()})
    save(name, cfg, tensors, golden)
    print(name, 'formula', table_name, tuple(table.shape), table.dtype)


def plain(cfg, t, ids):
    return torch.nn.functional.embedding(ids, next(iter(t.values())))


def gemma3(cfg, t, ids):
    w = t['model.embed_tokens.weight']
    embed_scale = torch.tensor(cfg['hidden_size'] ** 0.5)
    return torch.nn.functional.embedding(ids, w) * embed_scale.to(w.dtype)


def modernbert(cfg, t, ids):
    x = torch.nn.functional.embedding(ids, t['model.embeddings.tok_embeddings.weight'])
    return torch.nn.functional.layer_norm(x, (HIDDEN,), t['model.embeddings.norm.weight'], None, cfg.get('norm_eps', 1e-5))


def main():
    run_transformers('bert', load('bert_base_uncased'), 1, with_types=True)
    run_transformers('minilm', load('all_minilm_l6_v2_st'), 2, with_types=True)
    run_transformers('roberta', ROBERTA, 3)
    run_transformers('gpt2', GPT2, 4)
    run_transformers('llama3', LLAMA3, 5)
    run_transformers('qwen2_5', QWEN2_5, 6)
    run_formula('qwen3', QWEN3, 7, 'model.embed_tokens.weight', {'model.norm.weight': (HIDDEN,)}, plain)
    run_formula('deepseek_v3', DEEPSEEK_V3, 8, 'model.embed_tokens.weight', {'model.norm.weight': (HIDDEN,)}, plain)
    run_formula('gemma3', GEMMA3, 9, 'model.embed_tokens.weight', {'model.norm.weight': (HIDDEN,)}, gemma3, torch.bfloat16)
    run_formula('modernbert', MODERNBERT, 10, 'model.embeddings.tok_embeddings.weight',
                {'model.embeddings.norm.weight': (HIDDEN,)}, modernbert)


if __name__ == '__main__':
    main()
