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
        if t.dtype == torch.int64:  # a saved buffer (BertEmbeddings.position_ids in older checkpoints)
            raw, dtype = t.numpy().astype('<i8').tobytes(), 'I64'
        elif t.dtype == torch.bfloat16:
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
    for key in ('hidden_size', 'd_model', 'dim', 'n_embd'):  # DistilBERT's dim, GPT-2's n_embd
        if key in cfg:
            cfg[key] = HIDDEN
    for key, value in (('intermediate_size', 32), ('d_ff', 32), ('encoder_ffn_dim', 32), ('decoder_ffn_dim', 32),
                       ('num_attention_heads', 2), ('encoder_attention_heads', 2), ('decoder_attention_heads', 2),
                       ('num_heads', 2), ('n_head', 2), ('num_key_value_heads', 1), ('d_kv', 8), ('head_dim', 8),
                       ('num_hidden_layers', 1), ('encoder_layers', 1), ('decoder_layers', 1), ('num_layers', 1),
                       ('num_decoder_layers', 1), ('n_layer', 1), ('pooler_hidden_size', HIDDEN), ('d_inner', 32),
                       ('hidden_dim', 32), ('n_layers', 1), ('n_heads', 2)):
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


# --- transformers v4.44.2 run for real (hfenv), and the newer types' formulas ------------------------------------
#
# The model types the tokenizer.json directories of issue 47 name. Each directory gets a small config.json (the
# published values of the named hub model, written by hand: see tests/models/hf_layer/SOURCES.md), a random
# checkpoint under the names that model's checkpoints use, and a golden:
#   * REAL: transformers v4.44.2 itself (/work/shared/tools/hfenv, PYTHONPATH=/tmp/hfenv): the same tensors saved
#     as pytorch_model.bin in a scratch copy (hfenv's safetensors is a stub), AutoModel.from_pretrained(scratch)
#     (its own prefix stripping and gamma/beta renaming), eval(), model(input_ids, attention_mask[,
#     token_type_ids], output_hidden_states=True).hidden_states[0]: the input layer's output, before any layer.
#   * FORMULA: types v4.44.2 lacks, from huggingface/transformers' newer modelling code (files and commits below):
#     a few lines of PyTorch reproducing the cited lines.
#       qwen3/modeling_qwen3.py @ 000c33fdfde12e1ffafbfcdb3c926df5727a00b6
#           Qwen3Model: embed_tokens = nn.Embedding(vocab_size, hidden_size, padding_idx);
#           forward: inputs_embeds = self.embed_tokens(input_ids); hidden_states = inputs_embeds
#       deepseek_v3/modeling_deepseek_v3.py @ 00b676f8f0489b88652a31d70751cc540dd06305
#           DeepseekV3Model: the same plain embed_tokens; inputs_embeds = self.embed_tokens(input_ids)
#       gemma3/modeling_gemma3.py @ 0018aa647bb13801f061e2d1027c326f531b59fb
#           Gemma3TextScaledWordEmbedding: register_buffer("embed_scale", torch.tensor(embed_scale));
#           forward: super().forward(input_ids) * self.embed_scale.to(self.weight.dtype);
#           Gemma3TextModel: embed_scale=self.config.hidden_size**0.5; Gemma3ForCausalLM: self.model (prefix model.);
#           Gemma3Model: _checkpoint_conversion_mapping {"language_model.model": "language_model"} (the hub's
#           Gemma3ForConditionalGeneration files: language_model.model.embed_tokens.weight)
#       gemma3/configuration_gemma3.py @ 008f5c8c29be84d4721dc6d1e0fcd72300580be4
#           Gemma3TextConfig defaults vocab_size 262_208, hidden_size 2304, pad_token_id 0; Gemma3Config: text_config
#       modernbert/modeling_modernbert.py @ 000c33fdfde12e1ffafbfcdb3c926df5727a00b6
#           ModernBertEmbeddings: tok_embeddings = nn.Embedding(...); norm = nn.LayerNorm(hidden_size,
#           eps=config.norm_eps, bias=config.norm_bias); forward: self.drop(self.norm(self.tok_embeddings(input_ids)));
#           ModernBertModel.forward: all_hidden_states gets hidden_states = self.embeddings(...) before the first
#           layer (without flash_attention_2, so no unpadding); ModernBertForMaskedLM: self.model (prefix model.)
#       modernbert/configuration_modernbert.py @ 001f85b38fb432858ace93f18622f07cec46d874
#           defaults norm_eps 1e-5, norm_bias False, pad_token_id 50283

HFENV = os.environ.get('HFENV', '/tmp/hfenv')
BERT_CLS, BERT_SEP = 101, 102  # bert-base-uncased's [CLS] and [SEP]; below the small vocabulary

# Published config.json values of each hub model, as much as its input layer and AutoModel read (hand-written).
REAL_CONFIGS = {
    'bert-base-uncased': {  # google-research BERT, Apache-2.0; its checkpoint: bert. prefix, LayerNorm gamma/beta
        'architectures': ['BertForMaskedLM'], 'attention_probs_dropout_prob': 0.1, 'gradient_checkpointing': False,
        'hidden_act': 'gelu', 'hidden_dropout_prob': 0.1, 'hidden_size': 768, 'initializer_range': 0.02,
        'intermediate_size': 3072, 'layer_norm_eps': 1e-12, 'max_position_embeddings': 512, 'model_type': 'bert',
        'num_attention_heads': 12, 'num_hidden_layers': 12, 'pad_token_id': 0,
        'position_embedding_type': 'absolute', 'transformers_version': '4.6.0.dev0', 'type_vocab_size': 2,
        'use_cache': True, 'vocab_size': 30522},
    'all-minilm-l6-v2': {  # sentence-transformers/all-MiniLM-L6-v2, Apache-2.0: BertModel, no prefix
        '_name_or_path': 'nreimers/MiniLM-L6-H384-uncased', 'architectures': ['BertModel'],
        'attention_probs_dropout_prob': 0.1, 'gradient_checkpointing': False, 'hidden_act': 'gelu',
        'hidden_dropout_prob': 0.1, 'hidden_size': 384, 'initializer_range': 0.02, 'intermediate_size': 1536,
        'layer_norm_eps': 1e-12, 'max_position_embeddings': 512, 'model_type': 'bert', 'num_attention_heads': 12,
        'num_hidden_layers': 6, 'pad_token_id': 0, 'position_embedding_type': 'absolute',
        'transformers_version': '4.8.2', 'type_vocab_size': 2, 'use_cache': True, 'vocab_size': 30522},
    'bge-small-en-v1.5': {  # BAAI/bge-small-en-v1.5, MIT
        '_name_or_path': '/root/.cache/torch/sentence_transformers/BAAI_bge-small-en/', 'architectures': ['BertModel'],
        'attention_probs_dropout_prob': 0.1, 'classifier_dropout': None, 'hidden_act': 'gelu',
        'hidden_dropout_prob': 0.1, 'hidden_size': 384, 'id2label': {'0': 'LABEL_0'}, 'initializer_range': 0.02,
        'intermediate_size': 1536, 'label2id': {'LABEL_0': 0}, 'layer_norm_eps': 1e-12,
        'max_position_embeddings': 512, 'model_type': 'bert', 'num_attention_heads': 12, 'num_hidden_layers': 12,
        'pad_token_id': 0, 'position_embedding_type': 'absolute', 'torch_dtype': 'float32',
        'transformers_version': '4.30.0', 'type_vocab_size': 2, 'use_cache': True, 'vocab_size': 30522},
    'e5-small-v2': {  # intfloat/e5-small-v2, MIT
        '_name_or_path': 'tmp/', 'architectures': ['BertModel'], 'attention_probs_dropout_prob': 0.1,
        'classifier_dropout': None, 'hidden_act': 'gelu', 'hidden_dropout_prob': 0.1, 'hidden_size': 384,
        'initializer_range': 0.02, 'intermediate_size': 1536, 'layer_norm_eps': 1e-12,
        'max_position_embeddings': 512, 'model_type': 'bert', 'num_attention_heads': 12, 'num_hidden_layers': 12,
        'pad_token_id': 0, 'position_embedding_type': 'absolute', 'torch_dtype': 'float32',
        'transformers_version': '4.29.0.dev0', 'type_vocab_size': 2, 'use_cache': True, 'vocab_size': 30522},
    'distilbert-base-uncased': {  # distilbert/distilbert-base-uncased, Apache-2.0
        'activation': 'gelu', 'architectures': ['DistilBertForMaskedLM'], 'attention_dropout': 0.1, 'dim': 768,
        'dropout': 0.1, 'hidden_dim': 3072, 'initializer_range': 0.02, 'max_position_embeddings': 512,
        'model_type': 'distilbert', 'n_heads': 12, 'n_layers': 6, 'pad_token_id': 0, 'qa_dropout': 0.1,
        'seq_classif_dropout': 0.2, 'sinusoidal_pos_embds': False, 'tie_weights_': True, 'vocab_size': 30522},
    'roberta-base': {  # FacebookAI/roberta-base, MIT: positions from padding_idx + 1, one token type
        'architectures': ['RobertaForMaskedLM'], 'attention_probs_dropout_prob': 0.1, 'bos_token_id': 0,
        'eos_token_id': 2, 'hidden_act': 'gelu', 'hidden_dropout_prob': 0.1, 'hidden_size': 768,
        'initializer_range': 0.02, 'intermediate_size': 3072, 'layer_norm_eps': 1e-05,
        'max_position_embeddings': 514, 'model_type': 'roberta', 'num_attention_heads': 12, 'num_hidden_layers': 12,
        'pad_token_id': 1, 'type_vocab_size': 1, 'vocab_size': 50265},
    'gpt2': {  # openai-community/gpt2, MIT: its checkpoint names wte.weight, wpe.weight without a prefix
        'activation_function': 'gelu_new', 'architectures': ['GPT2LMHeadModel'], 'attn_pdrop': 0.1,
        'bos_token_id': 50256, 'embd_pdrop': 0.1, 'eos_token_id': 50256, 'initializer_range': 0.02,
        'layer_norm_epsilon': 1e-05, 'model_type': 'gpt2', 'n_ctx': 1024, 'n_embd': 768, 'n_head': 12,
        'n_layer': 12, 'n_positions': 1024, 'resid_pdrop': 0.1, 'summary_activation': None,
        'summary_first_dropout': 0.1, 'summary_proj_to_labels': True, 'summary_type': 'cls_index',
        'summary_use_proj': True, 'task_specific_params': {'text-generation': {'do_sample': True, 'max_length': 50}},
        'vocab_size': 50257},
    'llama-3.1-8b': {  # meta-llama/Llama-3.1-8B's published values (rope_scaling llama3); only numbers, no weights
        'architectures': ['LlamaForCausalLM'], 'attention_bias': False, 'attention_dropout': 0.0,
        'bos_token_id': 128000, 'eos_token_id': 128001, 'hidden_act': 'silu', 'hidden_size': 4096,
        'initializer_range': 0.02, 'intermediate_size': 14336, 'max_position_embeddings': 131072,
        'mlp_bias': False, 'model_type': 'llama', 'num_attention_heads': 32, 'num_hidden_layers': 32,
        'num_key_value_heads': 8, 'pretraining_tp': 1, 'rms_norm_eps': 1e-05,
        'rope_scaling': {'factor': 8.0, 'low_freq_factor': 1.0, 'high_freq_factor': 4.0,
                         'original_max_position_embeddings': 8192, 'rope_type': 'llama3'},
        'rope_theta': 500000.0, 'tie_word_embeddings': False, 'torch_dtype': 'bfloat16',
        'transformers_version': '4.43.0.dev0', 'use_cache': True, 'vocab_size': 128256},
    'qwen2.5-0.5b': {  # Qwen/Qwen2.5-0.5B, Apache-2.0: tied embeddings, bfloat16
        'architectures': ['Qwen2ForCausalLM'], 'attention_dropout': 0.0, 'bos_token_id': 151643,
        'eos_token_id': 151643, 'hidden_act': 'silu', 'hidden_size': 896, 'initializer_range': 0.02,
        'intermediate_size': 4864, 'max_position_embeddings': 32768, 'max_window_layers': 24,
        'model_type': 'qwen2', 'num_attention_heads': 14, 'num_hidden_layers': 24, 'num_key_value_heads': 2,
        'rms_norm_eps': 1e-06, 'rope_theta': 1000000.0, 'sliding_window': 32768, 'tie_word_embeddings': True,
        'torch_dtype': 'bfloat16', 'transformers_version': '4.40.1', 'use_cache': True,
        'use_mrope': False, 'use_sliding_window': False, 'vocab_size': 151936},
    'mistral-nemo-base-2407': {  # mistralai/Mistral-Nemo-Base-2407, Apache-2.0: head_dim given, Tekken vocabulary
        'architectures': ['MistralForCausalLM'], 'attention_dropout': 0.0, 'bos_token_id': 1, 'eos_token_id': 2,
        'head_dim': 128, 'hidden_act': 'silu', 'hidden_size': 5120, 'initializer_range': 0.02,
        'intermediate_size': 14336, 'max_position_embeddings': 1024000, 'model_type': 'mistral',
        'num_attention_heads': 32, 'num_hidden_layers': 40, 'num_key_value_heads': 8, 'rms_norm_eps': 1e-05,
        'rope_theta': 1000000.0, 'sliding_window': None, 'tie_word_embeddings': False, 'torch_dtype': 'bfloat16',
        'transformers_version': '4.43.0.dev0', 'use_cache': True, 'vocab_size': 131072},
    # The types v4.44.2 lacks (FORMULA goldens).
    'qwen3-0.6b': {  # Qwen/Qwen3-0.6B, Apache-2.0
        'architectures': ['Qwen3ForCausalLM'], 'attention_bias': False, 'attention_dropout': 0.0,
        'bos_token_id': 151643, 'eos_token_id': 151645, 'head_dim': 128, 'hidden_act': 'silu', 'hidden_size': 1024,
        'initializer_range': 0.02, 'intermediate_size': 3072, 'max_position_embeddings': 40960,
        'max_window_layers': 28, 'model_type': 'qwen3', 'num_attention_heads': 16, 'num_hidden_layers': 28,
        'num_key_value_heads': 8, 'rms_norm_eps': 1e-06, 'rope_scaling': None, 'rope_theta': 1000000,
        'sliding_window': None, 'tie_word_embeddings': True, 'torch_dtype': 'bfloat16',
        'transformers_version': '4.51.0', 'use_cache': True, 'use_sliding_window': False, 'vocab_size': 151936},
    'gemma-3-1b': {  # google/gemma-3-1b-pt's published values (model_type gemma3_text); only numbers
        'architectures': ['Gemma3ForCausalLM'], 'attention_bias': False, 'attention_dropout': 0.0,
        'attn_logit_softcapping': None, 'bos_token_id': 2, 'cache_implementation': 'hybrid', 'eos_token_id': 1,
        'final_logit_softcapping': None, 'head_dim': 256, 'hidden_activation': 'gelu_pytorch_tanh',
        'hidden_size': 1152, 'initializer_range': 0.02, 'intermediate_size': 6912, 'max_position_embeddings': 32768,
        'model_type': 'gemma3_text', 'num_attention_heads': 4, 'num_hidden_layers': 26, 'num_key_value_heads': 1,
        'pad_token_id': 0, 'query_pre_attn_scalar': 256, 'rms_norm_eps': 1e-06, 'rope_local_base_freq': 10000,
        'rope_scaling': None, 'rope_theta': 1000000, 'sliding_window': 512, 'sliding_window_pattern': 6,
        'torch_dtype': 'bfloat16', 'transformers_version': '4.50.0.dev0', 'use_cache': True, 'vocab_size': 262144},
    'modernbert-base': {  # answerdotai/ModernBERT-base, Apache-2.0: LayerNorm without bias
        'architectures': ['ModernBertForMaskedLM'], 'attention_bias': False, 'attention_dropout': 0.0,
        'bos_token_id': 50281, 'classifier_activation': 'gelu', 'classifier_bias': False,
        'classifier_dropout': 0.0, 'classifier_pooling': 'mean', 'cls_token_id': 50281, 'decoder_bias': True,
        'deterministic_flash_attn': False, 'embedding_dropout': 0.0, 'eos_token_id': 50282,
        'global_attn_every_n_layers': 3, 'global_rope_theta': 160000.0, 'gradient_checkpointing': False,
        'hidden_activation': 'gelu', 'hidden_size': 768, 'initializer_cutoff_factor': 2.0,
        'initializer_range': 0.02, 'intermediate_size': 1152, 'layer_norm_eps': 1e-05, 'local_attention': 128,
        'local_rope_theta': 10000.0, 'max_position_embeddings': 8192, 'mlp_bias': False, 'mlp_dropout': 0.0,
        'model_type': 'modernbert', 'norm_bias': False, 'norm_eps': 1e-05, 'num_attention_heads': 12,
        'num_hidden_layers': 22, 'pad_token_id': 50283, 'position_embedding_type': 'absolute',
        'sep_token_id': 50282, 'tie_word_embeddings': True, 'torch_dtype': 'float32',
        'transformers_version': '4.47.0.dev0', 'vocab_size': 50368},
    'deepseek-v3': {  # deepseek-ai/DeepSeek-V3's published values (trimmed to what a config class reads first)
        'architectures': ['DeepseekV3ForCausalLM'], 'attention_bias': False, 'attention_dropout': 0.0,
        'bos_token_id': 0, 'eos_token_id': 1, 'first_k_dense_replace': 3, 'hidden_act': 'silu',
        'hidden_size': 7168, 'initializer_range': 0.02, 'intermediate_size': 18432, 'kv_lora_rank': 512,
        'max_position_embeddings': 163840, 'model_type': 'deepseek_v3', 'moe_intermediate_size': 2048,
        'moe_layer_freq': 1, 'n_group': 8, 'n_routed_experts': 256, 'n_shared_experts': 1, 'norm_topk_prob': True,
        'num_attention_heads': 128, 'num_experts_per_tok': 8, 'num_hidden_layers': 61, 'num_key_value_heads': 128,
        'num_nextn_predict_layers': 1, 'q_lora_rank': 1536, 'qk_nope_head_dim': 128, 'qk_rope_head_dim': 64,
        'rms_norm_eps': 1e-06,
        'rope_scaling': {'beta_fast': 32, 'beta_slow': 1, 'factor': 40, 'mscale': 1.0, 'mscale_all_dim': 1.0,
                         'original_max_position_embeddings': 4096, 'type': 'yarn'},
        'rope_theta': 10000, 'routed_scaling_factor': 2.5, 'scoring_func': 'sigmoid', 'tie_word_embeddings': False,
        'topk_group': 4, 'topk_method': 'noaux_tc', 'torch_dtype': 'bfloat16', 'transformers_version': '4.46.3',
        'use_cache': True, 'v_head_dim': 128, 'vocab_size': 129280},
    'gemma-3-4b': {  # google/gemma-3-4b-it's published values (model_type gemma3, the text model in text_config)
        'architectures': ['Gemma3ForConditionalGeneration'], 'boi_token_index': 255999, 'eoi_token_index': 256000,
        'eos_token_id': [1, 106], 'image_token_index': 262144, 'initializer_range': 0.02, 'mm_tokens_per_image': 256,
        'model_type': 'gemma3',
        'text_config': {'hidden_size': 2560, 'intermediate_size': 10240, 'model_type': 'gemma3_text',
                        'num_hidden_layers': 34, 'rope_scaling': {'factor': 8.0, 'rope_type': 'linear'},
                        'sliding_window': 1024},
        'torch_dtype': 'bfloat16', 'transformers_version': '4.50.0.dev0',
        'vision_config': {'hidden_size': 1152, 'image_size': 896, 'intermediate_size': 4304,
                          'model_type': 'siglip_vision_model', 'num_attention_heads': 16, 'num_hidden_layers': 27,
                          'patch_size': 14, 'vision_use_head': False}},
}
FORMULA_TYPES = ('qwen3', 'gemma3_text', 'gemma3', 'modernbert', 'deepseek_v3')


def real_checkpoint(name, cfg, g):
    """(tensors as the hub model's checkpoint names them, the float32 weights a formula reads)."""
    mt = cfg['model_type']
    V, H = cfg.get('vocab_size'), cfg.get('hidden_size', cfg.get('n_embd', cfg.get('dim')))  # gemma3: text_config's
    w, t = {}, {}
    if mt == 'bert':
        P, T = cfg['max_position_embeddings'], cfg['type_vocab_size']
        w = {'word': g.randn(V, H), 'pos': g.randn(P, H), 'type': g.randn(T, H), 'ln_w': g.ln_weight(H),
             'ln_b': g.ln_bias(H)}
        if name == 'bert-base-uncased':  # Google's TF names, under BertForPreTraining's prefix
            p, lw, lb = 'bert.', 'embeddings.LayerNorm.gamma', 'embeddings.LayerNorm.beta'
        else:
            p, lw, lb = '', 'embeddings.LayerNorm.weight', 'embeddings.LayerNorm.bias'
        t = {p + 'embeddings.word_embeddings.weight': w['word'], p + 'embeddings.position_embeddings.weight': w['pos'],
             p + 'embeddings.token_type_embeddings.weight': w['type'], p + lw: w['ln_w'], p + lb: w['ln_b'],
             p + 'encoder.layer.0.output.LayerNorm.' + lw.rsplit('.', 1)[1]: g.ln_weight(H),
             p + 'pooler.dense.bias': g.ln_bias(H)}
        if name == 'all-minilm-l6-v2':  # its checkpoint still holds the position_ids buffer
            t['embeddings.position_ids'] = torch.arange(P).unsqueeze(0)
        if p:
            t['cls.predictions.bias'] = g.randn(V)
    elif mt == 'distilbert':
        P = cfg['max_position_embeddings']
        w = {'word': g.randn(V, H), 'pos': g.randn(P, H), 'ln_w': g.ln_weight(H), 'ln_b': g.ln_bias(H)}
        p = 'distilbert.'
        t = {p + 'embeddings.word_embeddings.weight': w['word'], p + 'embeddings.position_embeddings.weight': w['pos'],
             p + 'embeddings.LayerNorm.weight': w['ln_w'], p + 'embeddings.LayerNorm.bias': w['ln_b'],
             'vocab_projector.bias': g.randn(V), 'vocab_layer_norm.weight': g.ln_weight(H)}
    elif mt == 'roberta':
        P, T = cfg['max_position_embeddings'], cfg['type_vocab_size']
        w = {'word': g.randn(V, H), 'pos': g.randn(P, H), 'type': g.randn(T, H), 'ln_w': g.ln_weight(H),
             'ln_b': g.ln_bias(H)}
        p = 'roberta.'
        t = {p + 'embeddings.word_embeddings.weight': w['word'], p + 'embeddings.position_embeddings.weight': w['pos'],
             p + 'embeddings.token_type_embeddings.weight': w['type'], p + 'embeddings.LayerNorm.weight': w['ln_w'],
             p + 'embeddings.LayerNorm.bias': w['ln_b'], 'lm_head.bias': g.randn(V)}
    elif mt == 'gpt2':
        w = {'word': g.randn(V, H), 'pos': g.randn(cfg['n_positions'], H)}
        p = 'transformer.' if name.endswith('-prefixed') else ''  # GPT2LMHeadModel.save_pretrained / the hub's gpt2
        t = {p + 'wte.weight': w['word'], p + 'wpe.weight': w['pos'], p + 'ln_f.weight': g.ln_weight(H),
             p + 'h.0.ln_1.weight': g.ln_weight(H)}
    elif mt in ('llama', 'qwen2', 'mistral', 'qwen3', 'gemma3_text', 'deepseek_v3'):
        dtype = torch.bfloat16 if cfg.get('torch_dtype') == 'bfloat16' else torch.float32
        word = g.randn(V, H).to(dtype)
        w = {'word': word.float(), 'word_as_saved': word}  # from_pretrained's default float32: an exact upcast
        t = {'model.embed_tokens.weight': word, 'model.norm.weight': g.ln_weight(H).to(dtype)}
        if not cfg.get('tie_word_embeddings', True):
            t['lm_head.weight'] = g.randn(V, H).to(dtype)
    elif mt == 'gemma3':  # Gemma3ForConditionalGeneration as the hub's files name it (saved before 4.52)
        tc = cfg['text_config']
        V, H = tc['vocab_size'], tc['hidden_size']
        word = g.randn(V, H).to(torch.bfloat16)
        w = {'word': word.float(), 'word_as_saved': word}
        t = {'language_model.model.embed_tokens.weight': word,
             'language_model.model.norm.weight': g.ln_weight(H).to(torch.bfloat16),
             'multi_modal_projector.mm_soft_emb_norm.weight': g.ln_weight(8).to(torch.bfloat16),
             'vision_tower.vision_model.post_layernorm.weight': g.ln_weight(8).to(torch.bfloat16)}
    elif mt == 'modernbert':
        w = {'word': g.randn(V, H), 'ln_w': g.ln_weight(H)}
        t = {'model.embeddings.tok_embeddings.weight': w['word'], 'model.embeddings.norm.weight': w['ln_w'],
             'model.final_norm.weight': g.ln_weight(H), 'head.norm.weight': g.ln_weight(H), 'decoder.bias': g.randn(V)}
        if cfg.get('norm_bias', False):
            w['ln_b'] = g.ln_bias(H)
            t['model.embeddings.norm.bias'] = w['ln_b']
    else:
        raise SystemExit('no checkpoint recipe for ' + mt)
    return t, w


def formula(cfg, w, input_ids, dtype=torch.float32):
    """The FORMULA goldens: the cited lines of the newer modelling code, in PyTorch."""
    mt = cfg['model_type']
    if mt in ('qwen3', 'deepseek_v3'):  # inputs_embeds = self.embed_tokens(input_ids)
        return F.embedding(input_ids, w['word'])
    if mt in ('gemma3_text', 'gemma3'):  # Gemma3TextScaledWordEmbedding.forward, the weights in `dtype`
        weight = w['word_as_saved'].to(dtype) if dtype != torch.float32 else w['word']
        H = cfg.get('text_config', cfg)['hidden_size']  # Gemma3TextModel(text_config): embed_scale=hidden_size**0.5
        embed_scale = torch.tensor(H ** 0.5)  # register_buffer("embed_scale", torch.tensor(embed_scale))
        return F.embedding(input_ids, weight) * embed_scale.to(weight.dtype)
    if mt == 'modernbert':  # self.drop(self.norm(self.tok_embeddings(input_ids))), eval: no dropout
        H = cfg['hidden_size']
        return F.layer_norm(F.embedding(input_ids, w['word']), (H,), w['ln_w'], w.get('ln_b'),
                            cfg.get('norm_eps', 1e-5))
    raise SystemExit('no formula for ' + mt)


def hf_model(d_scratch):
    """transformers v4.44.2's AutoModel for the scratch directory, in float32, eval."""
    import transformers
    assert transformers.__version__ == '4.44.2', transformers.__version__
    model = transformers.AutoModel.from_pretrained(d_scratch, attn_implementation='eager')
    model.eval()
    return model


def hf_rope_cos(model, n):
    """cos of the first *RotaryEmbedding module of the model, for positions 0..n-1 (float32, as HF computes it):
    LlamaRotaryEmbedding.forward(x, position_ids) in v4.44.2; Qwen2's and Mistral's forward(x, seq_len)."""
    import inspect
    rot = next(m for m in model.modules() if type(m).__name__.endswith('RotaryEmbedding'))
    x = torch.zeros(1, dtype=torch.float32)
    if 'position_ids' in inspect.signature(rot.forward).parameters:
        cos, _ = rot(x, torch.arange(n).unsqueeze(0))
        return type(rot).__name__, cos[0].numpy()
    cos, _ = rot(x, seq_len=n)
    return type(rot).__name__, cos.numpy()


def pair_batch(rng):
    """[CLS] A [SEP] B [SEP] rows padded on the right, token type 0 for [CLS] A [SEP] and 1 for B [SEP], as
    BertTokenizer's template gives them (pad 0, pad_token_type_id 0)."""
    rows = []
    for a, b in ((3, 2), (2, 4)):
        ids_a, ids_b = rng.integers(103, 1000, size=a), rng.integers(103, 1000, size=b)
        ids = [BERT_CLS, *ids_a, BERT_SEP, *ids_b, BERT_SEP]
        rows.append((ids, [0] * (a + 2) + [1] * (b + 1)))
    width = max(len(r[0]) for r in rows)
    ids = np.zeros((len(rows), width), dtype=np.int64)
    types, mask = np.zeros_like(ids), np.zeros_like(ids)
    for i, (r, ty) in enumerate(rows):
        ids[i, :len(r)], types[i, :len(r)], mask[i, :len(r)] = r, ty, 1
    return ids, mask, types


def make_real(name, cfg, seed):
    """A REAL or FORMULA golden (see above) for REAL_CONFIGS[name] made small."""
    g = Gen(seed)
    tensors, w = real_checkpoint(name, cfg, g)
    d = os.path.join(OUT_MODELS, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'config.json'), 'w') as f:
        json.dump(cfg, f, indent=2)
        f.write('\n')
    write_safetensors(os.path.join(d, 'model.safetensors'), tensors)
    pad, b = batches(cfg, np.random.default_rng(seed))
    golden = {'pad_id': np.array(pad)}
    mt = cfg['model_type']
    real = mt not in FORMULA_TYPES
    golden['reference'] = np.array('transformers v4.44.2 AutoModel, hidden_states[0]' if real else
                                   'formula of ' + mt + "'s newer modelling code (see tools/make_hf_layer_goldens.py)")
    if mt == 'bert':
        b['pair'] = pair_batch(np.random.default_rng(seed + 1000))
    with torch.no_grad():
        if real:
            import tempfile
            with tempfile.TemporaryDirectory() as scratch:
                shutil.copy(os.path.join(d, 'config.json'), scratch)
                torch.save(tensors, os.path.join(scratch, 'pytorch_model.bin'))
                model = hf_model(scratch)
                if mt in ('llama', 'qwen2', 'mistral'):  # the RoPE table `pe --pretrained DIR` gives
                    module, golden['rope_cos'] = hf_rope_cos(model, 40)
                    golden['rope_module'] = np.array(module)
                for side, batch in b.items():
                    ids, mask = batch[0], batch[1]
                    kwargs = {'token_type_ids': torch.from_numpy(batch[2])} if len(batch) > 2 else {}
                    out = model(input_ids=torch.from_numpy(ids), attention_mask=torch.from_numpy(mask),
                                output_hidden_states=True, **kwargs).hidden_states[0]
                    golden['ids_' + side], golden['mask_' + side] = ids, mask
                    if kwargs:
                        golden['types_' + side] = batch[2]
                    golden['out_' + side] = out.numpy().astype(np.float32)
        else:
            for side, (ids, mask) in b.items():
                golden['ids_' + side], golden['mask_' + side] = ids, mask
                golden['out_' + side] = formula(cfg, w, torch.from_numpy(ids)).numpy().astype(np.float32)
            if mt in ('gemma3_text', 'gemma3'):  # run in the weights' bfloat16 (from_pretrained(torch_dtype=torch.bfloat16))
                out = formula(cfg, w, torch.from_numpy(golden['ids_right']), torch.bfloat16)
                golden['out_right_bf16'] = out.float().numpy()
    np.savez(os.path.join(OUT_GOLDEN, name + '.npz'), **golden)


def real_goldens():
    sys.path.insert(0, HFENV)
    for seed, name in enumerate(REAL_CONFIGS, start=200):
        cfg = small_config(REAL_CONFIGS[name]) if 'vocab_size' in REAL_CONFIGS[name] else dict(REAL_CONFIGS[name])
        if name == 'gemma-3-1b':
            cfg['hidden_size'] = 24  # √24 is not a bfloat16: the cast to the weights' dtype shows
        if name == 'gemma-3-4b':  # text_config shrunk by hand (small_config reads the top level only)
            cfg['text_config'] = dict(cfg['text_config'], hidden_size=24, intermediate_size=32, num_hidden_layers=1,
                                      vocab_size=SMALL_VOCAB)
            cfg['vision_config'] = dict(cfg['vision_config'], hidden_size=8, intermediate_size=16,
                                        num_hidden_layers=1, num_attention_heads=2)
        make_real(name, cfg, seed)
    # GPT-2 as GPT2LMHeadModel.save_pretrained writes it: under transformer.
    make_real('gpt2-prefixed', small_config(REAL_CONFIGS['gpt2']), 299)


def main():
    for old in (OUT_MODELS, OUT_GOLDEN):  # everything this script writes; SOURCES.md is written by hand
        for entry in os.listdir(old) if os.path.isdir(old) else ():
            path = os.path.join(old, entry)
            if os.path.isdir(path):
                shutil.rmtree(path)
            elif entry != 'SOURCES.md':
                os.remove(path)
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
    real_goldens()


if __name__ == '__main__':
    sys.exit(main())
