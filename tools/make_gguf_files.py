#!/usr/bin/python3
"""GGUF files for embedpe's tests, written by our own GGUF writer.

The writer follows the format's published specification, ggml's docs/gguf.md
(ggml commit d99724f2b141fed9e1a9f402213506c081433465): magic, version,
tensor count, key/value count, the key/value pairs, the tensor infos, padding
to general.alignment, the data. The tokenizer keys are those llama.cpp's
convert_hf_to_gguf.py writes from a SentencePiece model
(_create_vocab_sentencepiece, llama.cpp commit eb6a99c6): every piece with its
score and type (sentencepiece's IsUnknown / IsControl / IsUnused / IsByte,
else normal), bos/eos/unk ids, add_bos_token true, add_eos_token false.

    tools/make_gguf_files.py OUTDIR [--corpora DIR]   the test files (see FILES)
    tools/make_gguf_files.py --seeds fuzz/corpus/gguf  the fuzz target's seeds

The LLaMA-derived tokenizers cannot be committed (their licence), and neither
can GGUF files holding their vocabularies, so tests/gguf_test.py writes these
files at test time from ../shared/corpora (or the committed Mistral model).
Tables are tiny and deterministic: numpy's default_rng(seed) N(0, 1), float32,
stored as F32, F16 or BF16 (round to nearest even, as ggml's conversions).
"""
import argparse
import pathlib
import struct
import sys

import numpy as np

# docs/gguf.md: gguf_metadata_value_type
U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 = range(13)
SCALAR = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i", F32: "<f", BOOL: "<?",
          U64: "<Q", I64: "<q", F64: "<d"}
# ggml_type numbers (ggml.h) of the tensor types written here
GGML_F32, GGML_F16, GGML_BF16 = 0, 1, 30

TOKEN_NORMAL, TOKEN_UNKNOWN, TOKEN_CONTROL, TOKEN_USER_DEFINED, TOKEN_UNUSED, TOKEN_BYTE = 1, 2, 3, 4, 5, 6


def gguf_string(s):
    b = s if isinstance(s, bytes) else s.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


def gguf_value(vtype, value):
    """A value of type `vtype`; an array is (element_type, [values])."""
    if vtype == STRING:
        return gguf_string(value)
    if vtype == ARRAY:
        etype, items = value
        return struct.pack("<IQ", etype, len(items)) + b"".join(gguf_value(etype, v) for v in items)
    return struct.pack(SCALAR[vtype], value)


def bf16_bits(a):
    """float32 → bfloat16 bits, round to nearest even (ggml_compute_fp32_to_bf16 for finite values)."""
    u = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def tensor_bytes(table, ggml_type):
    if ggml_type == GGML_F32:
        return np.ascontiguousarray(table, dtype="<f4").tobytes()
    if ggml_type == GGML_F16:
        return np.ascontiguousarray(table.astype("<f2")).tobytes()
    if ggml_type == GGML_BF16:
        return bf16_bits(table).astype("<u2").tobytes()
    raise ValueError(ggml_type)


def write_gguf(path, metadata, tensors, version=3, alignment=32):
    """metadata: [(key, type, value)]; tensors: [(name, ggml_type, numpy_shape, raw bytes)].
    Tensors are laid out in order, each at a multiple of `alignment`."""
    out = bytearray(b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(metadata)))
    for key, vtype, value in metadata:
        out += gguf_string(key) + struct.pack("<I", vtype) + gguf_value(vtype, value)
    offset = 0
    layout = []
    for name, ggml_type, shape, raw in tensors:
        dims = list(reversed(shape))  # ggml order: the row length first
        out += gguf_string(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
        out += struct.pack("<IQ", ggml_type, offset)
        layout.append((offset, raw))
        offset += (len(raw) + alignment - 1) // alignment * alignment
    if tensors:
        out += b"\0" * (-len(out) % alignment)
    data_start = len(out)
    for off, raw in layout:
        out += b"\0" * (data_start + off - len(out)) + raw
    pathlib.Path(path).write_bytes(bytes(out))


def tokenizer_metadata(model_path):
    """The tokenizer.ggml.* keys convert_hf_to_gguf.py writes for a SentencePiece model."""
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=str(model_path))
    tokens, scores, types = [], [], []
    for i in range(sp.get_piece_size()):
        tokens.append(sp.id_to_piece(i))
        scores.append(sp.get_score(i))
        if sp.is_unknown(i):
            types.append(TOKEN_UNKNOWN)
        elif sp.is_control(i):
            types.append(TOKEN_CONTROL)
        elif sp.is_unused(i):
            types.append(TOKEN_UNUSED)
        elif sp.is_byte(i):
            types.append(TOKEN_BYTE)
        else:
            types.append(TOKEN_NORMAL)
    meta = [("tokenizer.ggml.model", STRING, "llama"),
            ("tokenizer.ggml.tokens", ARRAY, (STRING, tokens)),
            ("tokenizer.ggml.scores", ARRAY, (F32, scores)),
            ("tokenizer.ggml.token_type", ARRAY, (I32, types))]
    for key, value in (("bos", sp.bos_id()), ("eos", sp.eos_id()), ("unknown", sp.unk_id()), ("padding", sp.pad_id())):
        if value >= 0:
            meta.append((f"tokenizer.ggml.{key}_token_id", U32, value))
    meta += [("tokenizer.ggml.add_bos_token", BOOL, True), ("tokenizer.ggml.add_eos_token", BOOL, False)]
    return meta, len(tokens)


def table(vocab, n_embd, seed):
    return np.random.default_rng(seed).standard_normal((vocab, n_embd)).astype(np.float32)


def model_file(arch, name, tok_meta, vocab, n_embd, ggml_type, seed, extra=()):
    """(metadata, tensors, float32 table as stored) of a model file with only token_embd."""
    t = table(vocab, n_embd, seed)
    meta = [("general.architecture", STRING, arch), ("general.name", STRING, name),
            (f"{arch}.context_length", U32, 4096), (f"{arch}.embedding_length", U32, n_embd),
            (f"{arch}.block_count", U32, 0), *extra, *tok_meta]
    raw = tensor_bytes(t, ggml_type)
    stored = {GGML_F32: t, GGML_F16: t.astype(np.float16).astype(np.float32),
              GGML_BF16: (bf16_bits(t).astype(np.uint32) << 16).view(np.float32)}[ggml_type]
    return meta, [("token_embd.weight", ggml_type, t.shape, raw)], stored


# Every value type of docs/gguf.md once, and arrays nested twice (the parser's cases).
ALL_TYPES = [("test.u8", U8, 200), ("test.i8", I8, -100), ("test.u16", U16, 60000), ("test.i16", I16, -30000),
             ("test.u32", U32, 4000000000), ("test.i32", I32, -2000000000), ("test.f32", F32, 0.5),
             ("test.bool", BOOL, True), ("test.string", STRING, "héllo"), ("test.u64", U64, 2 ** 63 + 5),
             ("test.i64", I64, -2 ** 62), ("test.f64", F64, 0.125),
             ("test.nested", ARRAY, (ARRAY, [(I16, [1, -2]), (STRING, ["a", "bc"]), (ARRAY, [(BOOL, [True])])]))]

# name → (tokenizer model file name, architecture, ggml type, n_embd, version)
FILES = {
    "llama2-f32": ("llama2-tokenizer.model", "llama", GGML_F32, 8, 3),
    "llama2-f16": ("llama2-tokenizer.model", "llama", GGML_F16, 8, 3),
    "mistral-f16": ("mistral-v3-tokenizer.model", "llama", GGML_F16, 6, 3),
    "chinese-llama2-bf16-v2": ("chinese-llama2-tokenizer.model", "llama", GGML_BF16, 4, 2),
    "gemma-f32": ("mistral-v3-tokenizer.model", "gemma", GGML_F32, 7, 3),
}


def find_model(name, corpora):
    for where in (pathlib.Path(corpora), pathlib.Path(__file__).resolve().parent.parent / "tests" / "models"):
        if (where / name).exists():
            return where / name
    return None


def make_all(outdir, corpora):
    """Writes FILES that have their tokenizer model, a split file and the tables (NAME.npy);
    returns {name: tokenizer model path}."""
    outdir = pathlib.Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    made = {}
    for seed, (name, (model, arch, gtype, n_embd, version)) in enumerate(sorted(FILES.items())):
        path = find_model(model, corpora)
        if path is None:
            continue
        tok_meta, vocab = tokenizer_metadata(path)
        extra = ALL_TYPES if name == "llama2-f32" else ()
        meta, tensors, stored = model_file(arch, name, tok_meta, vocab, n_embd, gtype, seed + 1, extra)
        write_gguf(outdir / f"{name}.gguf", meta, tensors, version=version)
        np.save(outdir / f"{name}.npy", stored)
        made[name] = path
    path = find_model("mistral-v3-tokenizer.model", corpora)
    if path is not None:
        # A split as gguf-split writes it: the metadata in part 1, token_embd alone in part 2.
        tok_meta, vocab = tokenizer_metadata(path)
        meta, tensors, stored = model_file("llama", "split", tok_meta, vocab, 5, GGML_F32, 99)
        split = [("split.count", U16, 2), ("split.tensors.count", I32, 1)]
        write_gguf(outdir / "split-00001-of-00002.gguf", meta + [("split.no", U16, 0)] + split, [])
        write_gguf(outdir / "split-00002-of-00002.gguf", [("split.no", U16, 1)] + split, tensors)
        np.save(outdir / "split.npy", stored)
        made["split-00001-of-00002"] = path
    return made


def tiny_tokenizer():
    pieces = ["<unk>", "<s>", "</s>", "\u2581", "a", "b", "\u2581a", "ab"]
    types = [TOKEN_UNKNOWN, TOKEN_CONTROL, TOKEN_CONTROL] + [TOKEN_NORMAL] * 5
    return [("tokenizer.ggml.model", STRING, "llama"), ("tokenizer.ggml.tokens", ARRAY, (STRING, pieces)),
            ("tokenizer.ggml.scores", ARRAY, (F32, [0.0, 0.0, 0.0, -1.0, -2.0, -3.0, -0.5, -0.7])),
            ("tokenizer.ggml.token_type", ARRAY, (I32, types))], len(pieces)


def byte_level_chars():
    """GPT-2's bytes_to_unicode characters, in its order (the printable bytes, then 256 + n for the others)."""
    chars = [chr(c) for c in range(33, 127)] + [chr(c) for c in range(161, 173)] + [chr(c) for c in range(174, 256)]
    return chars + [chr(256 + k) for k in range(256 - len(chars))]


def tiny_bpe_tokenizer(tokens=None, merges=None, types=None, pre="gpt-2", extra=()):
    """A byte-level BPE vocabulary as llama.cpp's converter lays it out (tokenizer.ggml.model "gpt2"):
    the 256 ByteLevel characters, 'he', 'hel' and a CONTROL '<|endoftext|>', merges 'h e', 'he l'.
    For the refusal tests and the fuzz seeds only; the files whose ids are checked are llama.cpp's."""
    toks = tokens if tokens is not None else byte_level_chars() + ["he", "hel", "<|endoftext|>"]
    meta = [("tokenizer.ggml.model", STRING, "gpt2"), ("tokenizer.ggml.pre", STRING, pre),
            ("tokenizer.ggml.tokens", ARRAY, (STRING, toks)),
            ("tokenizer.ggml.token_type", ARRAY,
             types if types is not None else (I32, [TOKEN_NORMAL] * (len(toks) - 1) + [TOKEN_CONTROL])),
            ("tokenizer.ggml.merges", ARRAY, merges if merges is not None else (STRING, ["h e", "he l"])),
            *extra]
    return meta, len(toks)


def make_seeds(outdir):
    """Small valid files, one per feature the parser reads, for fuzz/corpus/gguf."""
    outdir = pathlib.Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    tok, vocab = tiny_tokenizer()
    for name, gtype, version, extra in (("f32_v3", GGML_F32, 3, ()), ("f16_v2", GGML_F16, 2, ()),
                                        ("bf16_types", GGML_BF16, 3, ALL_TYPES)):
        meta, tensors, _ = model_file("llama", name, tok, vocab, 4, gtype, 7, extra)
        write_gguf(outdir / f"{name}.gguf", meta, tensors, version=version)
    meta, tensors, _ = model_file("llama", "aligned", tok, vocab, 3, GGML_F32, 8,
                                  [("general.alignment", U32, 64)])
    t2 = ("output.weight", GGML_F16, (2, 3), tensor_bytes(table(2, 3, 9), GGML_F16))
    write_gguf(outdir / "align64_two.gguf", meta, tensors + [t2], alignment=64)
    write_gguf(outdir / "empty.gguf", [], [])
    # Byte-level BPE vocabularies (lib/src/text/gguf_bpe.h): one good, and one of each refusal.
    n = 259
    for name, kwargs in (("bpe_tiny", {}), ("bpe_merge_absent", {"merges": (STRING, ["h e", "hx l"])}),
                         ("bpe_merge_not_two", {"merges": (STRING, ["h e", "he"])}),
                         ("bpe_type_byte", {"types": (I32, [TOKEN_NORMAL] * (n - 1) + [TOKEN_BYTE])}),
                         ("bpe_types_short", {"types": (I32, [TOKEN_NORMAL] * (n - 1))}),
                         ("bpe_pre_unknown", {"pre": "gpt-9"}),
                         ("bpe_user_defined", {"types": (I32, [TOKEN_NORMAL] * (n - 2) + [TOKEN_USER_DEFINED, TOKEN_UNUSED]),
                                               "extra": [("tokenizer.ggml.add_bos_token", BOOL, True),
                                                         ("tokenizer.ggml.bos_token_id", U32, 258)]})):
        tok_meta, vocab_n = tiny_bpe_tokenizer(**kwargs)
        meta, tensors, _ = model_file("llama", name, tok_meta, vocab_n, 4, GGML_F32, 7)
        write_gguf(outdir / f"{name}.gguf", meta, tensors)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--corpora", default=str(pathlib.Path(__file__).resolve().parent.parent.parent / "shared" / "corpora"))
    ap.add_argument("--seeds", action="store_true", help="write the fuzz seeds to OUTDIR instead")
    a = ap.parse_args()
    if a.seeds:
        make_seeds(a.outdir)
    else:
        for name, model in make_all(a.outdir, a.corpora).items():
            print(f"{name}.gguf  (tokenizer of {model})")


if __name__ == "__main__":
    sys.exit(main())
