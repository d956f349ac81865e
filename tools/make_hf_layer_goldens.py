#!/usr/bin/python3
"""Tiny Hugging Face model directories and the input layer their own code computes.

    /usr/bin/python3 tools/make_hf_layer_goldens.py

For each model directory in /work/shared/models (real config.json files; see
its SOURCES.md) this writes tests/models/hf_layer/<name>/: config.json with
small sizes, and model.safetensors, a random checkpoint under the exact tensor
names that the config's `architectures` class saves (its base_model_prefix
included). Then it computes, for fixed batches of ids padded on the right and
on the left (and one holding the pad id inside a sequence), the tensor that model's code produces (an encoder's
hidden_states[0], a decoder-only model's inputs_embeds after its normalizer),
with a port of the upstream embedding modules in PyTorch, and writes
tests/golden/hf_layer/<name>.npz (ids, attention masks, outputs).

Ported from huggingface/transformers, each file read for this port (path under
src/transformers/models/, @ the commit of the stored copy that was read):
  xlm_roberta/modeling_xlm_roberta.py @ 015bfeb86891c5f5e450f48942260ac3e2cd2bf2
      XLMRobertaEmbeddings ("Copied from ... RobertaEmbeddings"; CamemBERT and RoBERTa carry the same copy):
      create_position_ids_from_input_ids, token_type_ids from the zero buffer, (word + type) + position, LayerNorm
  bart/modeling_bart.py @ 00646d2acdbadd8e96384d62aa9cc1370cf358d5
      BartEncoder.forward: embed_tokens × embed_scale + BartLearnedPositionalEmbedding (offset 2), layernorm_embedding;
      encoder_states gets that sum before the first layer (hidden_states[0]); no final layer_norm in BART
  mbart/modeling_mbart.py @ 00b676f8f0489b88652a31d70751cc540dd06305
      MBartScaledWordEmbedding, MBartLearnedPositionalEmbedding (copies of BART's), MBartEncoder.forward:
      layernorm_embedding before the layers; its final layer_norm only after them (not in hidden_states[0])
  m2m_100/modeling_m2m_100.py @ 001400f58fab2511856b86500380fd51aaa6150f
      M2M100SinusoidalPositionalEmbedding (make_weights(num_positions + offset) → get_embedding(n + offset)),
      create_position_ids_from_input_ids
  marian/modeling_marian.py @ 00b676f8f0489b88652a31d70751cc540dd06305
      MarianSinusoidalPositionalEmbedding._init_weight, forward (arange by column)
  pegasus/modeling_pegasus.py @ 00031785a846c5a9fe7541a717a436840b609084
      PegasusSinusoidalPositionalEmbedding ("Copied from ... MarianSinusoidalPositionalEmbedding")
  albert/modeling_albert.py @ 00661e38a9e1393472adae9ac71f777b74ccdcde
      AlbertEmbeddings (LayerNorm over embedding_size); AlbertTransformer.forward applies
      embedding_hidden_mapping_in before all_hidden_states = (hidden_states,)
  deberta_v2/modeling_deberta_v2.py @ 0038a3caa5c7d0c5014704005dd67ab347451ddc
      DebertaV2Embeddings.forward (position_biased_input, type_vocab_size > 0, embed_proj without bias, LayerNorm, × mask)
  gemma/modeling_gemma.py @ 0125ac68d92d1866341d531c52af7165af06f3e9
      GemmaModel.forward: normalizer = torch.tensor(hidden_size**0.5, dtype=hidden_states.dtype), applied before
      the first layer's all_hidden_states += (hidden_states,)
  t5, llama, mistral, xlnet    the plain embedding lookup (T5Stack: shared; LlamaModel/MistralModel: embed_tokens;
                               XLNetModel: word_embedding), hidden_states[0] before any layer
The config classes' defaults, used where a config.json leaves a key out (CONFIG_DEFAULTS below):
  marian/configuration_marian.py @ 03a1b061a47f52dfc69a780bd32a40067dfcfe62 (scale_embedding False, pad 58100)
  pegasus/configuration_pegasus.py @ 00e12e7c54598e50e7bef1540db3408f81916de1 (scale_embedding False, pad 0)
  m2m_100/configuration_m2m_100.py @ 04591daa29c3c0870f8327453a791f428a4c512d (scale_embedding True, pad 1)
  deberta_v2/configuration_deberta_v2.py @ 029c0bb0fb5f9c177fdee4b82bb94abde8e1dfcf
      (layer_norm_eps 1e-7, position_biased_input True, type_vocab_size 0, max_position_embeddings 512, pad 0)
  bart/configuration_bart.py @ 0171fcd70ffe4a319472ce6bf22285faee3ae747 (scale_embedding False, pad 1)
  mbart/configuration_mbart.py @ 008f5c8c29be84d4721dc6d1e0fcd72300580be4 (scale_embedding False, pad 1)
  xlm_roberta/configuration_xlm_roberta.py @ 0e6f6f746873f93a5790ebfdc28a9767f9e0b5dc
      (layer_norm_eps 1e-12, type_vocab_size 2, max_position_embeddings 512, pad 1)
  albert/configuration_albert.py @ 008f5c8c29be84d4721dc6d1e0fcd72300580be4
      (embedding_size 128, layer_norm_eps 1e-12, type_vocab_size 2, max_position_embeddings 512, pad 0)

All in float32, as from_pretrained loads by default (BF16 checkpoints upcast).

Sizes: hidden 16 (ALBERT embedding_size 8); vocab_size above 2048 is set to
1000 in the copied config (the test ids are below 1000; Marian's pad/decoder
start id, vocab_size - 1, moves with it). Also written: xlm-roberta-sharded
(the same checkpoint in three shards with model.safetensors.index.json; the
third holds only tensors the input layer does not use), deberta-v2-embproj
(embedding_size 8, position_biased_input, two token types), gemma-h24 (hidden 24,
with the outputs of torch_dtype bfloat16 and float16 too), and
xlm-roberta-pickle (only pytorch_model.bin: to be refused, never read), and
bart-from-mbart-cc25 (mBART-cc25's config as model_type bart: BartEncoder, no
final encoder layer_norm) and *-config-defaults: configs with keys left out
(Marian's and Pegasus's scale_embedding, XLM-R's layer_norm_eps and
type_vocab_size), so that the config class's default applies.
"""
import json
import math
import os
import shutil
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = '/work/shared/models'
OUT_MODELS = os.path.join(ROOT, 'tests', 'models', 'hf_layer')
OUT_GOLDEN = os.path.join(ROOT, 'tests', 'golden', 'hf_layer')
HIDDEN = 16
ALBERT_E = 8
MAX_VOCAB = 2048
SMALL_VOCAB = 1000


# --- safetensors, written by hand: 8-byte little-endian header length, JSON header, data.
def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        t = t.contiguous()
        if t.dtype == torch.bfloat16:
            raw, dtype = t.view(torch.int16).numpy().tobytes(), 'BF16'
        elif t.dtype == torch.float16:
            raw, dtype = t.numpy().tobytes(), 'F16'
        else:
            raw, dtype = t.to(torch.float32).numpy().astype('<f4').tobytes(), 'F32'
        header[name] = {'dtype': dtype, 'shape': list(t.shape), 'data_offsets': [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(',', ':')).encode()
    text += b' ' * ((8 - len(text) % 8) % 8)
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def small_config(cfg):
    cfg = dict(cfg)
    for key in ('hidden_size', 'd_model'):
        if key in cfg:
            cfg[key] = HIDDEN
    for key, value in (('intermediate_size', 32), ('d_ff', 32), ('encoder_ffn_dim', 32), ('decoder_ffn_dim', 32),
                       ('num_attention_heads', 2), ('encoder_attention_heads', 2), ('decoder_attention_heads', 2),
                       ('num_heads', 2), ('n_head', 2), ('num_key_value_heads', 1), ('d_kv', 8), ('head_dim', 8),
                       ('num_hidden_layers', 1), ('encoder_layers', 1), ('decoder_layers', 1), ('num_layers', 1),
                       ('num_decoder_layers', 1), ('n_layer', 1), ('pooler_hidden_size', HIDDEN), ('d_inner', 32)):
        if key in cfg:
            cfg[key] = value
    if cfg.get('model_type') == 'albert':
        cfg['embedding_size'] = ALBERT_E
    if cfg['vocab_size'] > MAX_VOCAB:
        old = cfg['vocab_size']
        cfg['vocab_size'] = SMALL_VOCAB
        for key in ('pad_token_id', 'decoder_start_token_id', 'bos_token_id', 'eos_token_id'):
            if isinstance(cfg.get(key), int) and cfg[key] >= SMALL_VOCAB:
                cfg[key] = cfg[key] - old + SMALL_VOCAB  # Marian: the last id stays the last
        if 'bad_words_ids' in cfg:
            cfg['bad_words_ids'] = [[SMALL_VOCAB - 1]]
    return cfg


# The config classes' __init__ defaults (files and commits in the docstring): what the model sees for a key that
# config.json leaves out.
CONFIG_DEFAULTS = {
    'xlm-roberta': {'layer_norm_eps': 1e-12, 'type_vocab_size': 2, 'max_position_embeddings': 512, 'pad_token_id': 1},
    'camembert': {'layer_norm_eps': 1e-12, 'type_vocab_size': 2, 'max_position_embeddings': 512, 'pad_token_id': 1},
    'bart': {'scale_embedding': False, 'max_position_embeddings': 1024, 'pad_token_id': 1},
    'mbart': {'scale_embedding': False, 'max_position_embeddings': 1024, 'pad_token_id': 1},
    'm2m_100': {'scale_embedding': True, 'max_position_embeddings': 1024, 'pad_token_id': 1},
    'marian': {'scale_embedding': False, 'max_position_embeddings': 1024, 'pad_token_id': 58100},
    'pegasus': {'scale_embedding': False, 'max_position_embeddings': 1024, 'pad_token_id': 0},
    'albert': {'embedding_size': 128, 'layer_norm_eps': 1e-12, 'type_vocab_size': 2, 'max_position_embeddings': 512,
               'pad_token_id': 0},
    'deberta-v2': {'layer_norm_eps': 1e-7, 'position_biased_input': True, 'type_vocab_size': 0,
                   'max_position_embeddings': 512, 'pad_token_id': 0},
}


def conf(cfg, key):
    """config.<key> as the model reads it: config.json's value, else the config class's default."""
    if key in cfg:
        return cfg[key]
    if key == 'embedding_size' and cfg['model_type'] == 'deberta-v2':
        return hidden(cfg)  # DebertaV2Embeddings: getattr(config, "embedding_size", config.hidden_size)
    return CONFIG_DEFAULTS[cfg['model_type']][key]


def hidden(cfg):
    return cfg.get('hidden_size', cfg.get('d_model'))


class Gen:
    def __init__(self, seed):
        self.g = torch.Generator().manual_seed(seed)

    def randn(self, *shape):
        return torch.randn(*shape, generator=self.g)

    def ln_weight(self, n):
        return 1.0 + 0.1 * self.randn(n)

    def ln_bias(self, n):
        return 0.1 * self.randn(n)


# --- the checkpoints: exact HF names under the architecture's prefix --------------------------------------------

def checkpoint(cfg, g):
    """(tensors as saved, the float32 weights the embedding port reads)."""
    mt = cfg['model_type']
    arch = (cfg.get('architectures') or [''])[0]
    V, H = cfg['vocab_size'], hidden(cfg)
    t, w = {}, {}
    if mt in ('xlm-roberta', 'camembert'):
        p = 'roberta.' if arch.endswith(('ForMaskedLM', 'ForSequenceClassification', 'ForCausalLM')) else ''
        P, T = conf(cfg, 'max_position_embeddings'), conf(cfg, 'type_vocab_size')
        w = {'word': g.randn(V, H), 'pos': g.randn(P, H), 'type': g.randn(T, H),
             'ln_w': g.ln_weight(H), 'ln_b': g.ln_bias(H)}
        t = {p + 'embeddings.word_embeddings.weight': w['word'], p + 'embeddings.position_embeddings.weight': w['pos'],
             p + 'embeddings.token_type_embeddings.weight': w['type'], p + 'embeddings.LayerNorm.weight': w['ln_w'],
             p + 'embeddings.LayerNorm.bias': w['ln_b'],
             p + 'encoder.layer.0.output.LayerNorm.weight': g.ln_weight(H), 'lm_head.bias': g.randn(V)}
    elif mt in ('bart', 'mbart'):
        P = conf(cfg, 'max_position_embeddings') + 2  # BartLearnedPositionalEmbedding: num_embeddings + offset
        w = {'word': g.randn(V, H), 'pos': g.randn(P, H), 'ln_w': g.ln_weight(H), 'ln_b': g.ln_bias(H)}
        t = {'model.shared.weight': w['word'], 'model.encoder.embed_positions.weight': w['pos'],
             'model.encoder.layernorm_embedding.weight': w['ln_w'], 'model.encoder.layernorm_embedding.bias': w['ln_b']}
        if mt == 'mbart':  # MBartEncoder's final layer_norm (BartEncoder has none)
            t['model.encoder.layer_norm.weight'] = g.ln_weight(H)
            t['model.encoder.layer_norm.bias'] = g.ln_bias(H)
        t['final_logits_bias'] = torch.zeros(1, V)
        if 'cc25' in cfg.get('_dir', ''):  # older checkpoints also hold the tied copy
            t['model.encoder.embed_tokens.weight'] = w['word']
    elif mt == 'm2m_100':
        w = {'word': g.randn(V, H)}
        t = {'model.shared.weight': w['word'], 'model.encoder.layer_norm.weight': g.ln_weight(H),
             'model.encoder.layer_norm.bias': g.ln_bias(H)}
    elif mt in ('marian', 'pegasus'):
        w = {'word': g.randn(V, H)}
        t = {'model.shared.weight': w['word'], 'final_logits_bias': torch.zeros(1, V)}
        if mt == 'pegasus':  # as older save_pretrained stored the static table: from_pretrained loads it back
            t['model.encoder.embed_positions.weight'] = marian_sinusoid(conf(cfg, 'max_position_embeddings'), H)
    elif mt == 'albert':
        E, P, T = conf(cfg, 'embedding_size'), conf(cfg, 'max_position_embeddings'), conf(cfg, 'type_vocab_size')
        w = {'word': g.randn(V, E), 'pos': g.randn(P, E), 'type': g.randn(T, E), 'ln_w': g.ln_weight(E),
             'ln_b': g.ln_bias(E), 'proj_w': g.randn(H, E) / math.sqrt(E), 'proj_b': g.ln_bias(H)}
        t = {'albert.embeddings.word_embeddings.weight': w['word'],
             'albert.embeddings.position_embeddings.weight': w['pos'],
             'albert.embeddings.token_type_embeddings.weight': w['type'],
             'albert.embeddings.LayerNorm.weight': w['ln_w'], 'albert.embeddings.LayerNorm.bias': w['ln_b'],
             'albert.encoder.embedding_hidden_mapping_in.weight': w['proj_w'],
             'albert.encoder.embedding_hidden_mapping_in.bias': w['proj_b'],
             'albert.encoder.albert_layer_groups.0.albert_layers.0.full_layer_layer_norm.weight': g.ln_weight(H),
             'predictions.bias': g.randn(V)}
    elif mt == 'deberta-v2':
        p = 'deberta.' if arch else ''  # no architectures: a base model's names
        E = conf(cfg, 'embedding_size')
        w = {'word': g.randn(V, E), 'ln_w': g.ln_weight(H), 'ln_b': g.ln_bias(H)}
        t = {p + 'embeddings.word_embeddings.weight': w['word']}
        if conf(cfg, 'position_biased_input'):
            w['pos'] = g.randn(conf(cfg, 'max_position_embeddings'), E)
            t[p + 'embeddings.position_embeddings.weight'] = w['pos']
        if conf(cfg, 'type_vocab_size') > 0:
            w['type'] = g.randn(conf(cfg, 'type_vocab_size'), E)
            t[p + 'embeddings.token_type_embeddings.weight'] = w['type']
        if E != H:
            w['proj_w'] = g.randn(H, E) / math.sqrt(E)
            t[p + 'embeddings.embed_proj.weight'] = w['proj_w']
        t[p + 'embeddings.LayerNorm.weight'] = w['ln_w']
        t[p + 'embeddings.LayerNorm.bias'] = w['ln_b']
        t[p + 'encoder.rel_embeddings.weight'] = g.randn(8, H)
    elif mt in ('llama', 'mistral', 'gemma'):
        dtype = torch.bfloat16 if cfg.get('torch_dtype') == 'bfloat16' else torch.float32
        word = g.randn(V, H).to(dtype)
        w = {'word': word.float()}  # from_pretrained's default float32: an exact upcast
        t = {'model.embed_tokens.weight': word, 'model.norm.weight': g.ln_weight(H).to(dtype)}
        if not cfg.get('tie_word_embeddings', mt == 'gemma'):
            t['lm_head.weight'] = g.randn(V, H).to(dtype)
    elif mt in ('t5', 'mt5'):
        w = {'word': g.randn(V, H)}
        t = {'shared.weight': w['word'], 'encoder.final_layer_norm.weight': g.ln_weight(H)}
        if cfg.get('tie_word_embeddings') is False:
            t['lm_head.weight'] = g.randn(V, H)
    elif mt == 'xlnet':
        w = {'word': g.randn(V, H)}
        t = {'transformer.word_embedding.weight': w['word'], 'transformer.mask_emb': g.randn(1, 1, H),
             'lm_loss.bias': g.randn(V)}
    else:
        raise SystemExit('no checkpoint recipe for ' + mt)
    return t, w


# --- the ports of the embedding modules ---------------------------------------------------------------------------

def create_position_ids_from_input_ids(input_ids, padding_idx, past_key_values_length=0):
    # modeling_roberta.py / modeling_m2m_100.py, as written there
    mask = input_ids.ne(padding_idx).int()
    incremental_indices = (torch.cumsum(mask, dim=1).type_as(mask) + past_key_values_length) * mask
    return incremental_indices.long() + padding_idx


def m2m100_get_embedding(num_embeddings, embedding_dim, padding_idx=None):
    # M2M100SinusoidalPositionalEmbedding.get_embedding
    half_dim = embedding_dim // 2
    emb = math.log(10000) / (half_dim - 1)
    emb = torch.exp(torch.arange(half_dim, dtype=torch.float) * -emb)
    emb = torch.arange(num_embeddings, dtype=torch.float).unsqueeze(1) * emb.unsqueeze(0)
    emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=1).view(num_embeddings, -1)
    if embedding_dim % 2 == 1:
        emb = torch.cat([emb, torch.zeros(num_embeddings, 1)], dim=1)
    if padding_idx is not None:
        emb[padding_idx, :] = 0
    return emb


def marian_sinusoid(n_pos, dim):
    # MarianSinusoidalPositionalEmbedding._init_weight (Pegasus's is a copy)
    position_enc = np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for pos in range(n_pos)])
    out = torch.empty(n_pos, dim, dtype=torch.float32)
    sentinel = dim // 2 if dim % 2 == 0 else (dim // 2) + 1
    out[:, 0:sentinel] = torch.FloatTensor(np.sin(position_enc[:, 0::2]))
    out[:, sentinel:] = torch.FloatTensor(np.cos(position_enc[:, 1::2]))
    return out


def forward(cfg, w, input_ids, attention_mask, stored):
    mt = cfg['model_type']
    H = hidden(cfg)
    bsz, seq_len = input_ids.shape
    if mt in ('xlm-roberta', 'camembert'):  # RobertaEmbeddings.forward
        padding_idx = conf(cfg, 'pad_token_id')
        position_ids = create_position_ids_from_input_ids(input_ids, padding_idx)
        token_type_ids = torch.zeros(input_ids.shape, dtype=torch.long)
        inputs_embeds = F.embedding(input_ids, w['word'], padding_idx)
        token_type_embeddings = F.embedding(token_type_ids, w['type'])
        embeddings = inputs_embeds + token_type_embeddings
        position_embeddings = F.embedding(position_ids, w['pos'], padding_idx)
        embeddings += position_embeddings
        return F.layer_norm(embeddings, (H,), w['ln_w'], w['ln_b'], conf(cfg, 'layer_norm_eps'))
    if mt in ('bart', 'mbart'):  # BartEncoder / MBartEncoder.forward up to hidden_states[0]
        embed_scale = math.sqrt(H) if conf(cfg, 'scale_embedding') else 1.0
        inputs_embeds = F.embedding(input_ids, w['word']) * embed_scale
        positions = torch.arange(0, seq_len, dtype=torch.long).expand(bsz, -1)  # BartLearnedPositionalEmbedding
        embed_pos = F.embedding(positions + 2, w['pos'])
        hidden_states = inputs_embeds + embed_pos
        return F.layer_norm(hidden_states, (H,), w['ln_w'], w['ln_b'], 1e-5)  # layernorm_embedding
    if mt == 'm2m_100':  # M2M100Encoder.forward up to hidden_states[0]
        embed_scale = math.sqrt(H) if conf(cfg, 'scale_embedding') else 1.0
        inputs_embeds = F.embedding(input_ids, w['word']) * embed_scale
        padding_idx = conf(cfg, 'pad_token_id')
        position_ids = create_position_ids_from_input_ids(input_ids, padding_idx)
        # __init__: make_weights(num_positions + offset), which calls get_embedding(num_embeddings + offset)
        weights = m2m100_get_embedding(conf(cfg, 'max_position_embeddings') + 2 + 2, H, padding_idx)
        max_pos = padding_idx + 1 + seq_len
        if max_pos > weights.size(0):
            weights = m2m100_get_embedding(max_pos + 2, H, padding_idx)
        embed_pos = weights.index_select(0, position_ids.view(-1)).view(bsz, seq_len, -1)
        return inputs_embeds + embed_pos
    if mt in ('marian', 'pegasus'):  # MarianEncoder / PegasusEncoder.forward up to hidden_states[0]
        embed_scale = math.sqrt(H) if conf(cfg, 'scale_embedding') else 1.0
        inputs_embeds = F.embedding(input_ids, w['word']) * embed_scale
        table = stored if stored is not None else marian_sinusoid(conf(cfg, 'max_position_embeddings'), H)
        embed_pos = F.embedding(torch.arange(0, seq_len, dtype=torch.long), table)
        return inputs_embeds + embed_pos
    if mt == 'albert':  # AlbertEmbeddings.forward, then AlbertTransformer's embedding_hidden_mapping_in
        position_ids = torch.arange(seq_len).expand((1, -1))
        token_type_ids = torch.zeros(input_ids.shape, dtype=torch.long)
        inputs_embeds = F.embedding(input_ids, w['word'])
        embeddings = inputs_embeds + F.embedding(token_type_ids, w['type'])
        embeddings += F.embedding(position_ids, w['pos'])
        embeddings = F.layer_norm(embeddings, (conf(cfg, 'embedding_size'),), w['ln_w'], w['ln_b'],
                                  conf(cfg, 'layer_norm_eps'))
        return F.linear(embeddings, w['proj_w'], w['proj_b'])
    if mt == 'deberta-v2':  # DebertaV2Embeddings.forward
        position_ids = torch.arange(seq_len).expand((1, -1))
        token_type_ids = torch.zeros(input_ids.shape, dtype=torch.long)
        inputs_embeds = F.embedding(input_ids, w['word'])
        if 'pos' in w:
            position_embeddings = F.embedding(position_ids.long(), w['pos'])
        else:
            position_embeddings = torch.zeros_like(inputs_embeds)
        embeddings = inputs_embeds
        if conf(cfg, 'position_biased_input'):
            embeddings = embeddings + position_embeddings
        if conf(cfg, 'type_vocab_size') > 0:
            embeddings = embeddings + F.embedding(token_type_ids, w['type'])
        if conf(cfg, 'embedding_size') != H:
            embeddings = F.linear(embeddings, w['proj_w'])  # embed_proj: nn.Linear(..., bias=False)
        embeddings = F.layer_norm(embeddings, (H,), w['ln_w'], w['ln_b'], conf(cfg, 'layer_norm_eps'))
        mask = attention_mask
        if mask.dim() != embeddings.dim():
            if mask.dim() == 4:
                mask = mask.squeeze(1).squeeze(1)
            mask = mask.unsqueeze(2)
        mask = mask.to(embeddings.dtype)
        return embeddings * mask
    if mt == 'gemma':  # GemmaModel.forward: inputs_embeds * normalizer
        hidden_states = F.embedding(input_ids, w['word'])
        normalizer = torch.tensor(H ** 0.5, dtype=hidden_states.dtype)
        return hidden_states * normalizer
    if mt in ('t5', 'mt5', 'llama', 'mistral', 'xlnet'):
        return F.embedding(input_ids, w['word'])
    raise SystemExit('no port for ' + mt)


def batches(cfg, rng):
    pad = cfg.get('pad_token_id')
    pad = 0 if pad is None else pad
    lengths = [6, 3, 5]
    width = max(lengths)
    rows = []
    for n in lengths:
        ids = rng.integers(3, 1000, size=n)
        ids[ids == pad] = 4 if pad != 4 else 5
        rows.append(ids)
    out = {}
    for side in ('right', 'left'):
        ids = np.full((len(rows), width), pad, dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for i, r in enumerate(rows):
            if side == 'right':
                ids[i, :len(r)], mask[i, :len(r)] = r, 1
            else:
                ids[i, width - len(r):], mask[i, width - len(r):] = r, 1
        out[side] = (ids, mask)
    # The pad id inside a sequence, no padding: RoBERTa's and M2M100's positions skip it (they count ids, not
    # the attention mask), and give it position padding_idx.
    inner = np.array([np.concatenate([rows[0][:2], [pad], rows[0][2:]])], dtype=np.int64)
    out['inner'] = (inner, np.ones(inner.shape, dtype=np.int64))
    return pad, out


def make(name, cfg, seed, write=True):
    g = Gen(seed)
    tensors, w = checkpoint(cfg, g)
    d = os.path.join(OUT_MODELS, name)
    os.makedirs(d, exist_ok=True)
    saved = {k: v for k, v in cfg.items() if k != '_dir'}
    with open(os.path.join(d, 'config.json'), 'w') as f:
        json.dump(saved, f, indent=2)
        f.write('\n')
    if write:
        write_safetensors(os.path.join(d, 'model.safetensors'), tensors)
    stored = tensors.get('model.encoder.embed_positions.weight') if cfg['model_type'] == 'pegasus' else None
    pad, b = batches(cfg, np.random.default_rng(seed))
    golden = {'pad_id': np.array(pad)}
    with torch.no_grad():
        for side, (ids, mask) in b.items():
            out = forward(cfg, w, torch.from_numpy(ids), torch.from_numpy(mask), stored)
            golden['ids_' + side] = ids
            golden['mask_' + side] = mask
            golden['out_' + side] = out.numpy().astype(np.float32)
    os.makedirs(OUT_GOLDEN, exist_ok=True)
    np.savez(os.path.join(OUT_GOLDEN, name + '.npz'), **golden)
    return tensors


def recipe_goldens():
    """Checkpoints for README's recipe rows that have no model directory here: the Annotated
    Transformer (nn.Embedding × √d + its float32 PositionalEncoding), BERT (BertEmbeddings:
    (word + type) + position by column, LayerNorm 1e-12) and GPT-2 (wte + wpe by column)."""
    d = os.path.join(OUT_GOLDEN, 'recipes')
    os.makedirs(d, exist_ok=True)
    g = Gen(500)
    V, H, P = 1000, 16, 64
    ids = torch.from_numpy(np.random.default_rng(500).integers(3, 1000, size=(2, 5)))
    seq = ids.shape[1]
    # The Annotated Transformer: Embeddings.forward and PositionalEncoding.__init__/forward (eval: no dropout).
    lut = g.randn(V, H)
    pe = torch.zeros(P, H)
    position = torch.arange(0, P).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, H, 2) * -(math.log(10000.0) / H))
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    annotated = F.embedding(ids, lut) * math.sqrt(H) + pe[:seq].unsqueeze(0)
    write_safetensors(os.path.join(d, 'annotated.safetensors'), {'weight': lut})
    # BERT (modeling_bert.py BertEmbeddings.forward).
    w = {'word': g.randn(V, H), 'pos': g.randn(P, H), 'type': g.randn(2, H), 'ln_w': g.ln_weight(H), 'ln_b': g.ln_bias(H)}
    position_ids = torch.arange(seq).expand((1, -1))
    emb = F.embedding(ids, w['word']) + F.embedding(torch.zeros_like(ids), w['type'])
    emb += F.embedding(position_ids, w['pos'])
    bert = F.layer_norm(emb, (H,), w['ln_w'], w['ln_b'], 1e-12)
    write_safetensors(os.path.join(d, 'bert.safetensors'), {
        'bert.embeddings.word_embeddings.weight': w['word'], 'bert.embeddings.position_embeddings.weight': w['pos'],
        'bert.embeddings.token_type_embeddings.weight': w['type'], 'bert.embeddings.LayerNorm.weight': w['ln_w'],
        'bert.embeddings.LayerNorm.bias': w['ln_b']})
    # GPT-2 (modeling_gpt2.py GPT2Model.forward: inputs_embeds + position_embeds).
    wte, wpe = g.randn(V, H), g.randn(P, H)
    gpt2 = F.embedding(ids, wte) + F.embedding(torch.arange(seq).unsqueeze(0), wpe)
    write_safetensors(os.path.join(d, 'gpt2.safetensors'), {'transformer.wte.weight': wte, 'transformer.wpe.weight': wpe})
    np.savez(os.path.join(d, 'recipes.npz'), ids=ids.numpy(), annotated=annotated.numpy(), bert=bert.numpy(),
             gpt2=gpt2.numpy())


def main():
    for old in (OUT_MODELS, OUT_GOLDEN):
        if os.path.isdir(old):
            shutil.rmtree(old)
    names = sorted(n for n in os.listdir(SHARED) if os.path.isdir(os.path.join(SHARED, n)))
    for seed, name in enumerate(names, start=1):
        with open(os.path.join(SHARED, name, 'config.json')) as f:
            cfg = small_config(json.load(f))
        cfg['_dir'] = name
        tensors = make(name, cfg, seed)
        if name.startswith('xlm-roberta'):
            base = cfg
            xlmr_tensors = tensors
    # The same XLM-R checkpoint in three shards; the third holds only tensors the layer does not use.
    d = os.path.join(OUT_MODELS, 'xlm-roberta-sharded')
    os.makedirs(d)
    shutil.copy(os.path.join(OUT_MODELS, 'xlm-roberta-base-subst-hfsample', 'config.json'), d)
    shard_of = {}
    for k in xlmr_tensors:
        shard_of[k] = 1 if 'word_embeddings' in k else 3 if ('encoder.' in k or 'lm_head' in k) else 2
    weight_map = {}
    for s in (1, 2, 3):
        fname = 'model-%05d-of-00003.safetensors' % s
        part = {k: v for k, v in xlmr_tensors.items() if shard_of[k] == s}
        write_safetensors(os.path.join(d, fname), part)
        weight_map.update({k: fname for k in part})
    with open(os.path.join(d, 'model.safetensors.index.json'), 'w') as f:
        json.dump({'metadata': {'total_size': sum(v.numel() * 4 for v in xlmr_tensors.values())},
                   'weight_map': dict(sorted(weight_map.items()))}, f, indent=2)
        f.write('\n')
    shutil.copy(os.path.join(OUT_GOLDEN, 'xlm-roberta-base-subst-hfsample.npz'),
                os.path.join(OUT_GOLDEN, 'xlm-roberta-sharded.npz'))
    # DeBERTa-v2 with embed_proj, positions in the input and token types.
    with open(os.path.join(SHARED, 'deberta-v3-large-subst-albertspiece', 'config.json')) as f:
        cfg = small_config(json.load(f))
    cfg.update({'embedding_size': 8, 'position_biased_input': True, 'type_vocab_size': 2,
                'architectures': ['DebertaV2ForMaskedLM']})
    make('deberta-v2-embproj', cfg, 101)
    # Gemma run with torch_dtype=bfloat16 / float16 (hidden 24: √24 is not a bfloat16): the normalizer is
    # torch.tensor(hidden_size**0.5, dtype=hidden_states.dtype), the product rounded to that dtype.
    with open(os.path.join(SHARED, 'gemma-2b-it-subst-mistralv3', 'config.json')) as f:
        cfg = small_config(json.load(f))
    cfg['hidden_size'] = 24
    tensors = make('gemma-h24', cfg, 102)
    golden = dict(np.load(os.path.join(OUT_GOLDEN, 'gemma-h24.npz')))
    with torch.no_grad():
        for dtype, key in ((torch.bfloat16, 'bf16'), (torch.float16, 'f16')):
            word = tensors['model.embed_tokens.weight'].to(dtype)  # from_pretrained(torch_dtype=dtype)
            hidden_states = F.embedding(torch.from_numpy(golden['ids_right']), word)
            normalizer = torch.tensor(cfg['hidden_size'] ** 0.5, dtype=hidden_states.dtype)
            golden['out_right_' + key] = (hidden_states * normalizer).float().numpy()
    np.savez(os.path.join(OUT_GOLDEN, 'gemma-h24.npz'), **golden)
    # Keys left out of config.json: the config class's default applies (Marian's and Pegasus's scale_embedding is
    # False; XLM-R's layer_norm_eps 1e-12 and type_vocab_size 2).
    for src, name, seed, drop in (
            ('marian-opus-mt-en-mg', 'marian-config-defaults', 103, ('scale_embedding',)),
            ('pegasus-autonlp-subst-hfsample', 'pegasus-config-defaults', 104, ('scale_embedding',)),
            ('xlm-roberta-base-subst-hfsample', 'xlm-roberta-config-defaults', 105,
             ('layer_norm_eps', 'type_vocab_size'))):
        with open(os.path.join(SHARED, src, 'config.json')) as f:
            cfg = small_config(json.load(f))
        for key in drop:
            del cfg[key]
        make(name, cfg, seed)
    # BART: mBART-cc25's config as model_type bart (BartForConditionalGeneration: no final encoder layer_norm).
    with open(os.path.join(SHARED, 'mbart-large-cc25-de-pruned', 'config.json')) as f:
        cfg = small_config(json.load(f))
    cfg.update({'model_type': 'bart', 'architectures': ['BartForConditionalGeneration']})
    make('bart-from-mbart-cc25', cfg, 106)
    # Only a pickle: refused, never read.
    d = os.path.join(OUT_MODELS, 'xlm-roberta-pickle')
    os.makedirs(d)
    shutil.copy(os.path.join(OUT_MODELS, 'xlm-roberta-base-subst-hfsample', 'config.json'), d)
    torch.save({'roberta.embeddings.word_embeddings.weight': torch.zeros(2, 2)}, os.path.join(d, 'pytorch_model.bin'))
    recipe_goldens()


if __name__ == '__main__':
    sys.exit(main())
