"""A GGUF file as --pretrained (issue 33): its tokenizer against SentencePiece
with the model it was converted from, its token_embd against the NumPy table it
was written from, `info`, and bad files.

The files are written at test time by tools/make_gguf_files.py (our own GGUF
writer, following ggml's docs/gguf.md) from the SentencePiece models of
../shared/corpora (the LLaMA-derived ones cannot be committed, nor can files
holding their vocabularies), or from the committed Mistral model when the
corpora are missing; a test whose model is missing is skipped.
"""
import json
import math
import os
import pathlib
import struct
import sys
import tempfile
import unittest

import numpy as np

from cli_test import HERE, TMP, run

sys.path.insert(0, str(HERE.parent / "tools"))
import make_gguf_files as mk  # noqa: E402

CORPORA = HERE.parent.parent / "shared" / "corpora"
TEXTS = ["botchan.txt", "wagahaiwa_nekodearu.txt", "tatoeba-zh.txt", "tatoeba-cmn.tsv"]
_FILES = {}


def files():
    """The generated files, once per process: {name: (path, tokenizer model path)}."""
    if not _FILES:
        where = pathlib.Path(tempfile.mkdtemp(prefix="gguf_test.", dir=TMP))
        for name, model in mk.make_all(where, CORPORA).items():
            _FILES[name] = (where / f"{name}.gguf", model)
        _FILES["__dir__"] = (where, None)
    return _FILES


class Case(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory(dir=TMP)
        self.tmp = pathlib.Path(self.dir.name)

    def tearDown(self):
        self.dir.cleanup()

    def file(self, name):
        f = files()
        if name not in f:
            self.skipTest(f"the tokenizer model of {name} is missing (../shared/corpora)")
        return f[name]

    def ok(self, *args):
        r = run(*args)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        return r


class IdentityTests(Case):
    """tokenize --pretrained FILE.gguf over the corpora == SentencePiece with the original model."""

    def check(self, name, path=None, model=None):
        import sentencepiece as spm
        if path is None:
            path, model = self.file(name)
        sp = spm.SentencePieceProcessor(model_file=str(model))
        texts = [CORPORA / t for t in TEXTS if (CORPORA / t).exists()]
        if not texts:
            self.skipTest(f"the test corpora are missing ({CORPORA})")
        texts.append(HERE / "golden" / "identity_texts.txt")
        total = 0
        for text in texts:
            r = self.ok("tokenize", "--pretrained", str(path), "--input", str(text), "--format", "ids",
                        "--no-bos")
            got = r.stdout.decode().split("\n")[:-1]
            lines = text.read_text(encoding="utf-8").split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            if lines:
                lines[0] = lines[0].removeprefix("\ufeff")  # embedpe reads past a UTF-8 BOM
            self.assertEqual(len(got), len(lines), text.name)
            bad = [i for i, (g, line) in enumerate(zip(got, lines))
                   if g != " ".join(map(str, sp.encode(line.removesuffix("\r"))))]
            self.assertEqual(bad[:5], [], f"{name} on {text.name}: {len(bad)} lines differ, first {bad[:5]}")
            total += len(lines)
        self.assertGreater(total, 100)

    def test_llama2(self):
        self.check("llama2-f32")

    def test_mistral(self):
        """llama.cpp's converter's file of Mistral-7B-Instruct-v0.3 (<unk> and 770 tokens CONTROL)."""
        self.check("mistral-v0.3", llamacpp("mistral-v0.3"), HERE / "models" / "mistral-v3-tokenizer.model")

    def test_chinese_llama2(self):
        self.check("chinese-llama2-bf16-v2")

    def test_bos_added_eos_not(self):
        """add_bos_token true, add_eos_token false (llama.cpp's SPM defaults, written by the converter)."""
        path, model = self.file("llama2-f32")
        r = self.ok("tokenize", "--pretrained", str(path), "--text", "Hello world", "--format", "ids")
        self.assertEqual(r.stdout.decode().split(), ["1", "15043", "3186"])

    def test_decode(self):
        path, _ = self.file("llama2-f32")
        r = self.ok("decode", "--pretrained", str(path), "--ids", "1,15043,3186,2")
        self.assertEqual(r.stdout.decode(), "Hello world\n")


    def test_decode_finds_the_file_an_output_names(self):
        """decode OUT.npz with no model: the GGUF file the output's config names is found and used."""
        path, _ = self.file("llama2-f32")
        out = self.tmp / "o.npz"
        self.ok("encode", "--pretrained", str(path), "--text", "Hello world", "-o", str(out))
        r = self.ok("decode", str(out))
        self.assertEqual(r.stdout.decode(), "Hello world\n")


class EncodeTests(Case):
    """encode --pretrained FILE.gguf: token_embeddings == table[ids] (× float32(sqrt(n_embd)) for gemma)."""

    def check(self, name, scale=None):
        path, _ = self.file(name)
        table = np.load(path.with_suffix(".npy")) if not name.startswith("split") else \
            np.load(path.parent / "split.npy")
        out = self.tmp / "o.npz"
        self.ok("encode", "--pretrained", str(path), "--text", "Hello world", "--text", "你好, ¿qué tal? 🙂",
                "--emit", "input_ids,attention_mask,token_embeddings,output", "-o", str(out))
        z = np.load(out)
        ids, mask = z["input_ids"], z["attention_mask"]
        want = table[ids]
        if scale:
            want = want * np.float32(math.sqrt(scale))
        want = want * mask[..., None].astype(np.float32)
        got = z["token_embeddings"] * mask[..., None].astype(np.float32)
        self.assertEqual(got.dtype, np.float32)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(z["output"] * mask[..., None], want)

    def test_llama_f32(self):
        self.check("llama2-f32")

    def test_llama_f16(self):
        self.check("llama2-f16")

    def test_mistral_f16(self):
        self.check("mistral-f16")

    def test_bf16_version2(self):
        self.check("chinese-llama2-bf16-v2")

    def test_gemma_scaled(self):
        self.check("gemma-f32", scale=7)

    def test_split(self):
        self.check("split-00001-of-00002")

    def test_lookup_and_weights(self):
        """lookup rows and --weights FILE.gguf (token_embd.weight found by name) read the same table."""
        path, _ = self.file("llama2-f16")
        table = np.load(path.with_suffix(".npy"))
        r = self.ok("lookup", "--pretrained", str(path), "--ids", "0,31999", "--format", "json")
        doc = json.loads(r.stdout)
        text = json.dumps(doc)
        for v in table[31999][:3]:
            self.assertIn(repr(float(v))[:6], text)
        out = self.tmp / "w.npz"
        self.ok("encode", "--model", str(files()["llama2-f16"][1]), "--weights", str(path), "--scale", "none",
                "--pe", "none", "--text", "Hello", "--emit", "input_ids,token_embeddings", "-o", str(out))
        z = np.load(out)
        np.testing.assert_array_equal(z["token_embeddings"], table[z["input_ids"]])


class InfoTests(Case):
    def test_text(self):
        path, _ = self.file("llama2-f16")
        out = self.ok("info", "--pretrained", str(path)).stdout.decode()
        self.assertIn("architecture: llama", out)
        self.assertIn("llama.embedding_length: 8", out)
        self.assertIn("tokenizer: llama, vocab_size 32000, bos 1, eos 2, unk 0 (<unk>, UNKNOWN), pad none; add_bos_token true, "
                      "add_eos_token false, add_space_prefix true", out)
        self.assertIn("token_embd.weight f16 (32000, 8) [ggml: 8, 32000] 512000 bytes", out)
        self.assertIn("token_embd: f16, 16 bits per weight", out)

    def test_json_every_value_type(self):
        path, _ = self.file("llama2-f32")
        doc = json.loads(self.ok("info", "--pretrained", str(path), "--format", "json").stdout)
        meta = doc["metadata"]
        for key, vtype, value in mk.ALL_TYPES:
            if vtype == mk.ARRAY:
                self.assertEqual(meta[key], [[1, -2], ["a", "bc"], [[True]]])
            else:
                self.assertEqual(meta[key], value, key)
        self.assertEqual(doc["tensors"], [{"name": "token_embd.weight", "type": "f32", "shape": [32000, 8],
                                           "ggml_shape": [8, 32000], "bytes": 1024000, "part": 0}])
        self.assertEqual(doc["token_embd_bits_per_weight"], 32.0)
        self.assertEqual(doc["version"], 3)

    def test_gemma_and_split(self):
        path, _ = self.file("gemma-f32")
        doc = json.loads(self.ok("info", "--pretrained", str(path), "--format", "json").stdout)
        self.assertIn("sqrtf(n_embd)", doc["input_layer"])
        path, _ = self.file("split-00001-of-00002")
        doc = json.loads(self.ok("info", "--pretrained", str(path), "--format", "json").stdout)
        self.assertEqual(len(doc["parts"]), 2)
        self.assertEqual(doc["tensors"][0]["part"], 1)


class QuantizedTests(Case):
    """token_embd in each ggml block type: rows dequantized == ggml's dequantize_row_TYPE, bit for bit.

    The blocks and their dequantization are ggml's own (tests/golden/gguf/, made by
    tools/make_gguf_goldens.py from upstream ggml's C code): the rows quantize_row_TYPE_ref made
    of inputs.npy, and random blocks. llama.cpp's gguf-py wrote them as token_embd of a GGUF file
    (tests/golden/gguf_llamacpp/type-TYPE.gguf), and encode --ids reads every row back."""
    GOLDEN = HERE / "golden" / "gguf"
    TYPES = {"f32": 0, "f16": 1, "q4_0": 2, "q4_1": 3, "q5_0": 6, "q5_1": 7, "q8_0": 8, "q2_K": 10, "q3_K": 11,
             "q4_K": 12, "q5_K": 13, "q6_K": 14, "bf16": 30}

    def test_every_type(self):
        for name, number in self.TYPES.items():
            with self.subTest(name):
                blocks = [np.load(self.GOLDEN / f"{name}.blocks.npy"), np.load(self.GOLDEN / f"{name}.random_blocks.npy")]
                want = [np.load(self.GOLDEN / f"{name}.dequantized.npy"),
                        np.load(self.GOLDEN / f"{name}.random_dequantized.npy")]
                if name == "f16":  # all 65536 halves in (256, 512): rows of 256 as the others
                    blocks[1] = blocks[1].reshape(-1, 512)
                rows = np.concatenate(blocks)
                want = np.concatenate(want).reshape(-1, 256)
                self.assertEqual(rows.shape[0], want.shape[0])
                vocab = rows.shape[0]
                # token_embd.weight = these rows, written by llama.cpp's GGUFWriter
                # (tools/make_gguf_llamacpp_files.py).
                path = llamacpp(f"type-{name}")
                out = self.tmp / f"{name}.npy"
                ids = ",".join(map(str, range(vocab)))
                self.ok("encode", "--pretrained", str(path), "--ids", ids, "--emit", "token_embeddings", "-o", str(out))
                got = np.load(out)[0]
                # Bit for bit, NaNs aside: the input layer's float arithmetic sets a signalling NaN's
                # quiet bit (the random F32/BF16 blocks hold some); a NaN stays a NaN.
                nan = np.isnan(want)
                np.testing.assert_array_equal(np.isnan(got), nan)
                np.testing.assert_array_equal(np.where(nan, 0, got.view(np.uint32)), np.where(nan, 0, want.view(np.uint32)))
                doc = json.loads(self.ok("info", "--pretrained", str(path), "--format", "json").stdout)
                self.assertEqual(doc["token_embd_bits_per_weight"], 8 * rows.shape[1] / 256)


LLAMACPP = HERE / "golden" / "gguf_llamacpp"


def llamacpp(name):
    """A file of tests/golden/gguf_llamacpp/ (tools/make_gguf_llamacpp_files.py: llama.cpp's
    convert_hf_to_gguf.py and gguf-py wrote it)."""
    return LLAMACPP / f"{name}.gguf"


def llamacpp_table(rows, columns=4):
    """token_embd.weight of the converted files: ((i*7 + j*131) % 4001 - 2000) / 256, float16-exact."""
    i = np.arange(rows, dtype=np.int64)[:, None]
    j = np.arange(columns, dtype=np.int64)[None, :]
    return (((i * 7 + j * 131) % 4001 - 2000) / 256.0).astype(np.float32)


class LlamaCppTests(Case):
    """Files llama.cpp's own converter wrote from model directories as transformers saves them:
    ids == llama.cpp's llama_tokenize (add_special, no parse_special) over the texts, built from
    llama.cpp at the commit tests/golden/gguf_llamacpp/manifest.json names."""
    NAMES = ["mistral-v0.3", "gemma", "openllama-legacy", "openllama-resaved"]

    def setUp(self):
        super().setUp()
        self.ids = json.loads((LLAMACPP / "ids.json").read_text())
        self.manifest = json.loads((LLAMACPP / "manifest.json").read_text())

    def texts(self):
        return (LLAMACPP / "texts.txt").read_text(encoding="utf-8").split("\n")[:-1]

    def check_ids(self, name):
        r = self.ok("tokenize", "--pretrained", str(llamacpp(name)), "--input", str(LLAMACPP / "texts.txt"),
                    "--format", "ids")
        got = r.stdout.decode().split("\n")[:-1]
        want = [" ".join(map(str, ids)) for ids in self.ids[name]]
        texts = self.texts()
        self.assertEqual(len(got), len(want))
        bad = [(texts[k], got[k], want[k]) for k in range(len(want)) if got[k] != want[k]]
        self.assertEqual(bad, [], f"{name}: {len(bad)} of {len(want)} texts differ from llama.cpp")

    def test_mistral_ids(self):
        """<unk> typed CONTROL, 768 control tokens that text never yields."""
        self.check_ids("mistral-v0.3")

    def test_gemma_ids(self):
        """Gemma's converter: add_space_prefix false, <pad> <eos> <bos> <unk> renamed CONTROL."""
        self.check_ids("gemma")

    def test_legacy_directory_ids(self):
        """added_tokens.json's [PAD] typed USER_DEFINED: cut out of text, its neighbours prefixed."""
        self.check_ids("openllama-legacy")

    def test_resaved_directory_ids(self):
        """added_tokens_decoder: special ones CONTROL, others USER_DEFINED; [PADn] fillers UNUSED."""
        self.check_ids("openllama-resaved")

    def test_tiny_ids(self):
        for name in ("tiny", "tiny-split-00001-of-00002", "tiny-split-00002-of-00002"):
            texts = self.manifest["files"]["tiny"]["texts"]
            want = self.ids["tiny"]
            for text, ids in zip(texts, want):
                r = self.ok("tokenize", "--pretrained", str(llamacpp(name)), "--text", text, "--format", "ids")
                self.assertEqual(r.stdout.decode().split(), [str(i) for i in ids], (name, text))

    def test_types_as_converted(self):
        """The files hold what the issue describes (so the tests above test it)."""
        doc = json.loads(self.ok("info", "--pretrained", str(llamacpp("mistral-v0.3")), "--format", "json").stdout)
        self.assertEqual((doc["tokenizer"]["unk_id"], doc["tokenizer"]["unk_token"], doc["tokenizer"]["unk_token_type"]),
                         (0, "<unk>", "CONTROL"))
        self.assertNotIn("tokenizer.ggml.unknown_token_id", doc["metadata"])

    def test_info_shows_the_unknown_token(self):
        for name, want in (("mistral-v0.3", "unk 0 (<unk>, CONTROL)"), ("gemma", "unk 0 (<pad>, CONTROL)"),
                           ("openllama-legacy", "unk 0 (<unk>, UNKNOWN)"), ("tiny", "unk 0 (<unk>, CONTROL)")):
            out = self.ok("info", "--pretrained", str(llamacpp(name))).stdout.decode()
            self.assertIn(want, out, name)

    def test_encode_rows(self):
        """token_embeddings == the converted table's rows (Gemma: x float32(sqrt(4)) = 2)."""
        for name, scale in (("mistral-v0.3", 1), ("gemma", 2), ("openllama-resaved", 1)):
            out = self.tmp / f"{name}.npz"
            self.ok("encode", "--pretrained", str(llamacpp(name)), "--text", "Hello world", "--text",
                    "x<sep>y [PAD32010] 🙂", "--emit", "input_ids,attention_mask,token_embeddings", "-o", str(out))
            z = np.load(out)
            rows = {"mistral-v0.3": 32768, "gemma": 32768, "openllama-resaved": 32032}[name]  # config vocab_size
            want = llamacpp_table(rows)[z["input_ids"]] * np.float32(scale)
            mask = z["attention_mask"][..., None].astype(np.float32)
            np.testing.assert_array_equal(z["token_embeddings"] * mask, want * mask)

    def test_decode(self):
        path = llamacpp("mistral-v0.3")
        ids = ",".join(map(str, self.ids["mistral-v0.3"][0]))
        self.assertEqual(self.ok("decode", "--pretrained", str(path), "--ids", ids).stdout.decode(), "Hello world\n")

    def test_output_records_the_files_sha256(self):
        """config.model.sha256 is sha256sum FILE; decode OUT finds the file by it."""
        import hashlib
        path = self.tmp / "m.gguf"
        path.write_bytes(llamacpp("openllama-legacy").read_bytes())
        out = self.tmp / "o.npz"
        self.ok("encode", "--pretrained", str(path), "--text", "Hello world", "-o", str(out))
        with np.load(out) as z:
            config = json.loads(str(z["config"][()]))
        self.assertEqual(config["model"]["sha256"], hashlib.sha256(path.read_bytes()).hexdigest())
        self.assertEqual(config["model"]["sha256"], self.manifest["files"]["openllama-legacy"]["sha256"])
        r = self.ok("decode", str(out))
        self.assertEqual(r.stdout.decode(), "Hello world\n")
        self.assertIn("its SHA-256 matches", r.stderr.decode())
        data = bytearray(path.read_bytes())
        data[-1] ^= 1  # one bit of the table: another file, though the vocabulary is the same
        path.write_bytes(bytes(data))
        r = run("decode", str(out))
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("has changed", r.stderr.decode())
        self.assertIn("its files unchanged, with --pretrained", r.stderr.decode())  # --model reads SentencePiece models only
        self.assertNotIn("--model", r.stderr.decode())


def patch_u16(data, key, value):
    """The uint16 value of `key` (the GGUFWriter's split.no / split.count) set to `value`."""
    d = bytearray(data)
    at = bytes(d).index(key.encode() + struct.pack("<I", 2)) + len(key) + 4
    d[at:at + 2] = struct.pack("<H", value)
    return bytes(d)


class UpstreamBadFileTests(Case):
    """llama.cpp-written files made bad: exit 2 and one line whichever command reads them, no output."""

    def refused(self, path, *words, commands=("tokenize", "encode", "info", "decode")):
        out = self.tmp / "o.npz"
        for command in commands:
            args = {"tokenize": ["tokenize", "--pretrained", str(path), "--text", "a"],
                    "encode": ["encode", "--pretrained", str(path), "--text", "a", "-o", str(out)],
                    "info": ["info", "--pretrained", str(path)],
                    "decode": ["decode", "--pretrained", str(path), "--ids", "1"]}[command]
            r = run(*args)
            err = r.stderr.decode()
            self.assertEqual(r.returncode, 2, f"{command}: {err}")
            self.assertEqual(err.count("\n"), 1, err)
            for w in words:
                self.assertIn(w, err, command)
            self.assertFalse(out.exists())

    def split(self, part1=None, part2=None):
        p1, p2 = self.tmp / "s-00001-of-00002.gguf", self.tmp / "s-00002-of-00002.gguf"
        p1.write_bytes(part1 if part1 is not None else llamacpp("tiny-split-00001-of-00002").read_bytes())
        if part2 is not None:
            p2.write_bytes(part2)
        elif not p2.exists():
            p2.write_bytes(llamacpp("tiny-split-00002-of-00002").read_bytes())
        return p1, p2

    def test_split_answers_the_same_from_either_part(self):
        p1, p2 = self.split()
        outs = [json.loads(self.ok("info", "--pretrained", str(p), "--format", "json").stdout) for p in (p1, p2)]
        self.assertEqual(outs[0]["tensors"], outs[1]["tensors"])
        self.assertEqual(outs[0]["parts"], outs[1]["parts"])

    def test_part_two_says_three_parts(self):
        good = llamacpp("tiny-split-00002-of-00002").read_bytes()
        p1, p2 = self.split(part2=patch_u16(good, "split.count", 3))
        self.refused(p1, "s-00002-of-00002.gguf", "split.count is 3")
        self.refused(p2, "split.count is 3")

    def test_part_two_says_it_is_part_one(self):
        good = llamacpp("tiny-split-00002-of-00002").read_bytes()
        p1, p2 = self.split(part2=patch_u16(good, "split.no", 0))
        for p in (p1, p2):
            self.refused(p, "split.no is 0, not 1")

    def test_part_one_without_split_keys(self):
        p1, p2 = self.split(part1=llamacpp("tiny").read_bytes())
        for p in (p1, p2):
            self.refused(p, "s-00001-of-00002.gguf")

    def test_part_that_is_a_fifo_or_a_directory(self):
        p1, p2 = self.split()
        p2.unlink()
        os.mkfifo(p2)
        for p in (p1,):
            self.refused(p, "s-00002-of-00002.gguf: not a valid GGUF file: it is not a regular file")
        p2.unlink()
        p2.mkdir()
        self.refused(p1, "s-00002-of-00002.gguf: not a valid GGUF file: it is not a regular file")
        p2.rmdir()
        p2.write_bytes(b"")
        self.refused(p1, "s-00002-of-00002.gguf: not a valid GGUF file: it is empty")

    def tiny_retokened(self, name, text):
        """llama.cpp's tiny.gguf with its token 5 ("b") spelled `text`, written at `name`."""
        d = llamacpp("tiny").read_bytes()
        b = struct.pack("<Q", 1) + b"b"
        self.assertEqual(d.count(b), 1)
        path = self.tmp / name
        path.write_bytes(d.replace(b, struct.pack("<Q", 1) + text))
        return path

    def test_invalid_vocabulary(self):
        """Two tokens with one text (llama.cpp asserts on it): a bad file, not a runtime error."""
        path = self.tiny_retokened("dup.gguf", b"a")
        self.refused(path, "token 5 (a)", commands=("tokenize", "encode", "decode"))

    def test_token_that_is_not_utf8(self):
        """A SentencePiece vocabulary's token with bytes that are not UTF-8 (a token's text goes into
        JSON and messages): refused at load, exit 2, as a byte-level BPE file's is, never an internal error."""
        path = self.tiny_retokened("badutf8.gguf", b"\xff")
        self.refused(path, "token 5 is not valid UTF-8 (tokenizer.ggml.tokens)", commands=("tokenize", "encode", "decode"))
        for fmt in ("json", "jsonl"):
            r = run("tokenize", "--pretrained", str(path), "--ids", "5", "--format", fmt)
            self.assertEqual(r.returncode, 2, r.stderr)

    def test_info_shows_control_characters_escaped(self):
        """A metadata string with an escape sequence and a newline reaches the terminal escaped."""
        d = llamacpp("tiny").read_bytes()
        name = b"general.name"
        at = d.index(struct.pack("<Q", len(name)) + name)
        value_at = at + 8 + len(name) + 4  # the key, its type (uint32), then the string: "tiny"
        self.assertEqual(d[value_at:value_at + 12], struct.pack("<Q", 4) + b"tiny")
        path = self.tmp / "ctrl.gguf"
        path.write_bytes(d[:value_at + 8] + b"\x1b[\n1" + d[value_at + 12:])  # the same length: nothing moves
        out = self.ok("info", "--pretrained", str(path)).stdout
        self.assertNotIn(b"\x1b", out)
        self.assertIn(b"general.name: \\x1b[\\n1", out)  # as the other reports spell control bytes

    def test_table_with_fewer_rows_than_the_vocabulary(self):
        d = llamacpp("tiny").read_bytes()
        name = b"token_embd.weight"
        info = struct.pack("<Q", len(name)) + name + struct.pack("<IQQ", 2, 4, 8)
        self.assertEqual(d.count(info), 1)
        path = self.tmp / "short.gguf"
        path.write_bytes(d.replace(info, struct.pack("<Q", len(name)) + name + struct.pack("<IQQ", 2, 4, 7)))
        self.refused(path, "7 rows, fewer than the 8 tokens", commands=("tokenize", "encode", "decode"))


def tiny(path, meta_extra=(), tok=None, arch="llama", version=3, tensors=None):
    tok_meta, vocab = tok if tok else mk.tiny_tokenizer()
    meta, t, _ = mk.model_file(arch, "tiny", tok_meta, vocab, 4, mk.GGML_F32, 3, meta_extra)
    mk.write_gguf(path, meta, t if tensors is None else tensors, version=version)
    return path.read_bytes()


class BadFileTests(Case):
    """Each kind of corruption: exit 2, one line on stderr naming the file, no output file."""

    def refused(self, data, *words):
        path = self.tmp / "bad.gguf"
        path.write_bytes(data)
        out = self.tmp / "o.npz"
        for args in (["encode", "--pretrained", str(path), "--text", "a", "-o", str(out)],
                     ["info", "--pretrained", str(path)]):
            r = run(*args)
            err = r.stderr.decode()
            self.assertEqual(r.returncode, 2, err)
            self.assertEqual(err.count("\n"), 1, err)
            self.assertIn("bad.gguf", err)
            for w in words:
                self.assertIn(w, err)
            self.assertFalse(out.exists())
        return err

    def good(self):
        return bytearray(tiny(self.tmp / "good.gguf"))

    def test_good_one_works(self):
        path = self.tmp / "good.gguf"
        tiny(path)
        r = self.ok("tokenize", "--pretrained", str(path), "--text", "ab a", "--format", "ids")
        # ▁ a b ▁ a: ▁a (-0.5) merges first, then "▁ab" is no piece: ▁a b ▁a
        self.assertEqual(r.stdout.decode().split(), ["1", "6", "5", "6"])

    def test_truncated(self):
        data = self.good()
        for cut in (3, 10, 30, 200, len(data) - 1):
            self.refused(bytes(data[:cut]))

    def test_empty_missing_and_not_a_regular_file(self):
        self.refused(b"", "it is empty")
        missing = self.tmp / "missing.gguf"
        r = run("tokenize", "--pretrained", str(missing), "--text", "a")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(r.stderr.decode(), f"embedpe: cannot read GGUF file {missing}: No such file or directory\n")
        path = self.tmp / "fifo.gguf"
        os.mkfifo(path)  # refused without waiting for a writer
        for args in (["tokenize", "--pretrained", str(path), "--text", "a"], ["info", "--pretrained", str(path)]):
            r = run(*args)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertEqual(r.stderr.decode(), f"embedpe: {path}: not a valid GGUF file: it is not a regular file\n")

    def test_bad_magic_and_version(self):
        data = self.good()
        self.refused(b"GGUX" + bytes(data[4:]), 'does not start with "GGUF"')
        self.refused(bytes(data[:4]) + struct.pack("<I", 1) + bytes(data[8:]), "version 1")

    def test_counts_overflow(self):
        data = self.good()
        for field in (8, 16):
            d = bytearray(data)
            d[field:field + 8] = struct.pack("<Q", 2 ** 64 - 1)
            self.refused(bytes(d), "more than the file holds")

    def test_string_longer_than_file(self):
        d = self.good()
        d[24:32] = struct.pack("<Q", 2 ** 40)  # the first key's length
        self.refused(bytes(d), "bytes long")

    def test_unknown_value_type(self):
        d = self.good()
        key_len = struct.unpack("<Q", d[24:32])[0]
        d[32 + key_len:36 + key_len] = struct.pack("<I", 13)
        self.refused(bytes(d), "unknown value type 13")

    def tensors(self, *tensors, extra=()):
        path = self.tmp / "t.gguf"
        return tiny(path, extra, tensors=list(tensors))

    def test_tensor_infos(self):
        row = np.zeros((8, 4), np.float32).tobytes()
        e = ("token_embd.weight", mk.GGML_F32, (8, 4), row)
        # duplicate names
        self.refused(self.tensors(e, e), "appears twice")
        # more than 4 dimensions, a dimension of 0, an unknown type
        self.refused(self.tensors(("x", mk.GGML_F32, (1, 1, 1, 1, 1), b"\0" * 4)), "5 dimensions")
        self.refused(self.tensors(("x", mk.GGML_F32, (0, 4), b"")), "dimension of 0")
        self.refused(self.tensors(("x", 99, (1, 4), b"\0" * 16)), "type 99")
        # a product of dimensions that overflows
        self.refused(self.tensors(("x", mk.GGML_F32, (2 ** 32, 2 ** 32, 4), b"")), "overflows")

    def patch_offset(self, data, value):
        """The first tensor info's offset (the last 8 bytes of the infos, before the padding)."""
        d = bytearray(data)
        name = b"token_embd.weight"
        at = bytes(d).rindex(name) + len(name) + 4 + 2 * 8 + 4
        d[at:at + 8] = struct.pack("<Q", value)
        return bytes(d)

    def test_offsets(self):
        row = np.zeros((8, 4), np.float32).tobytes()
        data = self.tensors(("token_embd.weight", mk.GGML_F32, (8, 4), row))
        self.refused(self.patch_offset(data, 4), "not a multiple of the alignment")
        self.refused(self.patch_offset(data, 2 ** 62), "past the end")
        two = self.tensors(("a", mk.GGML_F32, (8, 4), row), ("token_embd.weight", mk.GGML_F32, (8, 4), row))
        self.refused(self.patch_offset(two, 96), "overlap")

    def test_bad_alignment(self):
        self.refused(tiny(self.tmp / "a.gguf", [("general.alignment", mk.U32, 3)]), "power of 2")

    def test_split_part_missing(self):
        path, _ = self.file("split-00001-of-00002")
        part1 = path.read_bytes()
        (self.tmp / "m-00001-of-00002.gguf").write_bytes(part1)
        r = run("info", "--pretrained", str(self.tmp / "m-00001-of-00002.gguf"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("m-00002-of-00002.gguf is missing", r.stderr.decode())


class SplitRecordTests(Case):
    """A split set as llama.cpp's gguf-py writes it (tiny-split: token_embd in part 1,
    output_norm in part 2): every part the run reads is recorded in weight_files, so that a
    part changed between the pieces of a run (shards, a resumed output_dir) is refused, and
    the embedding is named with the part that holds it."""

    def setUp(self):
        super().setUp()
        self.p1, self.p2 = self.tmp / "s-00001-of-00002.gguf", self.tmp / "s-00002-of-00002.gguf"
        for name, p in (("tiny-split-00001-of-00002", self.p1), ("tiny-split-00002-of-00002", self.p2)):
            p.write_bytes(llamacpp(name).read_bytes())
        self.src = self.tmp / "texts.txt"
        self.src.write_text("ab a\nba b\naab\n" * 4, encoding="utf-8")

    def change_part_two(self):
        """output_norm.weight's first 1.0 made 2.0: the same layout, other bytes."""
        data = self.p2.read_bytes()
        one = struct.pack("<f", 1.0)
        at = data.index(one * 4)
        self.p2.write_bytes(data[:at] + struct.pack("<f", 2.0) + data[at + 4:])

    def encode(self, *args):
        return run("encode", "--pretrained", str(self.p1), "--input", str(self.src), *args)

    def test_shard_records_every_part(self):
        import hashlib
        out = self.tmp / "s1.jsonl"
        self.ok("encode", "--pretrained", str(self.p1), "--input", str(self.src), "--format", "jsonl",
                "--shard", "1/2", "-o", str(out))
        record = json.loads((self.tmp / "s1.jsonl.shard.json").read_text())
        want = {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in (self.p1, self.p2)}
        self.assertEqual(record["config"]["weight_files"], want)

    def test_merge_refuses_a_changed_part_two(self):
        for k in (1, 2):
            if k == 2:
                self.change_part_two()
            r = self.encode("--format", "jsonl", "--shard", f"{k}/2", "-o", str(self.tmp / f"s{k}.jsonl"))
            self.assertEqual(r.returncode, 0, r.stderr.decode())
        out = self.tmp / "all.jsonl"
        r = run("merge", "-o", str(out), str(self.tmp / "s1.jsonl"), str(self.tmp / "s2.jsonl"))
        err = r.stderr.decode()
        self.assertEqual(r.returncode, 1, err)  # shards of two runs, as any (scale_test)
        self.assertIn("weight_files." + str(self.p2), err)
        self.assertFalse(out.exists())

    def test_resume_refuses_a_changed_part_two(self):
        out = self.tmp / "parts"
        args = ("--seq-len", "8", "--output-dir", str(out), "--shard-rows", "4")
        r = self.encode(*args)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        (out / "part-00002.npz").unlink()
        self.change_part_two()
        r = self.encode(*args, "--resume")
        err = r.stderr.decode()
        self.assertEqual(r.returncode, 2, err)
        self.assertIn("s-00002-of-00002.gguf", err)
        self.assertFalse((out / "part-00002.npz").exists())

    def test_decode_names_the_part_that_cannot_be_read(self):
        out = self.tmp / "o.npz"
        self.ok("encode", "--pretrained", str(self.p1), "--text", "ab a", "-o", str(out))
        self.p2.write_bytes(self.p2.read_bytes()[:100])  # truncated; part 1 unchanged
        r = run("decode", str(out))
        err = r.stderr.decode()
        self.assertEqual(r.returncode, 2, err)
        self.assertEqual(err.count("\n"), 1, err)
        self.assertIn("cannot be read now (" + str(self.p2), err)
        self.assertIn("its files unchanged, with --pretrained", err)

    def test_output_over_a_part_names_pretrained(self):
        """-o a link to part 1 or 2: refused, as the same file as --pretrained's part."""
        for part in (self.p1, self.p2):
            link = self.tmp / "link.gguf"
            link.unlink(missing_ok=True)
            link.symlink_to(part)
            before = part.read_bytes()
            r = run("encode", "--pretrained", str(self.p1), "--text", "ab", "-o", str(link), "--format", "npz")
            err = r.stderr.decode()
            self.assertEqual(r.returncode, 2, err)
            self.assertIn("is the same file as --pretrained " + str(part), err)
            self.assertEqual(part.read_bytes(), before)

    def test_embedding_named_with_its_part(self):
        """Our writer's split (token_embd alone in part 2): the embedding is part 2's tensor."""
        path, _ = self.file("split-00001-of-00002")
        out = self.tmp / "o.npz"
        self.ok("encode", "--pretrained", str(path), "--text", "a", "-o", str(out))
        config = json.loads(str(np.load(out)["config"]))
        self.assertIn(str(path.parent / "split-00002-of-00002.gguf") + ":token_embd.weight", config["embedding"])


class RefusalTests(Case):
    def test_other_tokenizer_models(self):
        for model in ("t5", "bert"):
            tok_meta, vocab = mk.tiny_tokenizer()
            tok_meta[0] = ("tokenizer.ggml.model", mk.STRING, model)
            path = self.tmp / f"{model}.gguf"
            tiny(path, tok=(tok_meta, 8000))  # a table as large as the embedded model's vocabulary
            r = run("tokenize", "--pretrained", str(path), "--text", "a")
            err = r.stderr.decode()
            self.assertEqual(r.returncode, 2, err)
            self.assertEqual(err.count("\n"), 1)
            self.assertIn(f"'{model}'", err)
            self.assertIn("--ids", err)
            self.assertIn("--weights", err)
            # What the message points at works: ids, and the file as the weights.
            self.ok("encode", "--weights", str(path), "--ids", "1,2", "--scale", "none", "--pe", "none",
                    "-o", str(self.tmp / "o.npy"))
            np.testing.assert_array_equal(np.load(self.tmp / "o.npy")[0], mk.table(8000, 4, 3)[[1, 2]])

    def test_other_architectures(self):
        path = self.tmp / "falcon.gguf"
        tiny(path, arch="falcon")
        r = run("encode", "--pretrained", str(path), "--text", "a", "-o", str(self.tmp / "o.npy"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("architecture 'falcon' is not supported", r.stderr.decode())
        self.assertFalse((self.tmp / "o.npy").exists())



# --- Byte-level BPE vocabularies (tokenizer.ggml.model = "gpt2", issue 47 item 5) ---

TJ_GOLDENS = HERE / "golden" / "tokenizer_json"
# The uncommitted LLaMA-3 / DeepSeek-V3 files (their licences), as tools/make_gguf_bpe_files.py
# --local-out DIR writes them; their tests are skipped when the directory does not hold them.
BPE_LOCAL = pathlib.Path(os.environ.get("EMBEDPE_GGUF_BPE_LOCAL", "/tmp/tj-gguf-local"))


def bpe_file(name, where):
    """bpe-NAME.gguf of tests/golden/gguf_llamacpp (decompressed into `where` when committed as .xz)."""
    plain = LLAMACPP / f"bpe-{name}.gguf"
    if plain.exists():
        return plain
    out = pathlib.Path(where) / f"bpe-{name}.gguf"
    if not out.exists():
        import lzma
        out.write_bytes(lzma.open(LLAMACPP / f"bpe-{name}.gguf.xz").read())
    return out


_BPE_DIR = []


def bpe_dir():
    if not _BPE_DIR:
        _BPE_DIR.append(pathlib.Path(tempfile.mkdtemp(prefix="gguf_bpe.", dir=TMP)))
    return _BPE_DIR[0]


def tj_records(case, name="expected.jsonl"):
    text = (TJ_GOLDENS / case / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.split("\n") if line]


def tokenize_json(path, texts, special):
    """embedpe tokenize --format json of `texts` (one run): [(ids, tokens)] without padding."""
    args = ["tokenize", "--pretrained", str(path), "--format", "json"]
    if not special:
        args += ["--no-bos", "--no-eos"]
    args += ["--text=" + t for t in texts]
    r = run(*args)
    if r.returncode != 0:
        raise AssertionError(r.stderr.decode()[:500])
    out = json.loads(r.stdout)
    rows = []
    for i in range(len(texts)):
        n = sum(out["attention_mask"][i])
        rows.append((out["input_ids"][i][:n], out["tokens"][i]))
    return rows


class BpeTests(Case):
    """GGUF files llama.cpp's converter (_set_vocab_gpt2) wrote from a model's tokenizer.json: the
    ids are that tokenizer.json's, as HF tokenizers' Rust core computes them (bpe_ids.json's
    "expected", and the tokenizer_json goldens of the same model)."""

    def setUp(self):
        super().setUp()
        self.ids = json.loads((LLAMACPP / "bpe_ids.json").read_text())
        self.texts = json.loads((LLAMACPP / "bpe_texts.json").read_text(encoding="utf-8"))

    def check_bpe_ids(self, name):
        path = bpe_file(name, bpe_dir())
        got = tokenize_json(path, self.texts, special=False)
        bad = [(self.texts[k][:40], got[k][0], want) for k, want in enumerate(self.ids[name]["expected"])
               if got[k][0] != want]
        self.assertEqual(bad, [], f"{name}: {len(bad)} of {len(self.texts)} texts differ from the tokenizer.json")

    def test_gpt2_ids(self):
        self.check_bpe_ids("gpt2")

    def test_qwen2_5_ids(self):
        """pre qwen2: NFC first, as the tokenizer.json (llama.cpp does not, and differs on e + U+0301)."""
        self.check_bpe_ids("qwen2_5")

    def check_goldens(self, path, case, transformers=False):
        """The tokenizer_json goldens of the model the file was converted from (single texts): with
        special tokens against the file (add_bos/add_eos) or the directory (transformers.jsonl), without against the file."""
        for special in (False, True):
            name = "transformers.jsonl" if special and transformers else "expected.jsonl"
            recs = [r for r in tj_records(case, name)
                    if r["pair"] is None and r["add_special_tokens"] == special and "\0" not in r["text"]]
            got = tokenize_json(path, [r["text"] for r in recs], special)
            for r, (ids, tokens) in zip(recs, got):
                with self.subTest(case=case, special=special, text=r["text"][:50]):
                    self.assertEqual(ids, r["ids"])
                    self.assertEqual(tokens, r["tokens"])

    def test_same_ids_as_the_tokenizer_json_goldens(self):
        self.check_goldens(bpe_file("gpt2", bpe_dir()), "gpt2")
        self.check_goldens(bpe_file("qwen2_5", bpe_dir()), "qwen2_5")

    def test_same_ids_as_embedpe_on_the_tokenizer_json(self):
        """The other direction: the tokenizer.json itself through --pretrained gives the GGUF's ids."""
        tj = TJ_GOLDENS / "gpt2" / "tokenizer.json"
        a = tokenize_json(bpe_file("gpt2", bpe_dir()), self.texts, special=False)
        b = tokenize_json(tj, self.texts, special=False)
        self.assertEqual(a, b)

    def test_decode(self):
        """decode of the goldens' ids: HF's decode, and with --skip-special-tokens HF's too, except where
        the converter typed CONTROL an added token the tokenizer.json has as not special (Qwen's <|fim_*|>,
        <tool_call>). One run for the texts without a line break, one each for a few with."""
        for name, case in (("gpt2", "gpt2"), ("qwen2_5", "qwen2_5")):
            path = bpe_file(name, bpe_dir())
            recs = [r for r in tj_records(case)
                    if r["add_special_tokens"] and r["pair"] is None and r["ids"] and len(r["ids"]) <= 2000]
            for skip in (False, True):
                key = "decode_skip_special" if skip else "decode"
                group = [r for r in recs if not (skip and ("<|fim" in r["text"] or "<tool_call>" in r["text"]))]
                flat = [r for r in group if "\n" not in r[key] and "\r" not in r[key]]
                ids = self.tmp / "ids.txt"
                ids.write_text("".join(" ".join(map(str, r["ids"])) + "\n" for r in flat))
                out = self.tmp / "d.txt"
                self.ok("decode", "--pretrained", str(path), str(ids), "-o", str(out), *(["--skip-special-tokens"] if skip else []))
                got = out.read_bytes().decode("utf-8").split("\n")[:-1]
                self.assertEqual(len(got), len(flat))
                for r, g in zip(flat, got):
                    with self.subTest(name=name, text=r["text"][:50], skip=skip):
                        self.assertEqual(g, r[key])
                for r in [r for r in group if r not in flat][:3]:
                    args = ["decode", "--pretrained", str(path), "--ids", ",".join(map(str, r["ids"])), "-o", str(out)]
                    self.ok(*args, *(["--skip-special-tokens"] if skip else []))
                    with self.subTest(name=name, text=r["text"][:50], skip=skip):
                        self.assertEqual(out.read_bytes().decode("utf-8")[:-1], r[key])
            info = json.loads(self.ok("info", "--pretrained", str(path), "--format", "json").stdout)
            self.assertEqual(info["tokenizer"]["pre"], {"gpt2": "gpt-2", "qwen2_5": "qwen2"}[name])

    def test_unused_fillers_decode_to_nothing(self):
        """Qwen's [PADn] fillers (UNUSED; absent from the tokenizer.json): llama.cpp and HF give no text."""
        path = bpe_file("qwen2_5", bpe_dir())
        out = self.tmp / "d.txt"
        self.ok("decode", "--pretrained", str(path), "--ids", "9707,151700,1879", "-o", str(out))
        self.assertEqual(out.read_bytes().decode("utf-8"), "Hello world\n")

    def test_bos_eos_from_the_file(self):
        """add_bos_token / add_eos_token of the file decide BOS and EOS (Qwen: neither; --pretrained llama3_1: BOS)."""
        path = bpe_file("qwen2_5", bpe_dir())
        r = self.ok("tokenize", "--pretrained", str(path), "--text", "Hello world", "--format", "ids")
        self.assertEqual(r.stdout.decode().split(), ["9707", "1879"])

    def test_pair_gives_token_type_ids(self):
        """A pair: each text so, the second with type id 1 (README), as a SentencePiece GGUF's
        pairs; a single text has no token_type_ids."""
        path = bpe_file("qwen2_5", bpe_dir())
        out = self.tmp / "p.npz"
        self.ok("tokenize", "--pretrained", str(path), "--text", "Hello world", "--text-pair", "Hello",
                "-o", str(out))
        with np.load(out) as z:
            self.assertEqual(z["input_ids"].tolist(), [[9707, 1879, 9707]])
            self.assertEqual(z["token_type_ids"].tolist(), [[0, 0, 1]])
        self.ok("tokenize", "--pretrained", str(path), "--text", "Hello world", "-o", str(out))
        with np.load(out) as z:
            self.assertNotIn("token_type_ids", z.files)

    def test_info(self):
        path = bpe_file("qwen2_5", bpe_dir())
        text = self.ok("info", "--pretrained", str(path)).stdout.decode()
        self.assertIn("tokenizer: gpt2", text)
        self.assertIn("pre qwen2", text)
        j = json.loads(self.ok("info", "--pretrained", str(path), "--format", "json").stdout)
        self.assertEqual(j["tokenizer"]["model"], "gpt2")
        self.assertEqual(j["tokenizer"]["pre"], "qwen2")
        self.assertEqual(j["tokenizer"]["eos_id"], 151645)
        self.assertEqual(j["tokenizer"]["add_bos_token"], False)
        self.assertIn("NFC", j["tokenizer"]["embedpe"])

    def test_encode_rows(self):
        """encode: the rows of token_embd for the ids (qwen2's input layer is E[ids], as llama's)."""
        path = bpe_file("qwen2_5", bpe_dir())
        out = self.tmp / "o.npy"
        self.ok("encode", "--pretrained", str(path), "--text", "Hello world", "--pe", "none", "-o", str(out))
        np.testing.assert_array_equal(np.load(out)[0], llamacpp_table(151936)[[9707, 1879]])

    def test_output_records_the_files_sha256(self):
        """encode's record of the model is the file's SHA-256, and decode OUT finds the file by it."""
        import hashlib
        path = bpe_file("qwen2_5", bpe_dir())
        out = self.tmp / "o.npz"
        self.ok("encode", "--pretrained", str(path), "--text", "Hello world<|im_end|>", "--pe", "none", "-o", str(out))
        config = json.loads(str(np.load(out)["config"]))
        self.assertEqual(config["model"]["sha256"], hashlib.sha256(path.read_bytes()).hexdigest())
        self.assertEqual(self.ok("decode", str(out)).stdout.decode(), "Hello world<|im_end|>\n")

    def test_local_llama3_and_deepseek_v3(self):
        """Files not committed (licences): made by tools/make_gguf_bpe_files.py --local-out; skipped without them."""
        ran = []
        for name, case, transformers in (("llama3", "llama3", False), ("llama3_1", "llama3_1", False),
                                          ("deepseek_v3", "deepseek_v3", True)):
            path = BPE_LOCAL / f"bpe-{name}.gguf"
            if not path.exists():
                continue
            self.check_goldens(path, case, transformers)
            ran.append(name)
        if not ran:
            self.skipTest(f"no bpe-*.gguf in {BPE_LOCAL} (tools/make_gguf_bpe_files.py --local-out)")


def gguf_kv(data, key):
    """The offset just after `key` in a GGUF file's bytes (where its value type begins)."""
    k = struct.pack("<Q", len(key)) + key.encode()
    at = data.index(k)
    return at + len(k)


byte_level_chars = mk.byte_level_chars


def bpe_tiny(path, tokens=None, merges=None, types=None, pre="gpt-2", extra=()):
    """A small byte-level BPE file (our writer; refusal tests only): the 256 byte characters, 'he', 'hel'."""
    meta, n = mk.tiny_bpe_tokenizer(tokens, merges, types, pre, extra)
    m, t, _ = mk.model_file("llama", "tiny", meta, n, 4, mk.GGML_F32, 3)
    mk.write_gguf(path, m, t)
    return path


class BpeBadFileTests(Case):
    """Bad byte-level BPE files: one line, exit 2, whichever command reads them, no output."""

    def refused(self, path, *words, encode=True):
        out = self.tmp / "o.npy"
        for args in (["tokenize", "--pretrained", str(path), "--text", "a"],
                     ["encode", "--pretrained", str(path), "--text", "a", "-o", str(out)],
                     ["decode", "--pretrained", str(path), "--ids", "1"]):
            if args[0] == "encode" and not encode:
                continue
            r = run(*args)
            err = r.stderr.decode()
            self.assertEqual(r.returncode, 2, f"{args[0]}: {err}")
            self.assertEqual(err.count("\n"), 1, err)
            self.assertEqual(r.stdout, b"")
            for w in words:
                self.assertIn(w, err, args[0])
            self.assertFalse(out.exists())

    def test_tiny_one_works(self):
        path = bpe_tiny(self.tmp / "t.gguf")
        r = self.ok("tokenize", "--pretrained", str(path), "--text", "hello<|endoftext|>", "--format", "ids")
        # 'hel' 'l' 'o', then the CONTROL token matched as the tokenizer.json's special token
        self.assertEqual(r.stdout.decode().split(), ["257", "75", "78", "258"])

    def test_unknown_pre_is_refused_by_name(self):
        self.refused(bpe_tiny(self.tmp / "p.gguf", pre="gpt-9"), "tokenizer.ggml.pre", "'gpt-9'")
        self.refused(bpe_tiny(self.tmp / "d.gguf", pre="default"), "'default'")

    def test_llamacpp_file_with_another_pre(self):
        d = LLAMACPP.joinpath("bpe-gpt2.gguf").read_bytes()
        at = gguf_kv(d, "tokenizer.ggml.pre")
        self.assertEqual(d[at + 4 + 8:at + 4 + 8 + 5], b"gpt-2")
        path = self.tmp / "x.gguf"
        path.write_bytes(d[:at + 12] + b"gpt-7" + d[at + 17:])
        self.refused(path, "'gpt-7'", "x.gguf", encode=False)  # encode: architecture gpt2 is refused first

    def test_merges_naming_absent_tokens(self):
        self.refused(bpe_tiny(self.tmp / "m.gguf", merges=(mk.STRING, ["h e", "hx l"])),
                     "tokenizer.ggml.merges[1]", "'hx'")
        self.refused(bpe_tiny(self.tmp / "m2.gguf", merges=(mk.STRING, ["h e", "e l"])),
                     "tokenizer.ggml.merges[1]", "'el'")

    def test_merges_that_are_not_two_tokens(self):
        for bad in ("he", "h e l", " he", "he ", ""):
            with self.subTest(merge=bad):
                self.refused(bpe_tiny(self.tmp / "n.gguf", merges=(mk.STRING, ["h e", bad])),
                             "tokenizer.ggml.merges[1]")

    def test_token_types_out_of_range(self):
        n = 256 + 3
        for t in (0, 7, -1, mk.TOKEN_BYTE):
            with self.subTest(type=t):
                self.refused(bpe_tiny(self.tmp / "y.gguf", types=(mk.I32, [mk.TOKEN_NORMAL] * (n - 1) + [t])),
                             "token 258")

    def test_arrays_of_wrong_types_or_lengths(self):
        n = 256 + 3
        self.refused(bpe_tiny(self.tmp / "a.gguf", merges=(mk.I32, [1, 2])), "tokenizer.ggml.merges")
        self.refused(bpe_tiny(self.tmp / "b.gguf", types=(mk.I32, [1] * (n - 1))), "tokenizer.ggml.token_type")
        self.refused(bpe_tiny(self.tmp / "c.gguf", types=(mk.U8, [1] * n)), "tokenizer.ggml.token_type")
        path = bpe_tiny(self.tmp / "f.gguf")
        path.write_bytes(path.read_bytes().replace(b"tokenizer.ggml.merges", b"tokenizer.ggml.mergez"))
        self.refused(path, "tokenizer.ggml.merges is missing")

    def test_a_byte_without_its_token(self):
        """ByteLevel maps every byte to a token; a vocabulary without one is refused, not silently dropped."""
        toks = byte_level_chars()[1:] + ["xx", "he", "hel", "<|endoftext|>"]  # '!' (byte 0x21) missing
        self.refused(bpe_tiny(self.tmp / "b.gguf", tokens=toks, types=(mk.I32, [1] * len(toks))), "0x21")

    def test_huge_merges_count(self):
        path = bpe_tiny(self.tmp / "h.gguf")
        d = bytearray(path.read_bytes())
        at = gguf_kv(bytes(d), "tokenizer.ggml.merges") + 4 + 4  # value type, element type
        self.assertEqual(struct.unpack("<Q", d[at:at + 8])[0], 2)
        d[at:at + 8] = struct.pack("<Q", 1 << 60)
        path.write_bytes(bytes(d))
        self.refused(path, "h.gguf")

    def test_duplicate_and_invalid_utf8_tokens(self):
        toks = byte_level_chars() + ["he", "he", "<|endoftext|>"]
        self.refused(bpe_tiny(self.tmp / "d.gguf", tokens=toks), "token 257 (he)")
        toks = byte_level_chars() + ["he", b"h\xffl", "<|endoftext|>"]
        self.refused(bpe_tiny(self.tmp / "u.gguf", tokens=toks), "token 257", "UTF-8")

    def test_special_ids_outside_the_vocabulary(self):
        self.refused(bpe_tiny(self.tmp / "s.gguf", extra=[("tokenizer.ggml.eos_token_id", mk.U32, 259)]),
                     "tokenizer.ggml.eos_token_id 259")


if __name__ == "__main__":
    unittest.main()
