#!/usr/bin/python3
"""Regenerates tests/golden/ from reference implementations.

    /usr/bin/python3 tools/make_goldens.py          # everything
    /usr/bin/python3 tools/make_goldens.py t5       # only the named parts (function names without _goldens)

Needs Debian's python3-torch, python3-numpy and python3-sentencepiece. The
test suite only reads what this writes; it never needs PyTorch.

References used:
  * Python SentencePiece: ids and pieces of sample texts for every model in
    tests/models/ and for data/default.model (encodings.json).
  * PyTorch, the Annotated Transformer's TransformerInput (nn.Embedding × sqrt(d_model) +
    float32 sinusoidal PE buffer, eval mode) with a given weight table:
    the input-layer goldens (layer_*.npy) and the CLI goldens (cli_*.npz).
  * Hugging Face transformers' T5Attention._relative_position_bucket and
    compute_bias (src/transformers/models/t5/modeling_t5.py), ported to torch
    here because transformers is not a Debian package: the T5 bucket and
    bias goldens (t5/).
  * tests/reference.py (NumPy): the default N(0,1) table's rows (default_table*), bit for bit.
  * HF-style padding and truncation (padding_side, truncation_side,
    pad_to_multiple_of; position_ids = attention_mask.cumsum(-1) - 1 with
    left padding) over the same PyTorch layer, and ids given as input
    (padding/).
  * kimiyoung/transformer-xl's PositionalEmbedding and the descending,
    clamped pos_seq of MemTransformerLM._forward (pytorch/mem_transformer.py),
    ported as written there, run in float32 and float64: the transformer-xl
    tables (pe/txl_*).
  * Hugging Face transformers' BertEmbeddings (word + token type + position,
    LayerNorm), ported, over [CLS] A [SEP] B [SEP] pairs tokenized by Python
    SentencePiece with HF's longest_first truncation (bert/).
  * ALBERT's factorized embeddings (albert/): AlbertEmbeddings (BertEmbeddings
    at embedding_size E) and AlbertTransformer's embedding_hidden_mapping_in
    (nn.Linear(E, hidden_size)) over pairs; and nn.Linear over nn.Embedding's
    rows before the Annotated Transformer's scale and PE.
  * NumPy float64: the block PE, PE(pos mod B) + PE(pos div B) of the paper's
    sinusoid (pe/block_*).
  * NumPy float64: the PE precision reference far beyond 5000 positions
    (pe_float64.npy) and odd d_model, which the usual float32 recipe cannot do
    (its pe[:, 1::2] assignment fails when d_model is odd).
"""
import json
import math
import pathlib
import sys

import numpy as np
import sentencepiece as spm
import torch
import torch.nn as nn

ROOT = pathlib.Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
sys.path.insert(0, str(ROOT / "tests"))
import reference  # noqa: E402  (NumPy only: the default table's generator)

# Texts every tokenizer is checked on: scripts, byte fallback, whitespace
# handling, normalisation, the empty string.
TEXTS = [
    "Hello, this is machine translation",
    "Hello world! The quick brown fox jumps over the lazy dog. 12345",
    "我爱北京天安门。今天天气很好。",
    "吾輩は猫である。名前はまだ無い。",
    "Machine learning 机器学习 is fun.",
    "emoji 🙂 and café",
    "  leading and   multiple   spaces  ",
    "tab\there",
    "Full-width ＡＢＣ １２３ and ①",
    "",
    "Price: $12.50 (≈ €11) — \"quoted\" & <tags>",
    "The boy went to the country, and found himself in trouble again.",
    "他每天早上六点起床。",
]


# --- the Annotated Transformer's input layer, in PyTorch -------------------------------------
class TokenEmbedding(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model)
        self.d_model = d_model

    def forward(self, x):
        return self.embedding(x) * math.sqrt(self.d_model)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len).unsqueeze(1).float()
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x):
        return self.dropout(x + self.pe[:, : x.size(1), :])


class TransformerInput(nn.Module):
    def __init__(self, vocab_size, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.token_embedding = TokenEmbedding(vocab_size, d_model)
        self.positional_encoding = PositionalEncoding(d_model, max_len, dropout)

    def forward(self, x):
        return self.positional_encoding(self.token_embedding(x))


def torch_input_layer(weights, ids, max_len=5000):
    """The Annotated Transformer layer in eval mode with `weights` as the embedding table."""
    vocab, d = weights.shape
    layer = TransformerInput(vocab, d, max_len)
    with torch.no_grad():
        layer.token_embedding.embedding.weight.copy_(torch.from_numpy(weights))
    layer.eval()
    with torch.no_grad():
        return layer(torch.from_numpy(np.asarray(ids, dtype=np.int64))).numpy()


# --- goldens ------------------------------------------------------------------
def encodings():
    models = sorted((ROOT / "tests" / "models").glob("*.model")) + [ROOT / "data" / "default.model"]
    out = {"generator": f"python3-sentencepiece {spm.__version__}: encode(text) and encode(text, out_type=str)",
           "models": {}}
    for path in models:
        sp = spm.SentencePieceProcessor(model_file=str(path))
        cases = [{"text": t, "ids": sp.encode(t), "pieces": sp.encode(t, out_type=str)} for t in TEXTS]
        out["models"][str(path.relative_to(ROOT))] = {
            "vocab_size": sp.vocab_size(), "pad_id": sp.pad_id(), "bos_id": sp.bos_id(),
            "eos_id": sp.eos_id(), "unk_id": sp.unk_id(), "cases": cases}
    (GOLDEN / "encodings.json").write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n")


def layer_goldens():
    """Input layer with explicit weight tables, for the library tests."""
    rng = np.random.default_rng(20261129)
    cases = []

    def add(name, vocab, d, ids, max_len, reference_kind, scale="sqrt"):
        weights = rng.standard_normal((vocab, d)).astype(np.float32)
        if reference_kind == "torch":
            out = torch_input_layer(weights, ids, max_len)
        else:  # float64 formula, rounded: odd d_model
            factor = np.float32(math.sqrt(d))
            pe = reference.sinusoidal_pe64(np.arange(len(ids[0])), d).astype(np.float32)
            out = (weights[np.asarray(ids)] * factor).astype(np.float32) + pe
        np.save(GOLDEN / f"layer_{name}_weights.npy", weights)
        np.save(GOLDEN / f"layer_{name}_output.npy", out.astype(np.float32))
        cases.append({"name": name, "d_model": d, "max_len": max_len, "ids": ids, "scale": scale,
                      "reference": reference_kind})

    add("d16", 50, 16, [[1, 5, 7, 2, 0, 0], [1, 9, 3, 4, 8, 2]], 64, "torch")
    add("d512", 64, 512, [list(rng.integers(0, 64, 40))], 5000, "torch")
    add("d7_odd", 20, 7, [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]], 100, "float64")
    for case in cases:
        case["ids"] = [[int(v) for v in row] for row in case["ids"]]
    (GOLDEN / "layer_cases.json").write_text(json.dumps({"cases": cases}, indent=1) + "\n")


def pe_precision_goldens():
    positions = [0, 1, 2, 49, 50, 4999, 65535, 99999, 123456] + list(range(999990, 1000000))
    for d in (512, 7):
        np.save(GOLDEN / f"pe_float64_d{d}.npy", reference.sinusoidal_pe64(positions, d))
    (GOLDEN / "pe_positions.json").write_text(json.dumps({"positions": positions}) + "\n")


def cli_goldens():
    """What `embedpe encode` must write, from Python SentencePiece + the Annotated Transformer layer."""
    sp = spm.SentencePieceProcessor(model_file=str(ROOT / "data" / "default.model"))
    texts = ["Hello, this is machine translation", "我爱机器翻译 🙂", "hi"]
    seqs = [[sp.bos_id()] + sp.encode(t) + [sp.eos_id()] for t in texts]
    seq_len = max(map(len, seqs))
    ids = np.array([s + [sp.pad_id()] * (seq_len - len(s)) for s in seqs], dtype=np.int64)
    mask = np.array([[1] * len(s) + [0] * (seq_len - len(s)) for s in seqs], dtype=np.int64)
    d = 16
    table = reference.random_normal_rows(np.arange(sp.vocab_size()), d, seed=0)  # (8000, 16)
    np.savez(GOLDEN / "cli_default_d16.npz", input_ids=ids, attention_mask=mask,
             output=torch_input_layer(table, ids))
    (GOLDEN / "cli_default_d16.json").write_text(json.dumps({
        "texts": texts, "d_model": d, "seed": 0,
        "pieces": [[sp.id_to_piece(s[0])] + sp.encode(t, out_type=str) + [sp.id_to_piece(s[-1])]
                   for s, t in zip(seqs, texts)]}, ensure_ascii=False, indent=1) + "\n")


def default_table_goldens():
    """Rows of the default N(0,1) table (generator splitmix64+box-muller-f32/3) from the NumPy reference:
    odd and even widths, one pair block and more (64 pairs), ids up to 2^62."""
    ids = list(range(32)) + [7999, 123456789, 2**40, 2**62]
    cases = []
    for d, seed in ((9, 3), (129, 0), (512, 12345)):
        name = f"default_table_d{d}_seed{seed}.npy"
        np.save(GOLDEN / name, reference.random_normal_rows(ids, d, seed))
        cases.append({"file": name, "d_model": d, "seed": seed})
    (GOLDEN / "default_table.json").write_text(json.dumps({"ids": ids, "cases": cases}, indent=1) + "\n")


def npy_goldens():
    """Files written by numpy.save, which embedpe's .npy writer must equal byte for byte."""
    np.save(GOLDEN / "numpy_f4_2x3x4.npy", np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7)
    np.save(GOLDEN / "numpy_i8_2x5.npy", np.arange(-5, 5, dtype=np.int64).reshape(2, 5))
    np.save(GOLDEN / "numpy_f4_5.npy", np.linspace(-1, 1, 5, dtype=np.float32))
    np.save(GOLDEN / "numpy_f4_0x3.npy", np.zeros((0, 3), dtype=np.float32))


# --- real weight tables (issue: --weights, learned PE, LayerNorm) -------------
WEIGHT_TEXTS = ["Hello world.", "The quick brown fox jumps over the lazy dog.", "I am a cat."]


def write_safetensors(path, tensors, metadata=None):
    """A .safetensors file written by hand: 8-byte LE header length, JSON header, raw little-endian data."""
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = metadata
    for name, (dtype, array) in tensors.items():
        raw = np.ascontiguousarray(array).tobytes()
        header[name] = {"dtype": dtype, "shape": list(array.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    path.write_bytes(len(text).to_bytes(8, "little") + text + b"".join(blobs))


def bf16_bits(a):
    """float32 → bfloat16 bits (uint16), rounded by PyTorch."""
    return torch.from_numpy(a).bfloat16().view(torch.int16).numpy().view(np.uint16)


def padded_ids(sp, texts, pad_id, bos=True, eos=True):
    seqs = [([sp.bos_id()] if bos else []) + sp.encode(t) + ([sp.eos_id()] if eos else []) for t in texts]
    n = max(map(len, seqs))
    ids = np.array([s + [pad_id] * (n - len(s)) for s in seqs], dtype=np.int64)
    mask = np.array([[1] * len(s) + [0] * (n - len(s)) for s in seqs], dtype=np.int64)
    return ids, mask


def weight_goldens():
    out = GOLDEN / "weights"
    out.mkdir(exist_ok=True)
    rng = np.random.default_rng(7)
    sp = spm.SentencePieceProcessor(model_file=str(ROOT / "tests" / "models" / "sp-test.model"))
    vocab, d = sp.vocab_size(), 16
    ids, mask = padded_ids(sp, WEIGHT_TEXTS, pad_id=0)
    cases = {}

    # The Annotated Transformer layer over the same table stored as F32 / F16 / BF16 / F64.
    table = (rng.standard_normal((vocab + 24, d)) * 0.5).astype(np.float32)  # padded vocabulary: more rows is fine
    f16 = table.astype(np.float16)
    bf16 = bf16_bits(table)
    lm_head = rng.standard_normal((8, d)).astype(np.float32)  # another 2-D tensor the search must skip
    write_safetensors(out / "llama_f32.safetensors", {"model.embed_tokens.weight": ("F32", table),
                                                      "lm_head.weight": ("F32", lm_head)})
    write_safetensors(out / "llama_f16.safetensors", {"model.embed_tokens.weight": ("F16", f16)})
    write_safetensors(out / "llama_bf16.safetensors", {"model.embed_tokens.weight": ("BF16", bf16)})
    np.save(out / "table_f32.npy", table)
    np.save(out / "table_f16.npy", f16)
    np.save(out / "table_f64.npy", table.astype(np.float64))
    as_f32 = {
        "llama_f32.safetensors": table,
        "llama_f16.safetensors": torch.from_numpy(f16).float().numpy(),
        "llama_bf16.safetensors": torch.from_numpy(bf16.view(np.int16)).view(torch.bfloat16).float().numpy(),
        "table_f32.npy": table,
        "table_f16.npy": torch.from_numpy(f16).float().numpy(),
        "table_f64.npy": table,
    }
    for name, weights in as_f32.items():
        cases[name] = {"args": ["--weights", f"weights/{name}"], "output": torch_input_layer(weights, ids)}

    # BERT: word + learned position embeddings, no scaling, LayerNorm (eps 1e-12).
    word = rng.standard_normal((vocab, d)).astype(np.float32)
    pos = (rng.standard_normal((64, d)) * 0.1).astype(np.float32)
    gamma = (1 + 0.1 * rng.standard_normal(d)).astype(np.float32)
    beta = (0.1 * rng.standard_normal(d)).astype(np.float32)
    write_safetensors(out / "bert.safetensors", {
        "embeddings.word_embeddings.weight": ("F32", word), "embeddings.position_embeddings.weight": ("F32", pos),
        "embeddings.LayerNorm.weight": ("F32", gamma), "embeddings.LayerNorm.bias": ("F32", beta)})
    with torch.no_grad():
        we, pe = nn.Embedding(vocab, d), nn.Embedding(64, d)
        ln = nn.LayerNorm(d, eps=1e-12)
        we.weight.copy_(torch.from_numpy(word)); pe.weight.copy_(torch.from_numpy(pos))
        ln.weight.copy_(torch.from_numpy(gamma)); ln.bias.copy_(torch.from_numpy(beta))
        t_ids = torch.from_numpy(ids)
        x = we(t_ids) + pe(torch.arange(ids.shape[1]).unsqueeze(0))
        cases["bert"] = {"args": ["--weights", "weights/bert.safetensors", "--pe", "learned", "--scale", "none",
                                  "--layernorm", "--layernorm-eps", "1e-12"], "output": ln(x).numpy()}

    # fairseq / RoBERTa: padding_idx 1 in both tables; positions start at
    # padding_idx + 1 and padding tokens sit at position padding_idx.
    # sp-test's BOS is id 1, RoBERTa's pad: leave BOS out so only padding is 1.
    r_ids, r_mask = padded_ids(sp, WEIGHT_TEXTS, pad_id=1, bos=False)
    r_word = rng.standard_normal((vocab, d)).astype(np.float32)
    r_pos = rng.standard_normal((66, d)).astype(np.float32)
    r_word[1] = 0.0
    r_pos[1] = 0.0
    write_safetensors(out / "roberta.safetensors", {"roberta.embeddings.word_embeddings.weight": ("F32", r_word),
                                                    "roberta.embeddings.position_embeddings.weight": ("F32", r_pos)})
    with torch.no_grad():
        we = nn.Embedding(vocab, d, padding_idx=1)
        pe = nn.Embedding(66, d, padding_idx=1)
        we.weight.copy_(torch.from_numpy(r_word)); pe.weight.copy_(torch.from_numpy(r_pos))
        t_ids = torch.from_numpy(r_ids)
        m = t_ids.ne(1).int()
        position_ids = (torch.cumsum(m, dim=1).type_as(m) * m).long() + 1  # HF create_position_ids_from_input_ids
        cases["roberta"] = {"args": ["--weights", "weights/roberta.safetensors", "--pe", "learned", "--scale", "none",
                                     "--no-bos", "--pad-id", "1", "--padding-idx", "1", "--position-offset", "2",
                                     "--pad-position", "1"],
                            "output": (we(t_ids) + pe(position_ids)).numpy()}

    # BART: shared table × sqrt(d) (scale_embedding), learned positions offset
    # by 2 for every token, layernorm_embedding.
    b_word = rng.standard_normal((vocab, d)).astype(np.float32)
    b_pos = (rng.standard_normal((66, d)) * 0.1).astype(np.float32)
    b_gamma = (1 + 0.1 * rng.standard_normal(d)).astype(np.float32)
    b_beta = (0.1 * rng.standard_normal(d)).astype(np.float32)
    write_safetensors(out / "bart.safetensors", {
        "model.shared.weight": ("F32", b_word), "model.encoder.embed_positions.weight": ("F32", b_pos),
        "model.encoder.layernorm_embedding.weight": ("F32", b_gamma),
        "model.encoder.layernorm_embedding.bias": ("F32", b_beta)})
    with torch.no_grad():
        we, pe = nn.Embedding(vocab, d), nn.Embedding(66, d)
        ln = nn.LayerNorm(d)
        we.weight.copy_(torch.from_numpy(b_word)); pe.weight.copy_(torch.from_numpy(b_pos))
        ln.weight.copy_(torch.from_numpy(b_gamma)); ln.bias.copy_(torch.from_numpy(b_beta))
        t_ids = torch.from_numpy(ids)
        x = we(t_ids) * math.sqrt(d) + pe(torch.arange(ids.shape[1]) + 2)  # BartLearnedPositionalEmbedding
        cases["bart"] = {"args": ["--weights", "weights/bart.safetensors", "--pe", "learned", "--position-offset", "2",
                                  "--layernorm"], "output": ln(x).numpy()}

    np.savez(out / "goldens.npz", **{name: c["output"] for name, c in cases.items()})
    (out / "cases.json").write_text(json.dumps({
        "model": "tests/models/sp-test.model", "texts": WEIGHT_TEXTS, "input_ids": ids.tolist(),
        "cases": {name: c["args"] for name, c in cases.items()}}, indent=1) + "\n")


# --- positional-encoding conventions, RoPE, ALiBi ---------------------------------
def fairseq_sinusoidal(num_embeddings, embedding_dim, padding_idx=None):
    """fairseq SinusoidalPositionalEmbedding.get_embedding (torch, float32 as fairseq computes it)."""
    half_dim = embedding_dim // 2
    emb = math.log(10000) / (half_dim - 1)
    emb = torch.exp(torch.arange(half_dim, dtype=torch.float) * -emb)
    emb = torch.arange(num_embeddings, dtype=torch.float).unsqueeze(1) * emb.unsqueeze(0)
    emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=1).view(num_embeddings, -1)
    if embedding_dim % 2 == 1:
        emb = torch.cat([emb, torch.zeros(num_embeddings, 1)], dim=1)
    if padding_idx is not None:
        emb[padding_idx, :] = 0
    return emb.numpy()


def fairseq_float64(positions, d, base=10000.0):
    """The same formula in float64 (what embedpe rounds from)."""
    half = d // 2
    inv = np.exp(np.arange(half) * -(math.log(base) / max(half - 1, 1)))
    ang = np.asarray(positions, dtype=np.float64)[:, None] * inv[None, :]
    out = np.zeros((len(positions), d))
    out[:, :half] = np.sin(ang)
    out[:, half:2 * half] = np.cos(ang)
    return out


def marian_sinusoidal(n_pos, dim):
    """HF MarianSinusoidalPositionalEmbedding._init_weight (NumPy float64, then as float32)."""
    position_enc = np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for pos in range(n_pos)])
    out = np.zeros((n_pos, dim))
    sentinel = dim // 2 if dim % 2 == 0 else (dim // 2) + 1
    out[:, 0:sentinel] = np.sin(position_enc[:, 0::2])
    out[:, sentinel:] = np.cos(position_enc[:, 1::2])
    return out


def rope_inv_freq(dim, base, scaling, factor=1.0, original_max=2048, seq_len=None, beta_fast=32, beta_slow=1,
                  low_freq_factor=1.0, high_freq_factor=4.0):
    """HF transformers modeling_rope_utils, ported to float64 NumPy."""
    def default(b):
        return 1.0 / (b ** (np.arange(0, dim, 2, dtype=np.float64) / dim))
    attention = 1.0
    if scaling == "none":
        inv = default(base)
    elif scaling == "linear":
        inv = default(base) / factor
    elif scaling == "dynamic":
        seq = max(seq_len or 0, original_max)
        inv = default(base * ((factor * seq / original_max) - (factor - 1)) ** (dim / (dim - 2)))
    elif scaling == "yarn":
        def corr(r):
            return (dim * math.log(original_max / (r * 2 * math.pi))) / (2 * math.log(base))
        low, high = max(math.floor(corr(beta_fast)), 0), min(math.ceil(corr(beta_slow)), dim - 1)
        if low == high:
            high += 0.001
        ramp = np.clip((np.arange(dim // 2, dtype=np.float64) - low) / (high - low), 0, 1)
        extra_factor = 1 - ramp
        extrapolation = default(base)
        interpolation = extrapolation / factor
        inv = interpolation * (1 - extra_factor) + extrapolation * extra_factor
        attention = 0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0
    elif scaling == "llama3":
        inv = default(base)
        low_wl, high_wl = original_max / low_freq_factor, original_max / high_freq_factor
        wavelen = 2 * math.pi / inv
        llama = np.where(wavelen > low_wl, inv / factor, inv)
        smooth = (original_max / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
        smoothed = (1 - smooth) * llama / factor + smooth * llama
        medium = ~(wavelen < high_wl) * ~(wavelen > low_wl)
        inv = np.where(medium, smoothed, llama)
    return inv, attention


def alibi_slopes_reference(n):
    """The ALiBi paper's get_slopes (ofirpress/attention_with_linear_biases)."""
    def power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + alibi_slopes_reference(2 * closest)[0::2][:n - closest]


def pe_goldens():
    out = GOLDEN / "pe"
    out.mkdir(exist_ok=True)
    arrays, cases = {}, {}

    def add(name, args, array, tolerance):
        arrays[name] = np.asarray(array, dtype=np.float64)
        cases[name] = {"args": args, "atol": tolerance}

    for d in (16, 15):  # even and odd d everywhere
        add(f"paper_d{d}", ["--d-model", str(d), "--max-len", "40"], reference.sinusoidal_pe64(range(40), d), 1.2e-7)
        add(f"marian_d{d}", ["--d-model", str(d), "--max-len", "40", "--convention", "marian"],
            marian_sinusoidal(40, d), 1.2e-7)
        # fairseq's own float32 table: within float32 argument error of the float64 one.
        add(f"fairseq_d{d}", ["--d-model", str(d), "--max-len", "40", "--convention", "fairseq"],
            fairseq_sinusoidal(40, d, padding_idx=1), 2e-5)
        add(f"fairseq64_d{d}", ["--d-model", str(d), "--max-len", "40", "--convention", "fairseq",
                                 "--padding-idx", "0"], np.vstack([np.zeros((1, d)), fairseq_float64(range(1, 40), d)]),
            1.2e-7)
        add(f"interp_d{d}", ["--d-model", str(d), "--max-len", "40", "--position-scale", "4"],
            reference.sinusoidal_pe64(np.arange(40) / 4, d), 1.2e-7)
        add(f"base500_d{d}", ["--d-model", str(d), "--positions", "999990:1000000", "--base", "500"],
            reference.sinusoidal_pe64(range(999990, 1000000), d, base=500.0), 1.2e-7)
    add("offset_d16", ["--d-model", "16", "--max-len", "10", "--position-offset", "2"],
        reference.sinusoidal_pe64(range(2, 12), 16), 1.2e-7)

    rope_cases = {
        "none": dict(scaling="none"),
        "linear": dict(scaling="linear", factor=4.0),
        "dynamic": dict(scaling="dynamic", factor=2.0, original_max=64, seq_len=200),
        "yarn": dict(scaling="yarn", factor=8.0, original_max=4096, beta_fast=32, beta_slow=1),
        "llama3": dict(scaling="llama3", factor=8.0, original_max=8192, low_freq_factor=1.0, high_freq_factor=4.0),
    }
    for name, kw in rope_cases.items():
        dim, base = 64, 500000.0
        inv, attention = rope_inv_freq(dim, base, **kw)
        positions = np.arange(0, 200)
        freqs = positions[:, None] * inv[None, :]
        emb = np.concatenate([freqs, freqs], axis=1)
        args = ["--kind", "rope", "--d-model", str(dim), "--rope-theta", str(base), "--rope-scaling", kw["scaling"],
                "--max-len", "200"]
        if "factor" in kw:
            args += ["--rope-factor", str(kw["factor"])]
        if "original_max" in kw:
            args += ["--rope-original-max-positions", str(kw["original_max"])]
        add(f"rope_{name}_inv_freq", args, inv, 0)
        add(f"rope_{name}_cos", args, np.cos(emb) * attention, 1.2e-7)
        add(f"rope_{name}_sin", args, np.sin(emb) * attention, 1.2e-7)

    # Block PE: the paper's sinusoid of the place in the block plus that of the block index (float64).
    for d, block, base, block_base, n in ((16, 4, 10000.0, 10000.0, 40), (15, 7, 10000.0, 500.0, 30),
                                         (8, 1, 100.0, 10000.0, 12)):
        pos = np.arange(n)
        args = ["--kind", "block", "--d-model", str(d), "--max-len", str(n), "--block-size", str(block), "--base",
                str(base), "--block-base", str(block_base)]
        add(f"block_d{d}_b{block}", args, reference.sinusoidal_pe64(pos % block, d, base=base) +
            reference.sinusoidal_pe64(pos // block, d, base=block_base), 1.2e-7)

    # Transformer-XL's R: the upstream module, in float32 as it runs (float32 argument error
    # against embedpe's float64) and in float64 (rounding only).
    for d, klen, clamp in ((16, 40, None), (8, 25, 10), (32, 64, None)):
        for dtype, tol, tag in ((torch.float32, 2e-5, ""), (torch.float64, 1.2e-7, "64")):
            args = ["--kind", "transformer-xl", "--d-model", str(d), "--max-len", str(klen)]
            if clamp is not None:
                args += ["--clamp-len", str(clamp)]
            add(f"txl{tag}_d{d}_k{klen}", args, txl_relative_table(d, klen, clamp, dtype), tol)

    for heads in (8, 12, 6, 1, 32):
        add(f"alibi_slopes_{heads}", ["--kind", "alibi", "--heads", str(heads)], alibi_slopes_reference(heads), 0)

    np.savez(out / "goldens.npz", **arrays)
    (out / "cases.json").write_text(json.dumps(cases, indent=1) + "\n")


# --- Transformer-XL relative positions ----------------------------------------------
class TxlPositionalEmbedding(nn.Module):
    """kimiyoung/transformer-xl pytorch/mem_transformer.py PositionalEmbedding, as written there."""

    def __init__(self, demb):
        super(TxlPositionalEmbedding, self).__init__()
        self.demb = demb
        inv_freq = 1 / (10000 ** (torch.arange(0.0, demb, 2.0) / demb))
        self.register_buffer('inv_freq', inv_freq)

    def forward(self, pos_seq, bsz=None):
        sinusoid_inp = torch.ger(pos_seq, self.inv_freq)
        pos_emb = torch.cat([sinusoid_inp.sin(), sinusoid_inp.cos()], dim=-1)
        if bsz is not None:
            return pos_emb[:, None, :].expand(-1, bsz, -1)
        else:
            return pos_emb[:, None, :]


def txl_relative_table(d, klen, clamp_len, dtype):
    """R as MemTransformerLM._forward builds it: pos_seq = arange(klen-1, -1, -1.0), clamped, through pos_emb."""
    default = torch.get_default_dtype()
    torch.set_default_dtype(dtype)  # the module's own dtype: inv_freq computed in it, not converted after
    try:
        module = TxlPositionalEmbedding(d)
        pos_seq = torch.arange(klen - 1, -1, -1.0)
    finally:
        torch.set_default_dtype(default)
    if clamp_len is not None and clamp_len > 0:
        pos_seq.clamp_(max=clamp_len)
    with torch.no_grad():
        return module(pos_seq)[:, 0, :].numpy().astype(np.float64)


# --- BERT: word + token type + position embeddings, LayerNorm, pairs ---------------------
class BertEmbeddings(nn.Module):
    """HF transformers BertEmbeddings (src/transformers/models/bert/modeling_bert.py), eval mode, absolute
    positions, ported as written there (transformers is not a Debian package)."""

    def __init__(self, vocab_size, hidden_size, max_position_embeddings, type_vocab_size, layer_norm_eps, pad_token_id):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab_size, hidden_size, padding_idx=pad_token_id)
        self.position_embeddings = nn.Embedding(max_position_embeddings, hidden_size)
        self.token_type_embeddings = nn.Embedding(type_vocab_size, hidden_size)
        self.LayerNorm = nn.LayerNorm(hidden_size, eps=layer_norm_eps)
        self.dropout = nn.Dropout(0.1)
        self.register_buffer("position_ids", torch.arange(max_position_embeddings).expand((1, -1)))

    def forward(self, input_ids, token_type_ids=None):
        seq_length = input_ids.size(1)
        position_ids = self.position_ids[:, :seq_length]
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        inputs_embeds = self.word_embeddings(input_ids)
        token_type_embeddings = self.token_type_embeddings(token_type_ids)
        embeddings = inputs_embeds + token_type_embeddings
        embeddings += self.position_embeddings(position_ids)
        embeddings = self.LayerNorm(embeddings)
        return self.dropout(embeddings)


def hf_truncate_pair(ids, pair_ids, num_tokens_to_remove):
    """HF PreTrainedTokenizerBase.truncate_sequences with strategy longest_first (right side)."""
    for _ in range(num_tokens_to_remove):
        if len(ids) > len(pair_ids):
            ids = ids[:-1]
        else:
            pair_ids = pair_ids[:-1]
    return ids, pair_ids


BERT_PAIRS = [("Hello world", "How are you?"), ("Machine translation is fun.", "yes"),
              ("a", "The quick brown fox jumps over the lazy dog")]


def bert_goldens():
    """[CLS] A [SEP] B [SEP] with the ALBERT model's pieces, through BertEmbeddings with the integer-made
    weights of tests/reference.py (the test writes the same file): ids, token types, mask and output."""
    out = GOLDEN / "bert"
    out.mkdir(exist_ok=True)
    sp = spm.SentencePieceProcessor(model_file=str(ROOT / "tests" / "models" / "albert-spiece.model"))
    cls, sep, pad = sp.piece_to_id("[CLS]"), sp.piece_to_id("[SEP]"), sp.pad_id()
    d, max_pos, types, eps = 8, 64, 2, 1e-12
    weights = reference.bert_like_weights(sp.get_piece_size(), d, max_pos, types)
    layer = BertEmbeddings(sp.get_piece_size(), d, max_pos, types, eps, pad).eval()
    with torch.no_grad():
        layer.word_embeddings.weight.copy_(torch.from_numpy(weights["embeddings.word_embeddings.weight"]))
        layer.position_embeddings.weight.copy_(torch.from_numpy(weights["embeddings.position_embeddings.weight"]))
        layer.token_type_embeddings.weight.copy_(torch.from_numpy(weights["embeddings.token_type_embeddings.weight"]))
        layer.LayerNorm.weight.copy_(torch.from_numpy(weights["embeddings.LayerNorm.weight"]))
        layer.LayerNorm.bias.copy_(torch.from_numpy(weights["embeddings.LayerNorm.bias"]))
    arrays, cases = {}, {}
    for name, seq_len in (("pairs", None), ("pairs_seq10", 10)):
        rows = []
        for a, b in BERT_PAIRS:
            ids_a, ids_b = sp.encode(a), sp.encode(b)
            if seq_len is not None and len(ids_a) + len(ids_b) + 3 > seq_len:
                ids_a, ids_b = hf_truncate_pair(ids_a, ids_b, len(ids_a) + len(ids_b) + 3 - seq_len)
            rows.append(([cls] + ids_a + [sep] + ids_b + [sep], [0] * (len(ids_a) + 2) + [1] * (len(ids_b) + 1)))
        width = seq_len or max(len(r[0]) for r in rows)
        ids = np.full((len(rows), width), pad, dtype=np.int64)
        tt = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for i, (r, t) in enumerate(rows):
            ids[i, :len(r)], tt[i, :len(t)], mask[i, :len(r)] = r, t, 1
        with torch.no_grad():
            output = layer(torch.from_numpy(ids), torch.from_numpy(tt)).numpy()
        arrays.update({f"{name}_input_ids": ids, f"{name}_token_type_ids": tt, f"{name}_attention_mask": mask,
                       f"{name}_output": output})
        cases[name] = {"seq_len": seq_len}
    np.savez(out / "goldens.npz", **arrays)
    (out / "cases.json").write_text(json.dumps({
        "model": "tests/models/albert-spiece.model", "d_model": d, "max_positions": max_pos, "types": types,
        "eps": eps, "pairs": BERT_PAIRS, "cases": cases}, indent=1) + "\n")


# --- ALBERT: factorized embeddings, projected first or last ------------------------------
class AlbertEmbeddings(BertEmbeddings):
    """HF transformers AlbertEmbeddings (src/transformers/models/albert/modeling_albert.py): BertEmbeddings
    at config.embedding_size E (word, position and token type tables and LayerNorm all E wide)."""


class AlbertInput(nn.Module):
    """AlbertModel up to the first layer: AlbertEmbeddings, then AlbertTransformer's
    embedding_hidden_mapping_in = nn.Linear(embedding_size, hidden_size)."""

    def __init__(self, vocab_size, embedding_size, hidden_size, max_position_embeddings, type_vocab_size,
                 layer_norm_eps, pad_token_id):
        super().__init__()
        self.embeddings = AlbertEmbeddings(vocab_size, embedding_size, max_position_embeddings, type_vocab_size,
                                           layer_norm_eps, pad_token_id)
        self.embedding_hidden_mapping_in = nn.Linear(embedding_size, hidden_size)

    def forward(self, input_ids, token_type_ids=None):
        return self.embedding_hidden_mapping_in(self.embeddings(input_ids, token_type_ids))


ALBERT_TEXTS = ["Hello world", "The quick brown fox jumps over the lazy dog", "a"]


def albert_goldens():
    """The weights of tests/reference.py's albert_like_weights (the test writes the same file) through
    (1) AlbertInput with [CLS] A [SEP] B [SEP] pairs: embedpe's --projection-order albert;
    (2) nn.Linear applied to every row of nn.Embedding, then the Annotated Transformer's E·sqrt(d) + PE:
        embedpe's default order, --projection-order first."""
    out = GOLDEN / "albert"
    out.mkdir(exist_ok=True)
    sp = spm.SentencePieceProcessor(model_file=str(ROOT / "tests" / "models" / "albert-spiece.model"))
    cls, sep, pad = sp.piece_to_id("[CLS]"), sp.piece_to_id("[SEP]"), sp.pad_id()
    e, d, max_pos, types, eps = 6, 10, 64, 2, 1e-12
    weights = reference.albert_like_weights(sp.get_piece_size(), e, d, max_pos, types)
    model = AlbertInput(sp.get_piece_size(), e, d, max_pos, types, eps, pad).eval()
    with torch.no_grad():
        for name, tensor in model.embeddings.named_parameters():
            tensor.copy_(torch.from_numpy(weights["albert.embeddings." + name]))
        for name, tensor in model.embedding_hidden_mapping_in.named_parameters():
            tensor.copy_(torch.from_numpy(weights["albert.encoder.embedding_hidden_mapping_in." + name]))
    rows = [([cls] + sp.encode(a) + [sep] + sp.encode(b) + [sep],
             [0] * (len(sp.encode(a)) + 2) + [1] * (len(sp.encode(b)) + 1)) for a, b in BERT_PAIRS]
    width = max(len(r) for r, _ in rows)
    ids = np.full((len(rows), width), pad, dtype=np.int64)
    tt = np.zeros((len(rows), width), dtype=np.int64)
    for i, (r, t) in enumerate(rows):
        ids[i, :len(r)], tt[i, :len(t)] = r, t
    with torch.no_grad():
        albert = model(torch.from_numpy(ids), torch.from_numpy(tt)).numpy()
        projected = model.embedding_hidden_mapping_in(model.embeddings.word_embeddings.weight).numpy()
    encoded = [sp.encode(t) for t in ALBERT_TEXTS]
    first_ids = np.full((len(encoded), max(map(len, encoded))), pad, dtype=np.int64)
    for i, r in enumerate(encoded):
        first_ids[i, :len(r)] = r
    first = torch_input_layer(projected, first_ids)
    np.savez(out / "goldens.npz", albert_input_ids=ids, albert_token_type_ids=tt, albert_output=albert,
             first_input_ids=first_ids, first_output=first)
    (out / "cases.json").write_text(json.dumps({
        "model": "tests/models/albert-spiece.model", "embedding_size": e, "hidden_size": d,
        "max_positions": max_pos, "types": types, "eps": eps, "pairs": BERT_PAIRS, "texts": ALBERT_TEXTS},
        indent=1) + "\n")


# --- T5 relative-position buckets ---------------------------------------------------
def t5_relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    """HF transformers T5Attention._relative_position_bucket (src/transformers/models/t5/modeling_t5.py),
    the static method as written there, in torch: the same float32 log and truncation."""
    relative_buckets = 0
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    # now relative_position is in the range [0, inf)

    # half of the buckets are for exact increments in positions
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact

    # The other half of the buckets are for logarithmically bigger bins in positions up to max_distance
    relative_position_if_large = max_exact + (
        torch.log(relative_position.float() / max_exact)
        / math.log(max_distance / max_exact)
        * (num_buckets - max_exact)
    ).to(torch.long)
    relative_position_if_large = torch.min(
        relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1)
    )

    relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
    return relative_buckets


def t5_buckets(length, bidirectional, num_buckets, max_distance):
    """compute_bias's positions: bucket[query, key] of key - query."""
    context_position = torch.arange(length, dtype=torch.long)[:, None]
    memory_position = torch.arange(length, dtype=torch.long)[None, :]
    relative_position = memory_position - context_position  # shape (query_length, key_length)
    return t5_relative_position_bucket(relative_position, bidirectional=bidirectional, num_buckets=num_buckets,
                                       max_distance=max_distance)


def t5_goldens():
    """Bucket matrices, bidirectional (encoder) and causal (decoder), at HF's default size and small odd ones,
    and one bias through nn.Embedding as compute_bias does."""
    out = GOLDEN / "t5"
    out.mkdir(exist_ok=True)
    arrays, cases = {}, {}
    for num_buckets, max_distance, length in ((32, 128, 200), (8, 16, 40), (9, 20, 50), (7, 5, 30), (5, 3, 12),
                                              (2, 2, 9)):
        for bidirectional in (True, False):
            if bidirectional and num_buckets // 2 // 2 == 0:
                continue  # no exact bucket: embedpe refuses it (HF would divide by zero)
            name = f"buckets_b{num_buckets}_m{max_distance}_n{length}_{'bi' if bidirectional else 'causal'}"
            buckets = t5_buckets(length, bidirectional, num_buckets, max_distance).numpy().astype(np.int64)
            arrays[name] = buckets
            args = ["--kind", "t5", "--max-len", str(length), "--num-buckets", str(num_buckets), "--max-distance",
                    str(max_distance)] + ([] if bidirectional else ["--causal"])
            # The bucket depends on key - query only: -(n-1) .. n-1, for the library's unit test.
            by_distance = np.concatenate([buckets[::-1, 0], buckets[0, 1:]])
            cases[name] = {"args": args, "num_buckets": num_buckets, "max_distance": max_distance,
                           "bidirectional": bidirectional, "first_distance": -(length - 1),
                           "buckets_by_distance": by_distance.tolist()}

    # compute_bias: nn.Embedding(num_buckets, heads) looked up at the buckets, permuted to (heads, query, key).
    num_buckets, heads, length = 32, 4, 20
    # Its own generator: the table does not depend on which goldens ran before.
    table = torch.randn(num_buckets, heads, generator=torch.Generator().manual_seed(5)).numpy().astype(np.float32)
    np.save(out / "relative_attention_bias.npy", table)
    write_safetensors(out / "t5_encoder_decoder.safetensors", {
        "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight": ("F32", table),
        "decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight": ("F32", table[::-1].copy()),
        "shared.weight": ("F32", np.zeros((3, 8), dtype=np.float32))})
    for bidirectional, source in ((True, table), (False, table[::-1].copy())):
        emb = nn.Embedding(num_buckets, heads)
        with torch.no_grad():
            emb.weight.copy_(torch.from_numpy(source))
            values = emb(t5_buckets(length, bidirectional, num_buckets, 128))  # (query, key, heads)
        arrays[f"bias_{'bi' if bidirectional else 'causal'}"] = values.permute([2, 0, 1]).numpy().astype(np.float32)
    cases["bias"] = {"num_buckets": num_buckets, "heads": heads, "length": length, "max_distance": 128}

    np.savez_compressed(out / "goldens.npz", **arrays)  # bucket matrices compress well
    (out / "cases.json").write_text(json.dumps(cases, indent=1) + "\n")


# --- padding and truncation sides, ids in (HF tokenizers' vocabulary) ---------------
PADDING_TEXTS = ["Hello, this is machine translation", "hi", "我爱机器翻译 🙂"]


def hf_pad(seqs, pad_id, side, length):
    """HF tokenizers' padding: pad ids and a 0 mask on the `side` to `length`."""
    ids, mask = [], []
    for s in seqs:
        pad = length - len(s)
        ids.append([pad_id] * pad + s if side == "left" else s + [pad_id] * pad)
        mask.append([0] * pad + [1] * len(s) if side == "left" else [1] * len(s) + [0] * pad)
    return np.array(ids, dtype=np.int64), np.array(mask, dtype=np.int64)


def hf_truncate(tokens, keep, side):
    """HF truncation of a text's tokens (special tokens are added after, so they are kept)."""
    if len(tokens) <= keep:
        return tokens
    return tokens[len(tokens) - keep:] if side == "left" else tokens[:keep]


def padding_goldens():
    """encode with --padding-side, --truncation-side, --pad-to-multiple-of and ids in, against PyTorch.

    Positions as HF computes them for left padding (e.g. LlamaModel / generate's
    prepare_inputs_for_generation): position_ids = attention_mask.cumsum(-1) - 1,
    padding filled with the pad position (0, or --pad-position). The layer is the
    Annotated Transformer's (nn.Embedding x sqrt(d_model) + float32 sinusoidal PE),
    or nn.Embedding positions for --pe learned, indexed by those position ids.
    """
    out = GOLDEN / "padding"
    out.mkdir(exist_ok=True)
    sp = spm.SentencePieceProcessor(model_file=str(ROOT / "data" / "default.model"))
    d, vocab = 16, sp.vocab_size()
    table = reference.random_normal_rows(np.arange(vocab), d, seed=0)  # (vocab, 16): embedpe's --seed 0 table
    learned = (np.random.default_rng(13).standard_normal((64, d)) * 0.5).astype(np.float32)  # (64, 16)
    np.save(out / "learned_positions.npy", learned)
    sinusoidal = PositionalEncoding(d, 5000).pe[0]  # (5000, 16) float32

    def layer(ids, mask, padding, pad_position=0, positions="sinusoidal"):
        with torch.no_grad():
            emb = nn.Embedding(vocab, d)
            emb.weight.copy_(torch.from_numpy(table))
            t_ids, t_mask = torch.from_numpy(ids), torch.from_numpy(mask)
            if padding == "left":  # HF: positions from the mask, padding at the pad position
                position_ids = t_mask.long().cumsum(-1) - 1
                position_ids = position_ids.masked_fill(t_mask == 0, pad_position)
            else:  # HF's default position_ids: arange, padding included
                position_ids = torch.arange(ids.shape[1]).unsqueeze(0).expand(ids.shape[0], -1)
            if positions == "learned":
                pe = nn.Embedding(64, d)
                pe.weight.copy_(torch.from_numpy(learned))
                return (emb(t_ids) * math.sqrt(d) + pe(position_ids)).numpy()
            return (emb(t_ids) * math.sqrt(d) + sinusoidal[position_ids]).numpy()

    def text_case(padding, truncation, seq_len=None, multiple=None):
        seqs = []
        for t in PADDING_TEXTS:
            tokens = sp.encode(t)
            if seq_len is not None:
                tokens = hf_truncate(tokens, seq_len - 2, truncation)
            seqs.append([sp.bos_id()] + tokens + [sp.eos_id()])
        length = seq_len if seq_len is not None else max(map(len, seqs))
        if multiple and length % multiple:
            length += multiple - length % multiple
        return hf_pad(seqs, sp.pad_id(), padding, length)

    cases, arrays = {}, {}

    def add(name, args, ids, mask, **kw):
        cases[name] = args
        arrays[name + ".input_ids"] = ids
        arrays[name + ".attention_mask"] = mask
        padding = args[args.index("--padding-side") + 1] if "--padding-side" in args else "right"
        arrays[name + ".output"] = layer(ids, mask, padding, **kw)

    add("left", ["--padding-side", "left"], *text_case("left", "right"))
    add("left_seq8_truncate_left", ["--padding-side", "left", "--seq-len", "8", "--truncation-side", "left"],
        *text_case("left", "left", seq_len=8))
    add("right_seq6_truncate_left", ["--seq-len", "6", "--truncation-side", "left"],
        *text_case("right", "left", seq_len=6))
    add("left_multiple8", ["--padding-side", "left", "--pad-to-multiple-of", "8"],
        *text_case("left", "right", multiple=8))
    add("left_pad_position3", ["--padding-side", "left", "--pad-position", "3"], *text_case("left", "right"),
        pad_position=3)
    add("left_learned", ["--padding-side", "left", "--pe", "learned", "--pe-weights", "padding/learned_positions.npy"],
        *text_case("left", "right"), positions="learned")

    # Ids in: used as given (no BOS/EOS), truncated and padded as usual.
    id_lines = [[1, 262, 6523, 920, 2], [5, 6], [1, 7, 8, 9, 10, 11, 12, 2]]
    (out / "ids.txt").write_text("".join(" ".join(map(str, s)) + "\n" for s in id_lines))
    add("ids_left_seq6_truncate_left", ["--input-format", "ids", "--padding-side", "left", "--seq-len", "6",
                                        "--truncation-side", "left"],
        *hf_pad([hf_truncate(s, 6, "left") for s in id_lines], sp.pad_id(), "left", 6))
    add("ids_right", ["--input-format", "ids"], *hf_pad(id_lines, sp.pad_id(), "right", max(map(len, id_lines))))

    np.savez(out / "goldens.npz", **arrays)
    (out / "cases.json").write_text(json.dumps({
        "model": "data/default.model", "d_model": d, "seed": 0, "texts": PADDING_TEXTS, "ids_file": "padding/ids.txt",
        "cases": cases}, ensure_ascii=False, indent=1) + "\n")



PARTS = {"encodings": encodings, "layer": layer_goldens, "pe_precision": pe_precision_goldens, "cli": cli_goldens,
         "default_table": default_table_goldens, "npy": npy_goldens, "weight": weight_goldens, "pe": pe_goldens,
         "t5": t5_goldens, "padding": padding_goldens, "bert": bert_goldens,
         "albert": albert_goldens}


def main(parts):
    GOLDEN.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    # In this order: the parts before t5 share torch's global generator.
    for name, make in PARTS.items():
        if not parts or name in parts:
            make()
    print("wrote", ", ".join(sorted(p.name for p in GOLDEN.iterdir())))


if __name__ == "__main__":
    unknown = set(sys.argv[1:]) - set(PARTS)
    if unknown:
        sys.exit(f"unknown parts {sorted(unknown)}; choose from {list(PARTS)}")
    main(sys.argv[1:])
