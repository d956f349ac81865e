"""Command-line tests: run the real embedpe binary and read what it writes.

    EMBEDPE=build/app/embedpe EMBEDPE_TEST_TMPDIR=/tmp python3 -m unittest -v cli_test

Needs NumPy only (Debian's python3-numpy). Outputs are compared with the
goldens in golden/ (made by tools/make_goldens.py from PyTorch and Python
SentencePiece) and with reference.py, a NumPy implementation of the
documented formulas. reference.random_normal_rows, the default table, is our
own NumPy port of our own generator; DefaultTableTests checks the table
against N(0,1) itself.
"""
import io
import json
import math
import os
import pathlib
import re
import subprocess
import tempfile
import threading
import unittest

import numpy as np

import reference

HERE = pathlib.Path(__file__).resolve().parent
GOLDEN = HERE / "golden"
EMBEDPE = os.environ.get("EMBEDPE", str(HERE.parent / "build" / "app" / "embedpe"))
TMP = os.environ.get("EMBEDPE_TEST_TMPDIR", tempfile.gettempdir())
GOLDEN_TEXTS = json.loads((GOLDEN / "cli_default_d16.json").read_text())["texts"]


def run(*args, stdin=None, cwd=None):
    """Runs embedpe; standard input is `stdin` (bytes), else empty (never the
    test runner's, which embedpe would read when given no texts)."""
    if stdin is None:
        return subprocess.run([EMBEDPE, *args], stdin=subprocess.DEVNULL, capture_output=True, cwd=cwd, timeout=120)
    return subprocess.run([EMBEDPE, *args], input=stdin, capture_output=True, cwd=cwd, timeout=120)


def tensor_names(z):
    """An embedpe .npz's tensors: its members but the JSON text ones (a 0-d unicode "config")."""
    return [k for k in z.files if z[k].dtype.kind != "U"]


def text_args(texts):
    out = []
    for t in texts:
        out += ["--text", t]
    return out


class CliCase(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory(dir=TMP)
        self.tmp = pathlib.Path(self.dir.name)

    def tearDown(self):
        self.dir.cleanup()

    def ok(self, *args, **kw):
        r = run(*args, **kw)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.assertEqual(r.stderr, b"")
        return r

    def fails(self, status, message, *args, output=None, **kw):
        """Runs a failing command: exit status, one stderr line containing
        `message`, nothing on stdout, and no file at `output`."""
        r = run(*args, **kw)
        err = r.stderr.decode()
        self.assertEqual(r.returncode, status, err)
        self.assertEqual(err.count("\n"), 1, f"expected one line on stderr, got {err!r}")
        # "embedpe: ", or "embedpe COMMAND: " for a mistake in the command line.
        self.assertRegex(err, r"^embedpe( [a-z]+)?: ")
        self.assertIn(message, err)
        self.assertEqual(r.stdout, b"")
        if output is not None:
            self.assertFalse(pathlib.Path(output).exists(), f"{output} was left behind")
            self.assertEqual([p for p in pathlib.Path(output).parent.iterdir() if ".embedpe-" in p.name], [])
        return err


class HelpTests(CliCase):
    def test_help_lists_the_subcommands(self):
        out = self.ok("--help").stdout.decode()
        for sub in ("encode", "tokenize", "info"):
            self.assertIn(sub, out)

    def test_encode_help_lists_the_contract_flags(self):
        out = self.ok("encode", "--help").stdout.decode()
        for flag in ("--text", "--input", "--model", "--d-model", "--max-len", "--seq-len", "--no-bos", "--no-eos",
                     "--pad-id", "--scale", "--seed", "--format", "--output", "--emit", "--train", "--dropout"):
            self.assertIn(flag, out)

    def test_version(self):
        self.assertRegex(self.ok("--version").stdout.decode(), r"^embedpe \d+\.\d+\.\d+\ncommit ")

    def test_no_subcommand_is_a_usage_error(self):
        self.fails(2, "give a command: encode")


class EncodeTests(CliCase):
    def test_output_equals_the_pytorch_golden(self):
        """Python SentencePiece ids + the PyTorch embedding × √d_model + PE recipe (eval) on the default table."""
        out = self.tmp / "o.npz"
        self.ok("encode", *text_args(GOLDEN_TEXTS), "--d-model", "16", "--output", str(out))
        got, want = np.load(out), np.load(GOLDEN / "cli_default_d16.npz")
        self.assertEqual(sorted(got.files), ["attention_mask", "config", "input_ids", "output"])
        self.assertEqual(sorted(tensor_names(got)), ["attention_mask", "input_ids", "output"])
        np.testing.assert_array_equal(got["input_ids"], want["input_ids"])
        np.testing.assert_array_equal(got["attention_mask"], want["attention_mask"])
        self.assertEqual(got["output"].dtype, np.float32)
        np.testing.assert_allclose(got["output"], want["output"], rtol=1e-5, atol=1e-5)

    def test_output_equals_the_numpy_reference_formula(self):
        """Odd d_model, a fixed seq_len, another seed and scale: the documented formulas in NumPy. The table's
        rows come from reference.random_normal_rows, our own port of our own generator (checked against N(0,1)
        by DefaultTableTests.test_the_table_is_standard_normal)."""
        out = self.tmp / "o.npz"
        self.ok("encode", *text_args(GOLDEN_TEXTS), "--d-model", "9", "--seq-len", "6", "--seed", "7",
                "--scale", "0.5", "--emit", "input_ids,output,positional_encoding,token_embeddings", "-o", str(out))
        got = np.load(out)
        ids = got["input_ids"]
        self.assertEqual(ids.shape, (3, 6))
        self.assertTrue((ids[:, 0] == 1).all())
        self.assertEqual(ids[0, 5], 2, "truncation keeps EOS")
        want = reference.input_layer(ids, 9, seed=7, scale=0.5)
        np.testing.assert_array_equal(got["output"], want)
        np.testing.assert_array_equal(got["positional_encoding"],
                                      reference.sinusoidal_pe64(np.arange(6), 9).astype(np.float32))
        np.testing.assert_array_equal(got["token_embeddings"] + got["positional_encoding"], got["output"])

    def test_padded_example_shape(self):
        """[1, ..., 2, 0, 0] for 'Hello, this is machine translation' padded to 10, as HF tokenizers pads."""
        r = self.ok("encode", "--text", "Hello, this is machine translation", "--seq-len", "10", "--d-model", "8")
        doc = json.loads(r.stdout)
        ids = doc["input_ids"][0]
        self.assertEqual(ids[0], 1)
        n = sum(doc["attention_mask"][0])
        self.assertEqual(ids[n - 1], 2)
        self.assertEqual(ids[n:], [0] * (10 - n))
        self.assertEqual(doc["shapes"]["output"], [1, 10, 8])

    def test_input_file_stdin_crlf_bom(self):
        src = self.tmp / "in.txt"
        src.write_bytes(b"\xef\xbb\xbf" + "\r\n".join(GOLDEN_TEXTS).encode() + b"\r\n")
        a = json.loads(self.ok("encode", "--input", str(src), "--d-model", "16").stdout)
        b = json.loads(self.ok("encode", "--input", "-", "--d-model", "16", stdin=src.read_bytes()).stdout)
        want = np.load(GOLDEN / "cli_default_d16.npz")
        self.assertEqual(a["input_ids"], want["input_ids"].tolist())
        self.assertEqual(a, b)

    def test_works_from_any_directory(self):
        r = self.ok("encode", "--text", "hi", "--d-model", "4", cwd="/")
        self.assertEqual(json.loads(r.stdout)["config"]["model"]["source"], "embedded default")

    def test_training_mode_dropout(self):
        base = ["encode", "--text", "Hello world", "--d-model", "64", "--format", "npy", "--seed", "3"]
        (self.tmp / "a").mkdir()
        self.ok(*base, "-o", str(self.tmp / "eval.npy"))
        self.ok(*base, "--train", "--dropout", "0.5", "-o", str(self.tmp / "t1.npy"))
        self.ok(*base, "--train", "--dropout", "0.5", "-o", str(self.tmp / "t2.npy"))
        ev, t1, t2 = (np.load(self.tmp / n) for n in ("eval.npy", "t1.npy", "t2.npy"))
        np.testing.assert_array_equal(t1, t2)
        kept = t1 != 0
        self.assertTrue(0.3 < kept.mean() < 0.7)
        np.testing.assert_allclose(t1[kept], ev[kept] * 2, rtol=1e-6)

    def test_no_bos_no_eos_pad_id(self):
        doc = json.loads(self.ok("encode", "--text", "a b c", "--text", "a", "--no-bos", "--no-eos",
                                 "--pad-id", "5", "--d-model", "4").stdout)
        self.assertNotIn(1, doc["input_ids"][0])
        self.assertEqual(doc["input_ids"][1][-1], 5)
        self.assertEqual(doc["config"]["pad_id"], 5)

    def test_output_dir_with_ids_is_refused_not_a_crash(self):
        # --output-dir reads --input corpora; --ids (like --text) is refused, where it crashed (SIGSEGV)
        self.fails(2, "--output-dir is for --input corpora", "encode", "--ids", "5,6", "--output-dir",
                   str(self.tmp / "dir"), output=self.tmp / "dir")

    def test_other_model(self):
        # encode with T5's model feeds the embedding SentencePiece's ids
        # (golden/encodings.json, from python3-sentencepiece), then T5's EOS
        # and no BOS (T5's model has none).
        model = HERE / "models" / "t5-spiece.model"
        enc = json.loads((GOLDEN / "encodings.json").read_text())["models"]["tests/models/t5-spiece.model"]
        self.assertEqual(enc["bos_id"], -1)
        texts = [c["text"] for c in enc["cases"]]
        doc = json.loads(self.ok("encode", "--model", str(model), *text_args(texts), "--d-model", "4",
                                 "--emit", "input_ids,attention_mask").stdout)
        self.assertEqual(doc["config"]["model"]["vocab_size"], enc["vocab_size"])
        for i, case in enumerate(enc["cases"]):
            n = sum(doc["attention_mask"][i])
            self.assertEqual(doc["input_ids"][i][:n], case["ids"] + [enc["eos_id"]], case["text"])


class FormatsTests(CliCase):
    def encode_all(self, fmt, *extra):
        out = self.tmp / f"o.{fmt}"
        self.ok("encode", *text_args(GOLDEN_TEXTS), "--d-model", "16", "--format", fmt, "-o", str(out), *extra)
        return out

    def test_json_npy_npz_agree_bit_for_bit(self):
        doc = json.loads(self.encode_all("json", "--emit", "all").read_text())
        npz = np.load(self.encode_all("npz", "--emit", "all"))
        npy = np.load(self.encode_all("npy"))
        self.assertEqual(sorted(tensor_names(npz)), ["attention_mask", "input_ids", "output", "positional_encoding",
                                                     "token_embeddings"])
        # the .npz's config is the JSON's, without the row counts its tensors give
        config = {k: v for k, v in doc["config"].items() if k not in ("sequences", "truncated")}
        self.assertEqual(json.loads(str(npz["config"][()])), config)
        self.assertEqual(npz["config"].shape, ())
        for name in tensor_names(npz):
            arr = np.array(doc[name], dtype=npz[name].dtype)
            np.testing.assert_array_equal(arr, npz[name], err_msg=name)
            self.assertEqual(list(npz[name].shape), doc["shapes"][name])
            self.assertEqual(str(npz[name].dtype), doc["dtypes"][name])
        np.testing.assert_array_equal(npy, npz["output"])
        self.assertEqual(npz["input_ids"].dtype, np.int64)
        self.assertEqual(npz["output"].dtype, np.float32)

    def test_json_document(self):
        doc = json.loads(self.encode_all("json").read_text())
        golden = json.loads((GOLDEN / "cli_default_d16.json").read_text())
        self.assertEqual(list(doc)[:4], ["config", "shapes", "dtypes", "tokens"])
        self.assertEqual(doc["tokens"], golden["pieces"])
        cfg = doc["config"]
        self.assertEqual(len(cfg["model"]["sha256"]), 64)
        for key in ("d_model", "seed", "scale", "max_len" if False else "positional_encoding", "add_bos", "add_eos",
                    "pad_id", "seq_len", "training"):
            self.assertIn(key, cfg)
        self.assertEqual(set(doc["shapes"]), {"input_ids", "attention_mask", "output"})

    def test_format_from_extension_and_npy_emit(self):
        out = self.tmp / "pe.npy"
        self.ok("encode", "--text", "hi", "--d-model", "6", "--emit", "positional_encoding", "-o", str(out))
        pe = np.load(out)
        np.testing.assert_array_equal(pe, reference.sinusoidal_pe64(np.arange(pe.shape[0]), 6).astype(np.float32))

    def test_npy_to_stdout(self):
        r = self.ok("encode", "--text", "hi", "--d-model", "6", "--format", "npy")
        arr = np.load(io.BytesIO(r.stdout))
        self.assertEqual(arr.shape[2], 6)
        ids = json.loads(self.ok("tokenize", "--text", "hi").stdout)["input_ids"]
        np.testing.assert_array_equal(arr, reference.input_layer(ids, 6, seed=0))

    def test_binary_formats_refuse_a_terminal(self):
        import pty
        master, slave = pty.openpty()
        try:
            r = subprocess.run([EMBEDPE, "encode", "--text", "hi", "--format", "npy"], stdout=slave,
                               stderr=subprocess.PIPE, timeout=60)
        finally:
            os.close(slave)
            os.close(master)
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"refusing to write binary .npy to a terminal", r.stderr)

    def test_overwrites_atomically(self):
        # A reader that opens the output again and again while it is being
        # overwritten sees the old file or the whole new one, never a part;
        # afterwards no temporary is left beside it.
        out = self.tmp / "o.npy"
        old = b"old"
        out.write_bytes(old)
        texts = [f"sentence number {i} with some words in it" for i in range(400)]
        sizes, samples, stop = [], [], threading.Event()

        def read_loop():  # a read takes milliseconds; hashing each would leave few reads during the run
            while not stop.is_set():
                data = out.read_bytes()
                sizes.append(len(data))
                if data != old and len(samples) < 4:
                    samples.append(data)

        reader = threading.Thread(target=read_loop)
        reader.start()
        try:
            r = run("encode", "--d-model", "512", "--seq-len", "32", "-o", str(out), stdin="\n".join(texts).encode())
        finally:
            stop.set()
            reader.join()
        self.assertEqual(r.returncode, 0, r.stderr)
        new = out.read_bytes()
        self.assertEqual(np.load(out).shape, (400, 32, 512))
        self.assertGreater(len(new), 20 << 20)  # 26 MB: written in many pieces
        self.assertGreaterEqual(len(sizes), 3, "the reader hardly ran during the overwrite")
        self.assertLessEqual(set(sizes), {len(old), len(new)}, "a reader saw a partly written output")
        for data in samples:
            self.assertTrue(data == new, "a reader saw a partly written output")
        self.assertEqual([p.name for p in self.tmp.iterdir()], ["o.npy"])


class TokenizeTests(CliCase):
    def test_ids_and_pieces_match_python_sentencepiece(self):
        enc = json.loads((GOLDEN / "encodings.json").read_text())["models"]
        for model, expected in enc.items():
            texts = [c["text"] for c in expected["cases"]]
            args = ["tokenize", *text_args(texts), "--no-bos", "--no-eos"]
            if model != "data/default.model":
                args += ["--model", str(HERE.parent / model)]
            doc = json.loads(self.ok(*args).stdout)
            for i, case in enumerate(expected["cases"]):
                n = sum(doc["attention_mask"][i])
                self.assertEqual(doc["input_ids"][i][:n], case["ids"], (model, case["text"]))
                self.assertEqual(doc["tokens"][i], case["pieces"], (model, case["text"]))

    def test_ids_and_pieces_formats(self):
        ids = self.ok("tokenize", "--text", "Hello, this is machine translation", "--format", "ids").stdout.decode()
        pieces = self.ok("tokenize", "--text", "Hello, this is machine translation", "--format", "pieces").stdout
        self.assertTrue(ids.startswith("1 ") and ids.endswith(" 2\n"))
        self.assertEqual(pieces.decode().split()[0], "<s>")
        self.assertEqual(len(ids.split()), len(pieces.decode().split()))

    def test_truncation_is_reported(self):
        doc = json.loads(self.ok("tokenize", "--text", "a long sentence to cut", "--seq-len", "3").stdout)
        ids = doc["input_ids"][0]
        self.assertEqual(len(ids), 3)
        self.assertEqual(ids[0], 1)
        self.assertEqual(ids[-1], 2)
        self.assertEqual(doc["config"]["truncated"], 1)

    def test_pads_and_truncates_as_encode_feeds_the_embedding(self):
        texts = ["Hello world", "Hi", "a rather longer sentence than the others here"]
        for extra in [[], ["--seq-len", "12", "--pad-id", "7"], ["--seq-len", "4"], ["--no-bos", "--seq-len", "6"]]:
            with self.subTest(extra=extra):
                enc = json.loads(self.ok("encode", *text_args(texts), *extra, "--d-model", "4",
                                         "--emit", "input_ids,attention_mask").stdout)
                tok = json.loads(self.ok("tokenize", *text_args(texts), *extra).stdout)
                # The same document, but for the embedding's part of the config.
                for key in ["shapes", "dtypes", "tokens", "input_ids", "attention_mask"]:
                    self.assertEqual(tok[key], enc[key], key)
                for key, value in tok["config"].items():
                    self.assertEqual(value, enc["config"][key], key)
                self.assertEqual(list(tok), list(enc))
                ids = self.ok("tokenize", *text_args(texts), *extra, "--format", "ids").stdout.decode().splitlines()
                pieces = self.ok("tokenize", *text_args(texts), *extra, "--format", "pieces").stdout.decode()
                if "--seq-len" in extra:  # a fixed length: padded rows, as the embedding sees them
                    self.assertEqual([[int(x) for x in l.split()] for l in ids], enc["input_ids"])
                    pad = "<pad>" if "7" not in extra else None
                    if pad:
                        self.assertIn(pad, pieces)
                else:  # no padding asked for: each text's own tokens
                    self.assertEqual([[int(x) for x in l.split()] for l in ids],
                                     [row[:sum(m)] for row, m in zip(enc["input_ids"], enc["attention_mask"])])
        out = self.ok("tokenize", "--text", "Hello world", "--seq-len", "12", "--pad-id", "7", "--format", "ids")
        self.assertEqual(out.stdout.decode().split(), ["1", "262", "6523", "920", "2"] + ["7"] * 7)

    def test_text_formats_hold_each_rows_own_columns(self):
        """--format ids/pieces without --seq-len skip the padded batch (issue 14): each line is what the JSON
        document's row holds in its own columns: its tokens, padded to --pad-to-multiple-of on its side."""
        texts = ["Hello world", "", "Hi", "a rather longer sentence than the others here", "  spaced  out  "]
        for extra in [[], ["--pad-to-multiple-of", "4"], ["--padding-side", "left", "--pad-to-multiple-of", "3"],
                      ["--no-bos", "--pad-id", "5", "--pad-to-multiple-of", "8"], ["--no-bos", "--no-eos"]]:
            with self.subTest(extra=extra):
                doc = json.loads(self.ok("tokenize", *text_args(texts), *extra).stdout)
                m = int(extra[extra.index("--pad-to-multiple-of") + 1]) if "--pad-to-multiple-of" in extra else 1
                left = "left" in extra
                want_ids, want_pieces = [], []
                for row, mask, tokens in zip(doc["input_ids"], doc["attention_mask"], doc["tokens"]):
                    n = sum(mask)
                    length = -(-n // m) * m
                    cols = row[len(row) - length:] if left else row[:length]
                    want_ids.append(" ".join(map(str, cols)))
                    pad_piece = "<pad>" if "--pad-id" not in extra else "<0x01>"  # id 5 (embedpe lookup --ids 5)
                    padding = [pad_piece] * (length - n)
                    want_pieces.append(" ".join(padding + tokens if left else tokens + padding))
                ids = self.ok("tokenize", *text_args(texts), *extra, "--format", "ids").stdout.decode()
                pieces = self.ok("tokenize", *text_args(texts), *extra, "--format", "pieces").stdout.decode()
                self.assertEqual(ids, "".join(l + "\n" for l in want_ids))
                self.assertEqual(pieces, "".join(l + "\n" for l in want_pieces))
        out = self.tmp / "never.txt"
        self.fails(2, "--pad-id 99999 is outside the vocabulary", "tokenize", "--text", "hi", "--pad-id", "99999",
                   "--format", "ids", "-o", str(out), output=out)

    def test_config_says_what_was_done(self):
        # t5-spiece has no BOS: none is added, and the config says so.
        model = str(HERE / "models" / "t5-spiece.model")
        doc = json.loads(self.ok("tokenize", "--text", "hi", "--model", model).stdout)
        self.assertFalse(doc["config"]["add_bos"])
        self.assertTrue(doc["config"]["add_eos"])
        self.assertEqual(doc["tokens"][0][-1], "</s>")
        enc = json.loads(self.ok("encode", "--text", "hi", "--model", model, "--d-model", "4").stdout)
        self.assertFalse(enc["config"]["add_bos"])
        self.assertTrue(enc["config"]["add_eos"])
        doc = json.loads(self.ok("tokenize", "--text", "hi", "--no-eos").stdout)
        self.assertTrue(doc["config"]["add_bos"])
        self.assertFalse(doc["config"]["add_eos"])


def report_rows(text):
    """info's "key  value" rows as {key: value}, after checking that every value starts in one column."""
    lines = text.splitlines()
    columns = {len(line) - len(line.split(None, 1)[1]) for line in lines}
    assert len(columns) == 1, f"values not aligned: {lines}"
    return {line.split(None, 1)[0]: line.split(None, 1)[1] for line in lines}


class InfoTests(CliCase):
    def test_default_model(self):
        rows = report_rows(self.ok("info").stdout.decode())
        expected = {"vocab_size": "8000", "pad_id": "0  <pad>", "bos_id": "1  <s>", "eos_id": "2  </s>",
                    "unk_id": "3  <unk>", "type": "unigram", "byte_fallback": "yes"}
        self.assertEqual({k: rows[k] for k in expected}, expected)

    def test_the_normalizer_options_are_what_sentencepiece_does(self):
        # Issue 31: add_dummy_prefix, remove_extra_whitespaces and split_digits decide whether ids match
        # another tool's. Each is checked against what SentencePiece does with the model.
        import sentencepiece as spm

        def varint(b, i):
            v = shift = 0
            while True:
                v |= (b[i] & 0x7F) << shift
                shift += 7
                i += 1
                if b[i - 1] < 0x80:
                    return v, i

        def enc_varint(v):
            out = bytearray()
            while True:
                out.append((v & 0x7F) | (0x80 if v > 0x7F else 0))
                v >>= 7
                if not v:
                    return bytes(out)

        def with_normalizer_field(model, number, value):
            """The model with normalizer_spec (ModelProto field 3) field `number` set to `value`: appended,
            as protobuf's last value wins."""
            out, i = bytearray(), 0
            while i < len(model):
                key, j = varint(model, i)
                assert key & 7 == 2 or key >> 3 != 3
                if key & 7 == 0:
                    _, j = varint(model, j)
                    out += model[i:j]
                elif key & 7 == 2:
                    n, k = varint(model, j)
                    body = model[k:k + n]
                    if key >> 3 == 3:
                        body += enc_varint(number << 3) + enc_varint(value)
                    out += enc_varint(key) + enc_varint(len(body)) + body
                    j = k + n
                else:
                    j += 4 if key & 7 == 5 else 8
                    out += model[i:j]
                i = j
            return bytes(out)

        models = sorted((HERE / "models").glob("*.model"))
        source = (HERE / "models" / "sp-test.model").read_bytes()
        for name, number in (("no-dummy-prefix", 3), ("keep-whitespace", 4)):
            variant = self.tmp / f"{name}.model"
            variant.write_bytes(with_normalizer_field(source, number, 0))
            models.append(variant)
        seen = set()
        for model in models:
            with self.subTest(model=model.name):
                rows = report_rows(self.ok("info", "--model", str(model)).stdout.decode())
                doc = json.loads(self.ok("info", "--model", str(model), "--format", "json").stdout)
                sp = spm.SentencePieceProcessor(model_file=str(model))
                pieces = lambda text: sp.encode(text, out_type=str)
                dummy = pieces("a")[0].startswith("\u2581")
                kept = "".join(pieces("a  b")).count("\u2581") != "".join(pieces("a b")).count("\u2581")
                digits = "0123456789 10 100 1000 2000 2019 12345678 99 00 11"
                multi = any(sum(c.isdigit() for c in p) > 1 for p in pieces(digits))
                self.assertEqual(rows["add_dummy_prefix"], "yes" if dummy else "no")
                self.assertEqual(doc["add_dummy_prefix"], dummy)
                self.assertEqual(rows["remove_extra_whitespaces"], "no" if kept else "yes")
                self.assertEqual(doc["remove_extra_whitespaces"], not kept)
                if multi:  # a piece of two digits: SentencePiece does not split digits
                    self.assertEqual((rows["split_digits"], doc["split_digits"]), ("no", False))
                if doc["split_digits"]:
                    self.assertFalse(multi)
                seen.add((dummy, kept, doc["split_digits"]))
        # The models committed cover both values of each option (else the checks above prove less).
        for k in range(3):
            self.assertEqual({s[k] for s in seen}, {True, False}, seen)

    def test_long_tensor_names_keep_the_columns_aligned(self):
        name = "model.encoder.embed_tokens.a_tensor_name_longer_than_forty_characters.weight"
        path = self.tmp / "long.safetensors"
        write_safetensors(path, {"b": ("F32", np.zeros((4, 3), np.float32)),
                                 name: ("F16", np.zeros((1000, 8), np.float16))})
        lines = [l for l in self.ok("info", "--weights", str(path)).stdout.decode().splitlines() if l.startswith("  ")]
        self.assertEqual(len(lines), 2, lines)
        self.assertEqual(len({(l.index("("), l.index(" F")) for l in lines}), 1, lines)  # shapes, dtypes
        self.assertEqual(len({len(l) for l in lines}), 1, lines)  # the sizes right-aligned

    def test_json_and_sha256_of_a_file(self):
        import hashlib
        model = HERE / "models" / "albert-spiece.model"
        doc = json.loads(self.ok("info", "--model", str(model), "--format", "json").stdout)
        self.assertEqual(doc["sha256"], hashlib.sha256(model.read_bytes()).hexdigest())
        self.assertEqual((doc["bos_id"], doc["eos_id"], doc["pad_id"], doc["unk_id"]), (-1, -1, 0, 1))
        self.assertEqual(doc["vocab_size"], 30000)


def write_safetensors(path, tensors):
    """{name: (dtype, array)} as a .safetensors file, with NumPy only."""
    import struct
    header, blobs, offset = {}, [], 0
    for name, (dtype, array) in tensors.items():
        raw = np.ascontiguousarray(array).tobytes()
        header[name] = {"dtype": dtype, "shape": list(array.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    pathlib.Path(path).write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))


class TokenTypeTests(CliCase):
    """issue 16: BERT's word + token type + position embeddings and LayerNorm over [CLS] A [SEP] B [SEP]
    pairs, against HF's BertEmbeddings (tests/golden/bert, tools/make_goldens.py)."""
    BERT = GOLDEN / "bert"

    def setUp(self):
        super().setUp()
        self.cases = json.loads((self.BERT / "cases.json").read_text())
        self.model = str(HERE.parent / self.cases["model"])
        self.weights = self.tmp / "bert.safetensors"
        tensors = reference.bert_like_weights(30000, self.cases["d_model"], self.cases["max_positions"],
                                              self.cases["types"])
        write_safetensors(self.weights, {k: ("F32", v) for k, v in tensors.items()})

    def encode(self, *extra, emit="input_ids,token_type_ids,attention_mask,output"):
        out = self.tmp / "o.npz"
        args = ["encode", "--model", self.model, "--weights", str(self.weights), "--pe", "learned", "--scale",
                "none", "--layernorm", "--layernorm-eps", "1e-12", "--emit", emit, "-o", str(out)]
        for a, b in self.cases["pairs"]:
            args += ["--text", a, "--text-pair", b]
        self.ok(*args, *extra)
        return np.load(out)

    def test_pairs_match_bert_embeddings(self):
        goldens = np.load(self.BERT / "goldens.npz")
        for name, case in self.cases["cases"].items():
            with self.subTest(case=name):
                z = self.encode(*(["--seq-len", str(case["seq_len"])] if case["seq_len"] else []))
                for tensor in ("input_ids", "token_type_ids", "attention_mask"):
                    np.testing.assert_array_equal(z[tensor], goldens[f"{name}_{tensor}"], tensor)
                np.testing.assert_allclose(z["output"], goldens[f"{name}_output"], rtol=0, atol=1e-6)  # LayerNorm: f64 vs f32

    def test_type_zero_by_default_and_off_on_request(self):
        """One text: type 0 everywhere, as BertEmbeddings with token_type_ids = 0; --no-token-type drops T."""
        w = reference.bert_like_weights(30000, 8, 64, 2)
        out = self.tmp / "one.npz"
        base = ["encode", "--model", self.model, "--weights", str(self.weights), "--pe", "learned", "--scale", "none",
                "--quiet", "--text", "Hello world", "--emit", "input_ids,token_type_ids,output"]  # no LayerNorm: quiet
        self.ok(*base, "-o", str(out))
        z = np.load(out)
        ids = z["input_ids"][0]
        want = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.token_type_embeddings.weight"][0]) + \
            w["embeddings.position_embeddings.weight"][:len(ids)]
        np.testing.assert_array_equal(z["output"][0], want)
        np.testing.assert_array_equal(z["token_type_ids"], np.zeros_like(z["input_ids"]))
        self.ok(*base, "--token-type-ids", "1", "-o", str(out))
        want1 = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.token_type_embeddings.weight"][1]) + \
            w["embeddings.position_embeddings.weight"][:len(ids)]
        np.testing.assert_array_equal(np.load(out)["output"][0], want1)
        self.ok(*base, "--no-token-type", "-o", str(out))
        without = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:len(ids)]
        np.testing.assert_array_equal(np.load(out)["output"][0], without)
        doc = json.loads(self.ok(*base[:-2], "--format", "json").stdout)
        self.assertTrue(doc["config"]["token_type_embeddings"].endswith(":embeddings.token_type_embeddings.weight"))

    def test_segment_types_can_be_set(self):
        z = self.encode("--token-type-ids", "1,0")
        tt = z["token_type_ids"]
        first = z["input_ids"][0].tolist().index(3)  # [SEP] (id 3 in ALBERT's model) closes segment A
        self.assertTrue((tt[0, :first + 1] == 1).all())
        self.assertTrue((tt[0, first + 1:][z["attention_mask"][0, first + 1:] == 1] == 0).all())

    def test_refusals(self):
        self.fails(2, "give one per --text (1 --text, 2 --text-pair)", "encode", "--text", "a", "--text-pair", "b",
                   "--text-pair", "c")
        self.fails(2, "has no [CLS] piece", "encode", "--text", "a", "--text-pair", "b")
        self.fails(2, "--token-type-ids would be ignored", "encode", "--text", "a", "--token-type-ids", "1")
        self.fails(2, "token type 2", "encode", "--model", self.model, "--weights", str(self.weights), "--pe",
                   "learned", "--text", "a", "--token-type-ids", "2")
        self.fails(2, "two values", "encode", "--model", self.model, "--weights", str(self.weights), "--pe",
                   "learned", "--text", "a", "--text-pair", "b", "--token-type-ids", "1")
        self.fails(2, "leaves no room for [CLS] A [SEP] B [SEP]", "encode", "--model", self.model, "--text", "a",
                   "--text-pair", "b", "--seq-len", "2", "--emit", "input_ids")
        bert = ["encode", "--model", self.model, "--weights", str(self.weights), "--pe", "learned"]
        self.fails(2, "--token-type-ids gives 3 types for 2 sequences", *bert, "--text", "a", "--text", "b",
                   "--token-type-ids", "0,1,0")
        self.fails(2, "--token-type-ids and --no-token-type contradict", *bert, "--text", "a", "--token-type-ids",
                   "1", "--no-token-type")
        self.fails(2, "--no-token-type leaves out a token type table, and there is none", "encode", "--text", "a",
                   "--no-token-type")
        both = self.tmp / "both.safetensors"
        w = reference.bert_like_weights(30000, 8, 64, 2)
        write_safetensors(both, {"embeddings.word_embeddings.weight": ("F32", w["embeddings.word_embeddings.weight"]),
                                 "embeddings.token_type_embeddings.weight": ("F32", w["embeddings.token_type_embeddings.weight"]),
                                 "bert.embeddings.token_type_embeddings.weight": ("F32", w["embeddings.token_type_embeddings.weight"] * 2)})
        self.fails(1, "has several token type tables", "encode", "--model", self.model, "--weights", str(both),
                   "--text", "a")
        self.ok("encode", "--model", self.model, "--weights", str(both), "--text", "a", "--no-token-type")
        pieces = self.ok("tokenize", "--model", self.model, "--text", "Hello", "--text-pair", "you",
                         "--format", "pieces").stdout.decode().split()
        self.assertEqual((pieces[0], pieces[-1]), ("[CLS]", "[SEP]"))
        doc = json.loads(self.ok("tokenize", "--model", self.model, "--text", "Hello", "--text-pair", "you").stdout)
        self.assertEqual(doc["config"]["pairs"], "[CLS] A [SEP] B [SEP], token types 0 and 1")
        self.assertEqual(doc["token_type_ids"][0][-2:], [1, 1])


class FactorizedTests(CliCase):
    """issue 16: ALBERT's factorized embeddings, projected last (HF AlbertModel's order) or first, against
    HF's AlbertEmbeddings and nn.Linear (tests/golden/albert, tools/make_goldens.py); --factorize against
    README's NumPy recipe."""
    ALBERT = GOLDEN / "albert"

    def setUp(self):
        super().setUp()
        self.cases = json.loads((self.ALBERT / "cases.json").read_text())
        self.goldens = np.load(self.ALBERT / "goldens.npz")
        self.model = str(HERE.parent / self.cases["model"])
        self.w = reference.albert_like_weights(30000, self.cases["embedding_size"], self.cases["hidden_size"],
                                               self.cases["max_positions"], self.cases["types"])
        self.weights = self.tmp / "albert.safetensors"
        write_safetensors(self.weights, {k: ("F32", v) for k, v in self.w.items()})
        self.proj = "albert.encoder.embedding_hidden_mapping_in"

    def encode(self, *args, emit="input_ids,output"):
        out = self.tmp / "o.npz"
        # --quiet: these cases leave the checkpoint's positions and LayerNorm out on purpose.
        self.ok("encode", "--model", self.model, *args, "--quiet", "--emit", emit, "-o", str(out))
        return np.load(out)

    def test_albert_order_matches_albert_model(self):
        args = ["--weights", str(self.weights), "--pe", "learned", "--scale", "none", "--layernorm",
                "--layernorm-eps", "1e-12", "--projection-order", "albert"]
        for a, b in self.cases["pairs"]:
            args += ["--text", a, "--text-pair", b]
        z = self.encode(*args, emit="input_ids,token_type_ids,token_embeddings,positional_encoding,output")
        np.testing.assert_array_equal(z["input_ids"], self.goldens["albert_input_ids"])
        np.testing.assert_array_equal(z["token_type_ids"], self.goldens["albert_token_type_ids"])
        e, d = self.cases["embedding_size"], self.cases["hidden_size"]
        self.assertEqual(z["output"].shape, z["input_ids"].shape + (d,))
        self.assertEqual(z["token_embeddings"].shape, z["input_ids"].shape + (e,))
        self.assertEqual(z["positional_encoding"].shape[1], e)
        np.testing.assert_allclose(z["output"], self.goldens["albert_output"], rtol=0, atol=2e-6)
        self.assertGreater(np.abs(self.goldens["albert_output"]).max(), 1.0)  # a comparison that means something
        out = self.tmp / "c.json"
        self.ok("encode", "--model", self.model, *args, "--format", "json", "-o", str(out))
        config = json.loads(out.read_text())["config"]
        self.assertEqual(config["d_model"], d)
        self.assertEqual(config["projection"]["order"], "albert")
        self.assertEqual(config["projection"]["width"], e)
        self.assertTrue(config["projection"]["weight"].endswith(":" + self.proj + ".weight"))
        self.assertTrue(config["projection"]["bias"].endswith(":" + self.proj + ".bias"))

    def test_first_order_matches_linear_then_scale_and_pe(self):
        args = ["--weights", str(self.weights), "--no-token-type"]
        for t in self.cases["texts"]:
            args += ["--text", t]
        z = self.encode(*args)
        np.testing.assert_array_equal(z["input_ids"], self.goldens["first_input_ids"])
        np.testing.assert_allclose(z["output"], self.goldens["first_output"], rtol=1e-6, atol=2e-6)
        # lookup prints the projected rows, and the raw (vocab, E) ones with --no-projection
        ids = [0, 5, 29999]
        doc = json.loads(self.ok("lookup", "--weights", str(self.weights), "--ids", "0,5,29999", "--format",
                                 "json").stdout)
        table = self.w["albert.embeddings.word_embeddings.weight"].astype(np.float64)
        want = table[ids] @ self.w[self.proj + ".weight"].astype(np.float64).T + self.w[self.proj + ".bias"]
        np.testing.assert_allclose(np.array(doc["rows"], dtype=np.float32), want.astype(np.float32), rtol=1e-7,
                                   atol=1e-7)
        doc = json.loads(self.ok("lookup", "--weights", str(self.weights), "--ids", "5", "--no-projection",
                                 "--format", "json").stdout)
        np.testing.assert_array_equal(np.array(doc["rows"], dtype=np.float32)[0], table[5].astype(np.float32))

    def test_projection_may_be_named_and_transposed(self):
        """--projection names a (d, E) weight in another file, or its (E, d) transpose; same rows."""
        wt = self.w[self.proj + ".weight"]
        linear, transposed = self.tmp / "linear.safetensors", self.tmp / "t.npy"
        write_safetensors(linear, {"proj.weight": ("F32", wt), "proj.bias": ("F32", self.w[self.proj + ".bias"])})
        np.save(transposed, np.ascontiguousarray(wt.T))
        bare = self.tmp / "bare.safetensors"
        write_safetensors(bare, {"albert.embeddings.word_embeddings.weight":
                                 ("F32", self.w["albert.embeddings.word_embeddings.weight"])})
        found = self.encode("--weights", str(self.weights), "--no-token-type", "--text", "Hello")["output"]
        named = self.encode("--weights", str(bare), "--projection", f"{linear}:proj.weight", "--text", "Hello")
        np.testing.assert_array_equal(named["output"], found)
        t = self.encode("--weights", str(bare), "--projection", str(transposed), "--text", "Hello")["output"]
        np.testing.assert_allclose(t, found - self.w[self.proj + ".bias"] * np.float32(np.sqrt(10)), atol=1e-5)

    def test_electra_names_are_found(self):
        """ELECTRA keeps the same parts under electra.*, its projection as embeddings_project."""
        names = {"albert.embeddings.word_embeddings.weight": "electra.embeddings.word_embeddings.weight",
                 self.proj + ".weight": "electra.embeddings_project.weight",
                 self.proj + ".bias": "electra.embeddings_project.bias"}
        electra = self.tmp / "electra.safetensors"
        write_safetensors(electra, {names[k]: ("F32", self.w[k]) for k in names})
        z = self.encode("--weights", str(electra), "--text", "Hello")
        want = self.encode("--weights", str(self.weights), "--no-token-type", "--text", "Hello")
        np.testing.assert_array_equal(z["output"], want["output"])
        doc = json.loads(self.ok("encode", "--model", self.model, "--weights", str(electra), "--text", "Hello",
                                 "--quiet", "--format", "json").stdout)
        self.assertEqual(doc["config"]["projection"]["bias"], f"{electra}:electra.embeddings_project.bias")

    def test_factorize_matches_readme_recipe(self):
        rows = readme_factorized_rows()
        ids = [0, 1, 7999, 4242]
        for e, d, seed, init in ((4, 6, 0, "normal"), (1, 3, 7, "xavier-uniform"), (16, 9, 2**64 - 1, "normal")):
            with self.subTest(e=e, d=d, seed=seed, init=init):
                doc = json.loads(self.ok("lookup", "--ids", ",".join(map(str, ids)), "--factorize", str(e),
                                         "--d-model", str(d), "--seed", str(seed), "--init", init, "--format",
                                         "json").stdout)
                got = np.array(doc["rows"], dtype=np.float32)
                want = rows(ids, e, d, 8000, init, None, seed)
                # summed in float64 by both; the order may differ, so the last bit may too
                np.testing.assert_array_max_ulp(got, want, maxulp=1)
        z = np.load(self.encode_default("--factorize", "4", "--d-model", "6", "--projection-order", "albert",
                                        "--scale", "none", "--pe", "none"))
        e_rows = readme_init_table_rows()(z["input_ids"].reshape(-1), 4, 8000, "normal")
        bound = 1.0 / np.sqrt(4)
        w = readme_init_table_rows()(np.arange(8000, 8006), 4, 8000, "uniform", bound)
        b = readme_init_table_rows()([8006], 6, 8000, "uniform", bound)[0]
        want = (e_rows.astype(np.float64) @ w.T.astype(np.float64) + b).astype(np.float32)
        np.testing.assert_array_max_ulp(z["output"].reshape(-1, 6), want, maxulp=1)
        np.testing.assert_array_equal(z["token_embeddings"].reshape(-1, 4), e_rows)

    def encode_default(self, *args):
        out = self.tmp / "d.npz"
        self.ok("encode", "--text", "Hello world", *args, "--emit", "input_ids,token_embeddings,output", "-o",
                str(out))
        return out

    def test_info_reports_the_bytes_saved(self):
        text = self.ok("info", "--weights", str(self.weights)).stdout.decode()
        e, d = self.cases["embedding_size"], self.cases["hidden_size"]
        stored = 4 * (30000 * e + d * e + d)
        line = [l for l in text.splitlines() if l.startswith("factorized ")]
        self.assertEqual([l.split(None, 1)[1] for l in line],
                         [f"{stored} bytes for the (30000, {e}) table and the projection to {d}, against "
                          f"{4 * 30000 * d} for a (30000, {d}) table: 40.0% saved"])
        doc = json.loads(self.ok("info", "--weights", str(self.weights), "--format", "json").stdout)["weights"]
        self.assertEqual(doc["factorized"]["saved_bytes"], 4 * 30000 * d - stored)
        self.assertEqual(doc["factorized"]["bias"], self.proj + ".bias")
        plain = self.tmp / "plain.safetensors"
        write_safetensors(plain, {"embeddings.word_embeddings.weight": ("F32", self.w[
            "albert.embeddings.word_embeddings.weight"])})
        self.assertNotIn("factorized", self.ok("info", "--weights", str(plain)).stdout.decode())

    def test_refusals(self):
        w = ["--weights", str(self.weights)]
        out = self.tmp / "never.npz"
        self.fails(1, "add --projection-order albert, or --no-token-type", "encode", "--model", self.model, *w,
                   "--text", "a", "-o", str(out), output=out)
        self.fails(2, "--factorize generates a table and its projection, and --weights gives the table",
                   "encode", "--model", self.model, *w, "--factorize", "4", "--text", "a")
        self.fails(2, "--projection needs --weights", "encode", "--text", "a", "--projection", str(self.weights))
        for order in ("albert", "first"):  # refused, not ignored, without a projection
            self.fails(2, f"--projection-order {order} places a factorized table's projection, and there is none",
                       "encode", "--text", "a", "--projection-order", order)
        self.fails(2, "--no-projection leaves out a factorized table's projection, and there is none", "encode",
                   "--text", "a", "--no-projection")
        self.fails(2, "--factorize makes a projection and --no-projection leaves it out", "encode", "--text", "a",
                   "--factorize", "4", "--no-projection")
        self.fails(2, "--d-model 12 conflicts with", "encode", "--model", self.model, *w, "--no-token-type",
                   "--d-model", "12", "--text", "a")
        self.fails(2, "--factorize: expected", "encode", "--text", "a", "--factorize", "0")
        bad = self.tmp / "bad.npy"
        np.save(bad, np.zeros((5, 7), dtype=np.float32))
        self.fails(1, "a projection from them is (d_model, 6) as nn.Linear stores it, or (6, d_model)", "encode",
                   "--model", self.model, *w, "--projection", str(bad), "--no-token-type", "--text", "a")
        plain = self.tmp / "plain.safetensors"
        write_safetensors(plain, {"embeddings.word_embeddings.weight": ("F32", self.w[
            "albert.embeddings.word_embeddings.weight"])})
        self.fails(2, "--no-projection leaves out a factorized table's projection, and --weights holds none",
                   "encode", "--model", self.model, "--weights", str(plain), "--no-projection", "--text", "a")
        self.fails(2, "--projection and --no-projection contradict", "encode", "--model", self.model, "--weights",
                   str(plain), "--projection", str(self.weights), "--no-projection", "--text", "a")
        self.fails(2, "--projection-order and --no-projection contradict", "encode", "--model", self.model,
                   *w, "--projection-order", "albert", "--no-projection", "--text", "a")
        self.fails(1, f"{bad} F32 is 7 wide but ALBERT's order sums in the factorized table's width E = 6", "encode",
                   "--model", self.model, *w, "--projection-order", "albert", "--pe", "learned", "--pe-weights",
                   str(bad), "--text", "a")
        fifo = self.tmp / "fifo"
        os.mkfifo(fifo)  # opened for reading, a FIFO would wait for a writer: refused at once
        for flag in ("--weights", "--projection", "--pe-weights"):
            extra = [] if flag == "--weights" else ["--weights", str(plain)]
            self.fails(1, f"weight file {fifo} is not a regular file", "encode", "--model", self.model, *extra, flag,
                       str(fifo), "--text", "a", "--pe", "learned" if flag == "--pe-weights" else "sinusoidal")
        self.fails(1, f"weight file {fifo} is not a regular file", "info", "--weights", str(fifo))

    def test_quantize_says_the_projection_stays_behind(self):
        out = self.tmp / "q8.safetensors"
        text = self.ok("quantize", "--weights", str(self.weights), "-o", str(out)).stdout.decode()
        self.assertIn(f"the projection {self.weights}:{self.proj}.weight is not in the output", text)
        doc = json.loads(self.ok("quantize", "--weights", str(self.weights), "-o", str(out), "--format",
                                 "json").stdout)
        self.assertEqual(doc["projection_not_in_output"], f"{self.weights}:{self.proj}.weight")
        # and the note's command works: the int8 table with the float projection
        z = self.encode("--weights", str(out), "--projection", f"{self.weights}:{self.proj}.weight",
                        "--text", "Hello")
        self.assertEqual(z["output"].shape[-1], self.cases["hidden_size"])


class TiedWeightsTests(CliCase):
    """issue 16: info --weights says whether the input embedding and the output projection are one matrix."""

    def info(self, tensors):
        path = self.tmp / "w.safetensors"
        write_safetensors(path, tensors)
        return (self.ok("info", "--weights", str(path)).stdout.decode(),
                json.loads(self.ok("info", "--weights", str(path), "--format", "json").stdout)["weights"])

    def test_tied_untied_and_stored_once(self):
        emb = np.arange(24, dtype=np.float32).reshape(6, 4)
        text, doc = self.info({"model.embed_tokens.weight": ("F32", emb), "lm_head.weight": ("F32", emb.copy())})
        self.assertIn("tied          yes: lm_head.weight has the same bytes", text)
        self.assertEqual((doc["output_projections"], doc["tied"]), ([{"name": "lm_head.weight", "tied": True}], True))
        other = emb.copy()
        other[5, 3] += 1
        text, doc = self.info({"transformer.wte.weight": ("F32", emb), "lm_head.weight": ("F32", other)})
        self.assertIn("tied          no: lm_head.weight differs", text)
        self.assertEqual(doc["tied"], False)
        # The same values in another dtype are another tensor.
        text, doc = self.info({"model.embed_tokens.weight": ("F32", emb), "lm_head.weight": ("F16", emb.astype(np.float16))})
        self.assertEqual(doc["tied"], False)
        text, doc = self.info({"model.embed_tokens.weight": ("F32", emb)})
        self.assertIn("no output projection stored", text)
        self.assertEqual((doc["output_projections"], doc["tied"]), ([], None))
        text, doc = self.info({"cls.predictions.decoder.weight": ("F32", emb),
                               "bert.embeddings.word_embeddings.weight": ("F32", emb)})
        self.assertEqual((doc["output_projections"], doc["tied"]),
                         ([{"name": "cls.predictions.decoder.weight", "tied": True}], True))
        # Every projection present is compared, not only the first.
        text, doc = self.info({"model.embed_tokens.weight": ("F32", emb), "lm_head.weight": ("F32", other),
                               "output.weight": ("F32", emb.copy())})
        self.assertIn("tied          no: lm_head.weight differs; yes: output.weight has the same bytes", text)
        self.assertEqual(doc["tied"], True)


def read_safetensors(path):
    """A .safetensors file read with NumPy only: {name: array} and the metadata."""
    raw = pathlib.Path(path).read_bytes()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    meta = header.pop("__metadata__", {})
    kinds = {"F32": np.float32, "F16": np.float16, "I8": np.int8, "F64": np.float64, "I32": np.int32, "I64": np.int64}
    out = {}
    for name, e in header.items():
        b, end = e["data_offsets"]
        out[name] = np.frombuffer(raw[8 + n + b:8 + n + end], dtype=kinds[e["dtype"]]).reshape(e["shape"])
    return out, meta


WEIGHTS = GOLDEN / "weights"
WEIGHT_CASES = json.loads((WEIGHTS / "cases.json").read_text())


class WeightsTests(CliCase):
    def encode_case(self, args, *extra):
        out = self.tmp / "o.npz"
        args = [a if not a.startswith("weights/") else str(GOLDEN / a) for a in args]
        self.ok("encode", "--model", str(HERE.parent / WEIGHT_CASES["model"]), *text_args(WEIGHT_CASES["texts"]),
                *args, *extra, "--emit", "all", "-o", str(out))
        return np.load(out)

    def test_every_case_matches_pytorch(self):
        """F32/F16/BF16/F64 tables in .npy and .safetensors, BERT, RoBERTa/fairseq, BART — vs PyTorch."""
        goldens = np.load(WEIGHTS / "goldens.npz")
        for name, args in WEIGHT_CASES["cases"].items():
            with self.subTest(case=name):
                got = self.encode_case(args)
                if name != "roberta":
                    np.testing.assert_array_equal(got["input_ids"], np.array(WEIGHT_CASES["input_ids"]))
                np.testing.assert_allclose(got["output"], goldens[name], rtol=1e-5, atol=2e-6, err_msg=name)

    def test_d_model_comes_from_the_table(self):
        got = self.encode_case(["--weights", "weights/llama_f32.safetensors"])
        self.assertEqual(got["output"].shape[2], 16)
        self.fails(2, "--d-model 32 conflicts with", "encode", "--model", str(HERE / "models" / "sp-test.model"),
                   "--text", "hi", "--weights", str(WEIGHTS / "llama_f32.safetensors"), "--d-model", "32")

    def test_explicit_tensor_name_and_info(self):
        got = self.encode_case(["--weights", f"weights/llama_f32.safetensors:model.embed_tokens.weight"])
        self.assertEqual(got["output"].shape[2], 16)
        doc = json.loads(self.ok("info", "--weights", str(WEIGHTS / "bert.safetensors"), "--format", "json").stdout)
        names = {t["name"]: t for t in doc["weights"]["tensors"]}
        self.assertEqual(names["embeddings.word_embeddings.weight"]["shape"], [1000, 16])
        self.assertEqual(names["embeddings.LayerNorm.bias"]["dtype"], "F32")
        self.assertEqual(doc["weights"]["token_embedding"], "embeddings.word_embeddings.weight")
        text = self.ok("info", "--weights", str(WEIGHTS / "llama_bf16.safetensors")).stdout.decode()
        self.assertIn("model.embed_tokens.weight", text)
        self.assertIn("BF16", text)

    def test_padding_idx_keeps_a_loaded_row(self):
        # nn.Embedding applies padding_idx only at init: the stored row is what the model uses.
        got = self.encode_case(["--weights", "weights/table_f32.npy", "--padding-idx", "0", "--scale", "none"])
        pad = got["input_ids"] == 0
        table = np.load(WEIGHTS / "table_f32.npy")
        self.assertTrue(pad.any())
        self.assertTrue(np.abs(table[0]).sum() > 0)
        np.testing.assert_array_equal(got["token_embeddings"][pad], np.broadcast_to(table[0], (pad.sum(), table.shape[1])))

    def test_pe_none_adds_nothing(self):
        got = self.encode_case(["--weights", "weights/table_f32.npy", "--pe", "none"])
        np.testing.assert_array_equal(got["output"], got["token_embeddings"])

    def test_output_dtypes(self):
        base = ["encode", "--model", str(HERE / "models" / "sp-test.model"), "--text", "Hello world.",
                "--weights", str(WEIGHTS / "table_f32.npy")]
        self.ok(*base, "-o", str(self.tmp / "f32.npy"))
        self.ok(*base, "--dtype", "f16", "-o", str(self.tmp / "f16.npy"))
        f32, f16 = np.load(self.tmp / "f32.npy"), np.load(self.tmp / "f16.npy")
        self.assertEqual(f16.dtype, np.float16)
        np.testing.assert_array_equal(f16, f32.astype(np.float16))
        doc = json.loads(self.ok(*base, "--dtype", "bf16").stdout)
        self.assertEqual(doc["dtypes"]["output"], "bfloat16")
        # Round to bfloat16 (nearest, ties to even) with integer arithmetic: no torch here.
        bits = f32.view(np.uint32).astype(np.uint64)
        rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16).astype(np.uint32).view(np.float32)
        np.testing.assert_array_equal(np.array(doc["output"], dtype=np.float32), rounded)
        self.fails(2, "NumPy has no bfloat16", *base, "--dtype", "bf16", "-o", str(self.tmp / "b.npy"),
                   output=self.tmp / "b.npy")

    def test_quantize_pretrained_takes_the_models_table_and_scale(self):
        # Issue 31: the report assumed √d ("embedding x 5.65685") for any checkpoint. With --pretrained the
        # scale is the model's own: none for LLaMA and XLM-R, Gemma's √hidden_size rounded to bfloat16
        # (its torch_dtype), as HF's GemmaModel computes its normalizer.
        hf = HERE / "models" / "hf_layer"
        root = int(np.array([np.sqrt(24.0)], np.float32).view(np.uint32)[0])  # bfloat16: nearest, ties to even
        gemma = float(np.array([(root + 0x7FFF + ((root >> 16) & 1)) >> 16 << 16], np.uint32).view(np.float32)[0])
        for d, scale in (("llama-openllama-3b-subst-mistralv1", 1.0), ("xlm-roberta-base-subst-hfsample", 1.0),
                         ("gemma-h24", gemma)):
            with self.subTest(model=d):
                q = self.tmp / f"{d}.safetensors"
                doc = json.loads(self.ok("quantize", "--pretrained", str(hf / d), "-o", str(q), "--format",
                                         "json").stdout)
                self.assertEqual(doc["output_scale"], scale)
                self.assertIn(doc["tensor"], read_safetensors(q)[0])  # the model's token embedding, quantized
                self.assertLess(abs(doc["max_abs_output_error"] - doc["max_abs_error"] * scale),
                                1e-5 * doc["max_abs_output_error"])
                # --scale given overrides the model's
                doc = json.loads(self.ok("quantize", "--pretrained", str(hf / d), "--scale", "sqrt", "-o",
                                         str(self.tmp / "s.safetensors"), "--format", "json").stdout)
                self.assertAlmostEqual(doc["output_scale"], np.sqrt(np.float32(read_safetensors(q)[0][
                    doc["tensor"]].shape[1])), places=5)
        self.fails(2, "quantize needs --weights PATH[:TENSOR] or --pretrained DIR", "quantize", "-o",
                   str(self.tmp / "none.safetensors"), output=self.tmp / "none.safetensors")

    def test_quantize_then_encode(self):
        q = self.tmp / "q.safetensors"
        report = json.loads(self.ok("quantize", "--weights", str(WEIGHTS / "llama_f32.safetensors"), "-o", str(q),
                                    "--format", "json").stdout)
        tensors, meta = read_safetensors(q)
        self.assertEqual(meta["format"], "embedpe-int8")
        table = read_safetensors(WEIGHTS / "llama_f32.safetensors")[0]["model.embed_tokens.weight"]
        # NumPy reference of the documented scheme.
        scale = (np.abs(table).max(axis=1) / np.float32(127)).astype(np.float32)
        want_q = np.clip(np.rint(table / scale[:, None]), -127, 127).astype(np.int8)
        np.testing.assert_array_equal(tensors["model.embed_tokens.weight.scale"], scale)
        np.testing.assert_array_equal(tensors["model.embed_tokens.weight"], want_q)
        recon = want_q.astype(np.float32) * scale[:, None]
        err = np.abs(recon.astype(np.float64) - table)
        self.assertAlmostEqual(report["max_abs_error"], err.max(), places=9)
        self.assertAlmostEqual(report["mean_abs_error"], err.mean(), places=9)
        self.assertEqual(report["input_bytes"], table.nbytes)
        self.assertEqual(report["output_bytes"], q.stat().st_size)
        self.assertAlmostEqual(report["saved_percent"], 100 * (1 - q.stat().st_size / table.nbytes), places=9)
        self.assertLess(q.stat().st_size, table.nbytes * 0.35)  # int8 + one float per 16-wide row

        got = self.encode_case(["--weights", str(q)])
        ids = np.array(WEIGHT_CASES["input_ids"])
        pe = reference.sinusoidal_pe64(np.arange(ids.shape[1]), 16).astype(np.float32)
        want = (recon[ids] * np.float32(4.0)).astype(np.float32) + pe
        np.testing.assert_array_equal(got["output"], want)
        lookup = json.loads(self.ok("lookup", "--ids", "5,7", "--weights", str(q), "--format", "json").stdout)
        np.testing.assert_array_equal(np.array(lookup["rows"], dtype=np.float32), recon[[5, 7]])

    def test_lookup_is_the_table_row(self):
        """nn.Embedding(ids) == lookup_table[ids]."""
        table = np.load(WEIGHTS / "table_f32.npy")
        doc = json.loads(self.ok("lookup", "--ids", "2,5,1023", "--weights", str(WEIGHTS / "table_f32.npy"),
                                 "--model", str(HERE / "models" / "sp-test.model"), "--format", "json").stdout)
        np.testing.assert_array_equal(np.array(doc["rows"], dtype=np.float32), table[[2, 5, 1023]])
        text = self.ok("lookup", "--ids", "1", "--d-model", "3").stdout.decode()
        row = reference.random_normal_rows([1], 3, 0)[0]
        # Tab-separated: id, piece, then one column per dim.
        self.assertEqual([np.float32(v) for v in text.splitlines()[1].split("\t")[2:]], list(row))
        self.fails(2, "outside the table", "lookup", "--ids", "9000", "--d-model", "3")


GGUF = GOLDEN / "gguf"
GGUF_TYPES = json.loads((GGUF / "manifest.json").read_text())["types"]
# Bits per weight of ggml's types, from their block layouts (ggml-common.h): bytes × 8 / elements.
GGUF_BITS = {"f32": 32, "f16": 16, "bf16": 16, "q8_0": 34 * 8 / 32, "q4_0": 18 * 8 / 32, "q4_1": 20 * 8 / 32,
             "q5_0": 22 * 8 / 32, "q5_1": 24 * 8 / 32, "q2_K": 84 * 8 / 256, "q3_K": 110 * 8 / 256,
             "q4_K": 144 * 8 / 256, "q5_K": 176 * 8 / 256, "q6_K": 210 * 8 / 256}


class GgufQuantizeTests(CliCase):
    """quantize --type TYPE against ggml's own results (tests/golden/gguf, tools/make_gguf_goldens.py)."""

    def setUp(self):
        super().setUp()
        inputs = np.load(GGUF / "inputs.npy")  # (rows, 256)
        deq = {t["name"]: np.load(GGUF / f"{t['name']}.dequantized.npy") for t in GGUF_TYPES}
        # The rows that are finite and that every type dequantizes to finite values.
        keep = [r for r in range(len(inputs))
                if np.isfinite(inputs[r]).all() and all(np.isfinite(d[r]).all() for d in deq.values())]
        self.assertGreaterEqual(len(keep), 15)
        self.table = inputs[keep]
        self.deq = {name: d[keep] for name, d in deq.items()}
        self.path = self.tmp / "table.npy"
        np.save(self.path, self.table)

    def close(self, got, want):
        self.assertTrue(math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-300), f"{got} != {want}")

    def test_every_type_reports_ggmls_error_and_writes_its_dequantized_table(self):
        x = self.table.astype(np.float64)
        for t in GGUF_TYPES:
            name = t["name"]
            with self.subTest(type=name):
                out = self.tmp / f"{name}.safetensors"
                doc = json.loads(self.ok("quantize", "--weights", str(self.path), "--type", name.upper(), "-o",
                                         str(out), "--scale", "2", "--format", "json").stdout)
                tensors, meta = read_safetensors(out)
                self.assertEqual(meta["format"], "embedpe-dequantized")
                self.assertEqual(meta["ggml_type"], name)
                got = tensors["weight"]
                np.testing.assert_array_equal(got.view(np.uint32), self.deq[name].view(np.uint32))
                # Exactly this type's rows, no other's: a wrong name → type mapping fails here.
                self.assertEqual([o for o in self.deq if np.array_equal(got, self.deq[o])], [name])
                err = np.abs(self.deq[name].astype(np.float64) - x)
                self.assertEqual(doc["type"], name)
                self.assertEqual(doc["bits_per_weight"], GGUF_BITS[name])
                self.assertEqual(doc["block_elems"], t["block_elems"])
                self.assertEqual(doc["quantized_bytes"], len(x) * 256 // t["block_elems"] * t["block_bytes"])
                self.assertEqual(doc["input_bytes"], self.table.nbytes)
                self.assertEqual(doc["output_bytes"], out.stat().st_size)
                self.close(doc["max_abs_error"], err.max())
                self.close(doc["mean_abs_error"], err.mean())
                self.close(doc["rms_error"], math.sqrt((err ** 2).mean()))
                self.close(doc["relative_rms_error"], math.sqrt((err ** 2).sum() / (x ** 2).sum()))
                self.assertEqual(doc["worst_row"], int(err.max(axis=1).argmax()))
                self.close(doc["worst_row_max_abs_error"], err.max(axis=1).max())
                self.close(doc["max_abs_output_error"], 2 * err.max())
                self.close(doc["mean_abs_output_error"], 2 * err.mean())
        self.assertEqual(doc["type"], "q6_K")  # the loop ran to the end

    def test_report_without_output(self):
        text = self.ok("quantize", "--weights", str(self.path), "--type", "q4_k").stdout.decode()
        err = np.abs(self.deq["q4_K"].astype(np.float64) - self.table)
        self.assertIn("ggml q4_K (blocks of 256, 4.5 bits per weight), %d x 256" % len(self.table), text)
        self.assertIn("max abs error %.3g" % err.max(), text)
        self.assertIn("worst row      %d " % err.max(axis=1).argmax(), text)
        self.assertEqual(list(self.tmp.iterdir()), [self.path])
        doc = json.loads(self.ok("quantize", "--weights", str(self.path), "--type", "q8_0", "--format",
                                 "json").stdout)
        self.assertIsNone(doc["output"])
        self.assertEqual(doc["output_bytes"], 0)
        self.assertEqual(doc["non_finite_values"], 0)

    def test_values_ggml_dequantizes_to_inf_or_nan_are_counted(self):
        """Scales beyond float16 (rows of ±1e30, 1e5): ggml dequantizes to inf/NaN; the report says how many."""
        inputs = np.load(GGUF / "inputs.npy")
        rows = [r for r in range(len(inputs)) if np.isfinite(inputs[r]).all()]
        path = self.tmp / "all.npy"
        np.save(path, inputs[rows])
        for name in ("q4_0", "f16", "q4_K"):
            with self.subTest(type=name):
                deq = np.load(GGUF / f"{name}.dequantized.npy")[rows]
                want = int((~np.isfinite(deq)).sum())
                self.assertGreater(want, 0)
                doc = json.loads(self.ok("quantize", "--weights", str(path), "--type", name, "--format",
                                         "json").stdout)
                self.assertEqual(doc["non_finite_values"], want)
                self.assertIsNone(doc["max_abs_error"])  # infinite: JSON has no infinity
                self.assertEqual(doc["worst_row"], int((~np.isfinite(deq)).any(axis=1).argmax()))
                text = self.ok("quantize", "--weights", str(path), "--type", name).stdout.decode()
                self.assertIn(f"non-finite     {want} values dequantize to infinity or NaN", text)

    def test_refusals(self):
        odd = self.tmp / "d100.npy"
        np.save(odd, np.ones((3, 100), dtype=np.float32))
        out = self.tmp / "o.safetensors"
        self.fails(2, "--type q4_K stores rows in blocks of 256 values, and the rows of", "quantize", "--weights",
                   str(odd), "--type", "q4_k", "-o", str(out), output=out)
        self.fails(2, "--type q8_0 stores rows in blocks of 32 values", "quantize", "--weights", str(odd),
                   "--type", "Q8_0", output=out)
        self.fails(2, "--type iq2_xxs is not one embedpe quantizes; choose int8 or one of f32, f16", "quantize",
                   "--weights", str(self.path), "--type", "iq2_xxs", "-o", str(out), output=out)
        self.fails(2, "--type q4 is not one embedpe quantizes", "quantize", "--weights", str(self.path), "--type",
                   "q4")
        bad = self.table.copy()
        bad[3, 7] = np.nan
        np.save(self.tmp / "nan.npy", bad)
        self.fails(1, "row 3 holds NaN or infinity", "quantize", "--weights", str(self.tmp / "nan.npy"), "--type",
                   "q4_0", "-o", str(out), output=out)
        self.fails(2, "quantize needs --output OUT.safetensors for int8", "quantize", "--weights", str(self.path))


def readme_default_table_rows():
    """The NumPy recipe for the default table, run as README.md prints it."""
    readme = (HERE.parent / "README.md").read_text()
    code = re.search(r"```python\n(import math\nimport numpy as np\n\ndef default_table_rows\(.*?)```", readme, re.S)
    assert code, "README.md has no default_table_rows recipe"
    scope = {}
    exec(code.group(1), scope)  # noqa: S102  (our own README)
    return scope["default_table_rows"]


def readme_init_table_rows():
    """README's --init recipe, run as written (after default_table_rows, which it calls)."""
    readme = (HERE.parent / "README.md").read_text()
    code = re.search(r"```python\n(def init_table_rows\(.*?)```", readme, re.S)
    assert code, "README.md has no init_table_rows recipe"
    scope = {"default_table_rows": readme_default_table_rows(), "np": np}
    exec(code.group(1), scope)
    return scope["init_table_rows"]


def readme_factorized_rows():
    """README's --factorize recipe, run as written (after init_table_rows, which it calls)."""
    readme = (HERE.parent / "README.md").read_text()
    code = re.search(r"```python\n(def factorized_rows\(.*?)```", readme, re.S)
    assert code, "README.md has no factorized_rows recipe"
    scope = {"init_table_rows": readme_init_table_rows(), "np": np}
    exec(code.group(1), scope)  # noqa: S102  (our own README)
    return scope["factorized_rows"]


class InitTests(CliCase):
    """issue 16: --init schemes of the generated table, as README's NumPy recipe computes them."""

    def lookup(self, ids, d, *args):
        doc = json.loads(self.ok("lookup", "--ids", ",".join(map(str, ids)), "--d-model", str(d), *args,
                                 "--format", "json").stdout)
        return np.array(doc["rows"], dtype=np.float32), doc["table"]

    def test_readme_recipe_gives_every_scheme_bit_for_bit(self):
        rows = readme_init_table_rows()
        ids = [0, 1, 2, 7999, 4242]
        for init, extra in (("normal", []), ("scaled-normal", []), ("xavier-uniform", []),
                            ("uniform", ["--init-range", "0.02"])):
            for d, seed in ((1, 0), (9, 5), (130, 2**64 - 1)):
                with self.subTest(init=init, d=d, seed=seed):
                    got, name = self.lookup(ids, d, "--init", init, "--seed", str(seed), *extra)
                    want = rows(ids, d, 8000, init, 0.02 if extra else None, seed)
                    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
                    if init != "normal":
                        self.assertIn(f"init={init}", name)

    def test_schemes_have_their_distributions(self):
        ids, d = list(range(0, 8000, 7)), 64  # 1143 rows x 64
        normal, _ = self.lookup(ids, d)
        scaled, name = self.lookup(ids, d, "--init", "scaled-normal")
        self.assertIn("std=1/sqrt(64)", name)
        np.testing.assert_allclose(scaled, (normal.astype(np.float64) / 8).astype(np.float32), rtol=0, atol=0)
        self.assertAlmostEqual(float(scaled.std()), 1 / 8, delta=0.005)
        xavier, name = self.lookup(ids, d, "--init", "xavier-uniform")
        bound = np.sqrt(6.0 / (8000 + 64))  # torch.nn.init.xavier_uniform_ on a (8000, 64) weight
        self.assertIn("%.9g" % bound, name)
        self.assertLessEqual(float(np.abs(xavier).max()), bound)
        self.assertGreater(float(np.abs(xavier).max()), 0.99 * bound)
        self.assertAlmostEqual(float(xavier.std()), bound / np.sqrt(3), delta=0.01 * bound)
        uniform, _ = self.lookup(ids, d, "--init", "uniform", "--init-range", "3")
        self.assertLessEqual(float(np.abs(uniform).max()), 3)
        self.assertAlmostEqual(float(uniform.mean()), 0, delta=0.05)

    def test_encode_uses_the_scheme_and_records_it(self):
        out = self.tmp / "o.npz"
        self.ok("encode", "--text", "Hello world", "--d-model", "16", "--init", "xavier-uniform", "--scale", "none",
                "--emit", "input_ids,token_embeddings", "-o", str(out))
        z = np.load(out)
        want = readme_init_table_rows()(z["input_ids"].reshape(-1), 16, 8000, "xavier-uniform").reshape(
            z["input_ids"].shape + (16,))
        np.testing.assert_array_equal(z["token_embeddings"], want)
        doc = json.loads(self.ok("encode", "--text", "hi", "--d-model", "4", "--init", "uniform", "--init-range",
                                 "0.5", "--format", "json").stdout)
        self.assertEqual(doc["config"]["embedding"],
                         "random-uniform(init=uniform, bound=0.5, seed=0, generator=splitmix64-uniform/1)")

    def test_refusals(self):
        self.fails(2, "--init uniform needs --init-range R", "encode", "--text", "hi", "--init", "uniform")
        self.fails(2, "--init-range: expected a number from 1e-30", "encode", "--text", "hi", "--init", "uniform",
                   "--init-range", "1e-50")
        self.fails(2, "add --init uniform, or drop --init-range", "encode", "--text", "hi", "--init-range", "1")
        self.fails(2, "add --init uniform", "lookup", "--ids", "1", "--init", "normal", "--init-range", "1")
        self.fails(2, "--init-range", "encode", "--text", "hi", "--init", "uniform", "--init-range", "-1")
        npy = self.tmp / "w.npy"
        np.save(npy, np.zeros((8000, 4), dtype=np.float32))
        self.fails(2, "drop --init", "encode", "--text", "hi", "--weights", str(npy), "--init", "xavier-uniform")
        self.fails(2, "must be one of normal|scaled-normal|xavier-uniform|uniform", "encode", "--text", "hi",
                   "--init", "kaiming")


def normal_cdf(x):
    """The standard normal distribution function, elementwise (math.erf; NumPy has no erf)."""
    return 0.5 * (1.0 + np.frompyfunc(math.erf, 1, 1)(np.asarray(x, dtype=np.float64) / math.sqrt(2.0)).astype(
        np.float64))


class DefaultTableTests(CliCase):
    """The default N(0,1) table (generator splitmix64+box-muller-f32/3) is what README's NumPy recipe computes.

    reference.random_normal_rows and README's recipe are our own NumPy ports of our own generator: equal bits
    show that the program computes what they do, not that it is N(0,1). test_the_table_is_standard_normal
    anchors the values to the normal distribution itself."""

    def test_the_table_is_standard_normal(self):
        # The default table's 8000 rows at d_model 64 (512,000 values, seed 0,
        # so the result never changes from run to run) against N(0,1): mean,
        # variance, correlation of neighbouring values (within a row and
        # between rows) and the Kolmogorov-Smirnov distance. Each bound is
        # one a truly N(0,1) i.i.d. sample exceeds with probability below
        # 1e-6 (5 standard deviations: 5.7e-7 each; KS: P(sqrt(n) D > 2.69)
        # ~ 2 exp(-2 * 2.69^2) = 1e-6), so together they fail a correct
        # generator for fewer than 1 seed in 200,000.
        vocab, d = 8000, 64
        doc = json.loads(self.ok("lookup", "--ids", ",".join(map(str, range(vocab))), "--d-model", str(d),
                                 "--format", "json").stdout)
        table = np.array(doc["rows"], dtype=np.float64)
        self.assertEqual(table.shape, (vocab, d))
        x = table.reshape(-1)
        n = x.size
        self.assertLess(abs(x.mean()), 5 / math.sqrt(n))
        self.assertLess(abs(x.var() - 1.0), 5 * math.sqrt(2.0 / n))
        for name, a, b in (("along a row", table[:, :-1], table[:, 1:]), ("between rows", table[:-1], table[1:])):
            r = float(np.mean(a * b))  # E[XY] = 0 for independent N(0,1); sd 1/sqrt(count)
            self.assertLess(abs(r), 5 / math.sqrt(a.size), f"correlation {name}: {r}")
        s = np.sort(x)
        cdf = normal_cdf(s)
        i = np.arange(1, n + 1)
        ks = max(float(np.max(i / n - cdf)), float(np.max(cdf - (i - 1) / n)))
        self.assertLess(math.sqrt(n) * ks, 2.69, f"Kolmogorov-Smirnov distance {ks}")
        # Tails: the share beyond 3 sigma (0.27%) within 5 binomial standard deviations.
        p3 = 2 * (1 - normal_cdf([3.0])[0])
        self.assertLess(abs(np.mean(np.abs(x) > 3) - p3), 5 * math.sqrt(p3 * (1 - p3) / n))

    def test_readme_recipe_gives_the_rows_bit_for_bit(self):
        rows = readme_default_table_rows()
        ids = [0, 1, 2, 3, 7999, 4242]
        for d, seed in ((1, 0), (9, 5), (129, 0), (512, 2**64 - 1)):
            doc = json.loads(self.ok("lookup", "--ids", ",".join(map(str, ids)), "--d-model", str(d),
                                     "--seed", str(seed), "--format", "json").stdout)
            got = np.array(doc["rows"], dtype=np.float32)
            want = rows(ids, d, seed)
            self.assertEqual(got.shape, (len(ids), d))
            np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32), f"d_model {d}, seed {seed}")
            np.testing.assert_array_equal(want, reference.random_normal_rows(ids, d, seed))

    def test_encode_uses_the_recipe_rows_and_names_the_generator(self):
        out = self.tmp / "o.npz"
        self.ok("encode", *text_args(GOLDEN_TEXTS), "--d-model", "130", "--seed", "9", "--scale", "none",
                "--emit", "input_ids,token_embeddings", "-o", str(out))
        got = np.load(out)
        ids = got["input_ids"]
        want = readme_default_table_rows()(ids.reshape(-1), 130, 9).reshape(ids.shape + (130,))
        np.testing.assert_array_equal(got["token_embeddings"], want)
        doc = json.loads(self.ok("encode", "--text", "hi", "--d-model", "4", "--seed", "9", "--format", "json").stdout)
        self.assertEqual(doc["config"]["embedding"], "random-normal(seed=9, generator=splitmix64+box-muller-f32/3)")

    def test_recipe_values_are_box_muller_within_4_ulps(self):
        """The float32 polynomials stand in for libm: within 4 float32 ulps of Box-Muller computed in float64
        (NumPy's log, cos and sin) on the same uniforms, and at least half of the values are that float64 result
        correctly rounded."""
        ids, d, seed = np.arange(500), 512, 0
        got = readme_default_table_rows()(ids, d, seed)
        u1, u2 = reference.normal_uniforms(ids, d, seed)
        r, theta = np.sqrt(-2.0 * np.log(u1)), 2.0 * np.pi * u2
        exact = np.stack([r * np.cos(theta), r * np.sin(theta)], axis=-1).reshape(len(ids), d)
        ulp = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
        err = np.abs(got.astype(np.float64) - exact)
        self.assertLessEqual(float(np.max(err / np.maximum(ulp, np.spacing(np.float32(1e-7))))), 4.0)
        self.assertLess(float(np.max(err)), 5e-7)
        self.assertGreater(float(np.mean(got == exact.astype(np.float32))), 0.5)
        self.assertLessEqual(float(np.max(np.abs(got))), math.sqrt(48 * math.log(2)))


class BadWeightsTests(CliCase):
    """Every malformed weight file is one clear line, exit 1 (or 2 for a usage mistake), no output."""

    def check(self, status, message, data=None, spec=None, extra=(), name="w.safetensors"):
        path = self.tmp / name
        if data is not None:
            path.write_bytes(data)
        out = self.tmp / "o.npz"
        self.fails(status, message, "encode", "--model", str(HERE / "models" / "sp-test.model"), "--text", "hi",
                   "--weights", spec or str(path), *extra, "-o", str(out), output=out)

    @staticmethod
    def st(header, data=b"", length=None):
        text = json.dumps(header).encode()
        return (len(text) if length is None else length).to_bytes(8, "little") + text + data

    def test_safetensors_matrix(self):
        good = (WEIGHTS / "llama_f32.safetensors").read_bytes()
        f32 = lambda shape, a, b: {"dtype": "F32", "shape": shape, "data_offsets": [a, b]}  # noqa: E731
        cases = [
            ("truncated", "outside", good[:len(good) // 2]),
            ("absurd header length", "header length", self.st({}, length=1 << 60)),
            ("header longer than file", "header length", self.st({}, length=10_000)),
            ("bad JSON", "not a JSON object", b"\x10\0\0\0\0\0\0\0{not json at all"),
            ("header lies about the shape", "need 64000 bytes",
             self.st({"weight": f32([1000, 16], 0, 400)}, b"\0" * 400)),
            ("offsets out of bounds", "outside", self.st({"weight": f32([1000, 16], 0, 64000)}, b"\0" * 10)),
            ("overlapping offsets", "overlap", self.st({"weight": f32([1000, 16], 0, 64000),
                                                        "x": f32([4], 8, 24)}, b"\0" * 64000)),
            ("unsupported dtype", "dtype I32", self.st({"weight": {"dtype": "I32", "shape": [1000, 16],
                                                                   "data_offsets": [0, 64000]}}, b"\0" * 64000)),
            ("complex dtype", "dtype C64", self.st({"weight": {"dtype": "C64", "shape": [1000, 16],
                                                               "data_offsets": [0, 128000]}}, b"\0" * 128000)),
            ("missing fields", "needs dtype, shape", self.st({"weight": {"dtype": "F32"}})),
            ("wrong ndim", "dimensions", self.st({"weight": f32([16000], 0, 64000)}, b"\0" * 64000)),
            ("fewer rows than the vocabulary", "has 10 rows but the model", self.st({"weight": f32([10, 16], 0, 640)},
                                                                                     b"\0" * 640)),
            ("no usual name", "no tensor with a usual token embedding name", self.st({"foo": f32([1000, 16], 0, 64000)},
                                                                                  b"\0" * 64000)),
            ("several usual names", "several token embedding tables",
             self.st({"shared.weight": f32([1000, 16], 0, 64000), "wte.weight": f32([1000, 16], 64000, 128000)},
                     b"\0" * 128000)),
            ("empty file", "is empty", b""),
            ("not a weight file", "neither a .npy nor a .safetensors", b"hello, this is text"),
        ]
        for label, message, data in cases:
            with self.subTest(label):
                status = 2 if label.startswith(("no usual", "several")) else 1
                self.check(status, message, data)

    def test_tensor_not_found_lists_candidates(self):
        err = self.fails(1, "has no tensor 'nope'", "encode", "--model", str(HERE / "models" / "sp-test.model"),
                         "--text", "hi", "--weights", str(WEIGHTS / "llama_f32.safetensors") + ":nope")
        self.assertIn("lm_head.weight (8, 16) F32", err)

    def test_npy_matrix(self):
        import io as _io

        def npy(arr, **kw):
            buf = _io.BytesIO()
            np.save(buf, arr, **kw)
            return buf.getvalue()

        table = np.zeros((1000, 16), dtype=np.float32)
        good = npy(table)
        cases = [
            ("truncated", "truncated", good[:-100]),
            ("header lies about the shape", "the header says shape (1000, 16)", good + b"\0" * 64),
            ("big-endian", "big-endian", npy(table.astype(">f4"))),
            ("Fortran order", "Fortran-ordered", npy(np.asfortranarray(table))),
            ("int dtype", "dtype <i4", npy(table.astype(np.int32))),
            ("complex dtype", "dtype <c8", npy(table.astype(np.complex64))),
            ("object dtype", "not supported", npy(np.array([[None]] * 4, dtype=object), allow_pickle=True)),
            ("wrong ndim", "dimensions", npy(np.zeros(16000, dtype=np.float32))),
        ]
        for label, message, data in cases:
            with self.subTest(label):
                self.check(1, message, data, name="w.npy")
        self.check(2, "holding one array", good, spec=str(self.tmp / "w.npy") + ":weight", name="w.npy")


PE_CASES = json.loads((GOLDEN / "pe" / "cases.json").read_text())


def decode_png(data):
    """Our PNGs (8-bit RGB, filter 0, one or more IDAT chunks), decoded with zlib: (width, height, pixels)."""
    import struct
    import zlib
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "PNG signature"
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        crc = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0]
        assert zlib.crc32(kind + body) == crc, f"CRC of {kind}"
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert (depth, colour) == (8, 2), "8-bit RGB"
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    rows = np.frombuffer(raw, dtype=np.uint8).reshape(height, 1 + 3 * width)
    assert (rows[:, 0] == 0).all(), "filter type 0"
    return width, height, rows[:, 1:].reshape(height, width, 3)


class PeTests(CliCase):
    def run_pe(self, args, fmt):
        out = self.tmp / f"pe.{fmt}"
        self.ok("pe", *args, "--format", fmt, "-o", str(out))
        return np.load(out) if fmt in ("npy", "npz") else out.read_bytes()

    def test_every_convention_matches_its_framework(self):
        """paper, Marian, fairseq, t2t/fairseq float64, interpolation, base, offset, RoPE scalings, ALiBi."""
        goldens = np.load(GOLDEN / "pe" / "goldens.npz")
        for name, case in PE_CASES.items():
            with self.subTest(case=name):
                want = goldens[name]
                if name.startswith("rope_"):
                    got = self.run_pe(case["args"], "npz")[name.rsplit("_", 1)[1] if not name.endswith("inv_freq")
                                                           else "inv_freq"]
                elif name.startswith("alibi_"):
                    got = self.run_pe(case["args"] + ["--max-len", "4"], "npz")["slopes"]
                else:
                    got = self.run_pe(case["args"], "npy")
                self.assertEqual(got.shape, want.shape)
                if case["atol"] == 0:  # float64 values rounded to float32
                    np.testing.assert_allclose(got, want, rtol=1.2e-7, atol=0)
                else:
                    np.testing.assert_allclose(got, want, rtol=0, atol=case["atol"])

    def test_table_has_fast_low_dimensions(self):
        text = self.ok("pe", "--d-model", "512", "--positions", "49:50", "--dims", "0:4").stdout.decode()
        last = text.strip().splitlines()[-1].split()
        want = ["%.2f" % v for v in reference.sinusoidal_pe64([49], 512)[0, :4]]
        self.assertEqual(last, ["49"] + want)
        self.assertEqual(want[:2], ["-0.95", "0.30"])  # sin(49), cos(49): dimension 0 is the fastest (Vaswani et al. 2017 §3.5)

    def test_formats_agree(self):
        args = ["--d-model", "7", "--positions", "100:110"]
        npy = self.run_pe(args, "npy")
        doc = json.loads(self.run_pe(args, "json"))
        csv = self.run_pe(args, "csv").decode().splitlines()
        np.testing.assert_array_equal(np.array(doc["positional_encoding"], dtype=np.float32), npy)
        self.assertEqual(csv[0], "position,dim0,dim1,dim2,dim3,dim4,dim5,dim6")
        self.assertEqual(csv[1].split(",")[0], "100")
        np.testing.assert_array_equal(np.array([r.split(",")[1:] for r in csv[1:]], dtype=np.float32), npy)
        np.testing.assert_array_equal(npy, reference.sinusoidal_pe64(range(100, 110), 7).astype(np.float32))

    def test_png_heatmap_decodes(self):
        data = self.run_pe(["--d-model", "4", "--max-len", "4"], "png")
        width, height, pixels = decode_png(data)
        self.assertGreaterEqual(width, 4 * 24)
        self.assertGreaterEqual(height, 4 * 24)
        dark_red = (pixels == [178, 24, 43]).all(axis=2).sum()   # value +1 = the range's maximum
        self.assertGreaterEqual(dark_red, 24 * 24)               # at least one whole 24-pixel cell
        blueish = ((pixels[:, :, 2].astype(int) - pixels[:, :, 0]) > 60).sum()
        self.assertGreater(blueish, 24 * 24)                     # negative values (cos 2, cos 3) are blue
        sim = decode_png(self.run_pe(["--d-model", "32", "--max-len", "20", "--similarity"], "png"))
        self.assertGreater(sim[0], 20 * 20)

    # --- issue 13: pictures people read at a glance ---
    @staticmethod
    def png_title(data):
        """The PNG's tEXt Title."""
        import struct
        pos = 8
        while pos < len(data):
            n, kind = struct.unpack(">I4s", data[pos:pos + 8])
            if kind == b"tEXt":
                key, _, text = data[pos + 8:pos + 8 + n].partition(b"\0")
                if key == b"Title":
                    return text.decode("latin-1")
            pos += 12 + n
        return None

    @staticmethod
    def longest_run(pixels, colour):
        """The longest horizontal run of exactly `colour` in any row, and where it starts: (length, y, x)."""
        best = (0, 0, 0)
        hit = (pixels == np.array(colour, dtype=np.uint8)).all(axis=2)
        for y in range(hit.shape[0]):
            run = 0
            for x, h in enumerate(hit[y]):
                run = run + 1 if h else 0
                if run > best[0]:
                    best = (run, y, x - run + 1)
        return best

    def test_similarity_png_uses_a_sequential_map_over_its_range(self):
        """The diagonal (the maximum, d/2) and the smallest similarity get the map's two ends; no colour is spent
        on values that do not occur."""
        sim = self.run_pe(["--d-model", "64", "--max-len", "64", "--similarity"], "npy")
        _, _, pixels = decode_png(self.run_pe(["--d-model", "64", "--max-len", "64", "--similarity"], "png"))
        light, dark = (253, 231, 37), (68, 1, 84)   # viridis' ends: the maximum and the minimum
        colours = pixels.reshape(-1, 3)
        count = lambda c: int((colours == np.array(c, dtype=np.uint8)).all(axis=1).sum())
        cell = 10  # 720 // 64 pixels square
        self.assertGreaterEqual(count(light), 64 * cell * cell)            # every diagonal cell
        minima = int((sim == sim.min()).sum())
        self.assertGreaterEqual(count(dark), minima * cell * cell)        # the minimum's cells, and a bar row
        self.assertGreater(sim.min(), 0)                                   # a ± map would leave its blue half unused
        for red_or_blue in ((178, 24, 43), (33, 102, 172)):                # no diverging colours at all
            self.assertEqual(count(red_or_blue), 0)

    def test_alibi_png_masks_the_causal_half(self):
        n, cell = 24, 24
        z = self.run_pe(["--kind", "alibi", "--heads", "8", "--head", "2", "--max-len", str(n)], "npz")
        self.assertGreater(z["bias"][2, 0, n - 1], 0)   # the tensor is unchanged: only the picture masks
        data = self.run_pe(["--kind", "alibi", "--heads", "8", "--head", "2", "--max-len", str(n)], "png")
        _, _, pixels = decode_png(data)
        ground, hatch = np.array([224, 224, 224], np.uint8), np.array([150, 150, 150], np.uint8)
        masked = (pixels == ground).all(axis=2) | (pixels == hatch).all(axis=2)
        # The plot's top-left corner: the first row holding a run of masked pixels as long as n - 1 cells.
        rows = [y for y in range(pixels.shape[0]) if masked[y].sum() >= (n - 1) * cell]
        self.assertTrue(rows)
        top = rows[0]
        xs = np.flatnonzero(masked[top])
        left = xs.min() - cell  # query 0's only visible cell (key 0) is left of its masked keys
        for q in range(n):
            y = top + q * cell + cell // 2
            for k in range(n):
                x = left + k * cell + cell // 2
                self.assertEqual(bool(masked[y, x]), k > q, (q, k))
        self.assertEqual(masked[top:top + n * cell, left:left + n * cell].sum(), n * (n - 1) // 2 * cell * cell)
        self.assertTrue((pixels[top + (n - 1) * cell + 1, left + 1] == [68, 1, 84]).all())  # farthest: strongest
        self.assertIn("head 2 of 8, slope 0.125", self.png_title(data))
        self.assertIn("causal", self.png_title(data))

    def test_wide_sinusoidal_png_has_sin_and_cos_panels(self):
        """d=512 interleaved drew moiré stripes (sin, cos, sin, ... column by column); now sin and cos are apart."""
        for layout in ("interleaved", "concat"):
            with self.subTest(layout=layout):
                data = self.run_pe(["--d-model", "512", "--layout", layout], "png")
                _, _, pixels = decode_png(data)
                # Position 0: all 256 sins are 0 (white) and all 256 cosines 1 (dark red), each one unbroken run.
                white, white_y, white_x = self.longest_run(pixels, (247, 247, 247))
                red, red_y, red_x = self.longest_run(pixels, (178, 24, 43))
                self.assertGreaterEqual(white, 256 * 2)
                self.assertGreaterEqual(red, 256 * 2)
                self.assertEqual(white_y, red_y)           # the same row: position 0
                self.assertGreater(red_x, white_x + white)  # the cos panel right of the sin panel, with a gap
                self.assertIn(f"sinusoidal PE d=512 {layout}, paper frequencies, base 10000", self.png_title(data))
        # Small d too: the first row has no alternation.
        _, _, pixels = decode_png(self.run_pe(["--d-model", "16"], "png"))
        self.assertGreaterEqual(self.longest_run(pixels, (178, 24, 43))[0], 8 * 24)

    def test_png_titles_carry_the_parameters(self):
        npy = str(self.T5 / "relative_attention_bias.npy")
        cases = [
            (["--d-model", "32", "--max-len", "8", "--base", "500", "--position-scale", "2"],
             ["d=32", "base 500", "position scale 2"]),
            (["--d-model", "32", "--max-len", "8", "--similarity"], ["similarity", "d=32", "base 10000"]),
            (["--kind", "rope", "--d-model", "16", "--max-len", "8", "--rope-theta", "500000", "--rope-scaling",
              "linear", "--rope-factor", "4"], ["RoPE cos and sin dim=16", "theta 500000", "linear scaling factor 4"]),
            (["--kind", "t5", "--max-len", "8", "--causal", "--num-buckets", "16"],
             ["causal", "16 buckets", "max_distance 128"]),
            (["--kind", "t5", "--max-len", "8", "--weights", npy, "--head", "3"], ["head 3 of 4", "32 buckets"]),
        ]
        for args, want in cases:
            with self.subTest(args=args):
                data = self.run_pe(args, "png")
                decode_png(data)
                title = self.png_title(data)
                for w in want:
                    self.assertIn(w, title)
                # The table's too (a RoPE table is one of the two tables the picture draws).
                self.assertIn(title.replace("cos and sin", "cos"), self.ok("pe", *args).stdout.decode().splitlines()[0])

    # --- issue 31: pictures as a new user reads them ---
    INK = (20, 20, 20)

    @staticmethod
    def mask_of(pixels, colour):
        return (pixels == np.array(colour, dtype=np.uint8)).all(axis=2)

    def test_rope_png_draws_cos_and_sin_side_by_side(self):
        """cos(p * inv_freq) and sin(p * inv_freq) in HF's rotate_half layout, computed here with NumPy: each cell's
        colour has its value's sign (red > 0, blue < 0), the cos panel left of the sin panel, both labelled by dim."""
        d, n = 16, 8
        inv = 1.0 / 10000.0 ** (np.arange(0, d, 2, dtype=np.float64) / d)
        freqs = np.outer(np.arange(n), inv)
        emb = np.concatenate([freqs, freqs], axis=1)
        want = {"cos": np.cos(emb), "sin": np.sin(emb)}
        data = self.run_pe(["--kind", "rope", "--d-model", str(d), "--max-len", str(n)], "png")
        _, height, pixels = decode_png(data)
        # Position 0: cos is 1 (the range's top, dark red) in every dim, sin is 0 (white): two runs on one row.
        red_len, y0, cos_x = self.longest_run(pixels, (178, 24, 43))
        self.assertEqual(red_len % d, 0)
        cell_w = red_len // d
        self.assertGreaterEqual(cell_w, 2)
        white_len, white_y, sin_x = self.longest_run(pixels[y0:y0 + 1], (247, 247, 247))
        self.assertEqual(white_len, d * cell_w)               # the sin panel: as many dims as the cos panel
        self.assertGreater(sin_x, cos_x + red_len)            # right of the cos panel, with a gap
        cell_h = int(self.mask_of(pixels[:, cos_x:cos_x + 1], (178, 24, 43))[:, 0].sum())  # position 0's cell only
        self.assertGreaterEqual(cell_h, 2)
        checked = 0
        for name, x0 in (("cos", cos_x), ("sin", sin_x)):
            for p in range(n):
                for k in range(d):
                    v = want[name][p, k]
                    r, _, b = (int(c) for c in pixels[y0 + p * cell_h + cell_h // 2, x0 + k * cell_w + cell_w // 2])
                    if abs(v) < 0.05:
                        continue
                    checked += 1
                    self.assertEqual(r > b, v > 0, (name, p, k, v, r, b))
        self.assertGreater(checked, n * d)  # most cells: the high dims of sin stay near 0 over 8 positions
        title = self.png_title(data)
        self.assertIn("RoPE cos and sin dim=16", title)
        # The dim axis label sits by its ticks, above the plot: no text below the plot, and no room left for any.
        plot_bottom = y0 + n * cell_h
        self.assertFalse(self.mask_of(pixels[plot_bottom:, cos_x:sin_x + d * cell_w], self.INK).any())
        self.assertLessEqual(height - plot_bottom, 10)
        self.assertTrue(self.mask_of(pixels[:y0, cos_x:sin_x + d * cell_w], self.INK).any())
        # --rope-table still chooses the one table of the text and array formats; a PNG would ignore it.
        npy = self.run_pe(["--kind", "rope", "--d-model", str(d), "--max-len", str(n), "--rope-table", "sin"], "npy")
        np.testing.assert_allclose(npy, want["sin"], atol=1e-6)
        self.fails(2, "drop --rope-table", "pe", "--kind", "rope", "--d-model", "16", "--rope-table", "sin",
                   "-o", str(self.tmp / "r.png"))
        self.assertFalse((self.tmp / "r.png").exists())

    def t5_plot(self, args, n):
        """A T5 bucket picture and its buckets (int64, from npy): (pixels, buckets, top, left) with the plot's
        top-left corner, the first pixel in reading order that is neither grey (text, ground, mask) nor white: the
        cell (query 0, key 0), left of the legend on its row."""
        buckets = self.run_pe(["--kind", "t5", "--max-len", str(n)] + args, "npy")
        _, _, pixels = decode_png(self.run_pe(["--kind", "t5", "--max-len", str(n)] + args, "png"))
        ys, xs = np.nonzero(self.colourful(pixels))
        top = ys.min()
        return pixels, buckets, top, xs[ys == top].min()

    @staticmethod
    def colourful(pixels):
        p = pixels.astype(int)
        return (p.max(axis=-1) - p.min(axis=-1)) > 12

    def check_bucket_cells(self, pixels, buckets, top, left, causal):
        """Each cell is one flat colour, the same bucket the same colour and different buckets different colours;
        as many colours in the plot as buckets shown. Returns ({bucket: colour}, the plot's right edge)."""
        n = buckets.shape[0]
        # The cell size: key 0's column is coloured in every row (no query is before key 0), n cells tall.
        run = 0
        while top + run < pixels.shape[0] and self.colourful(pixels[top + run, left]):
            run += 1
        self.assertEqual(run % n, 0)
        cell = run // n
        plot = pixels[top:top + n * cell, left:left + n * cell]
        colours = {}
        for q in range(n):
            for k in range(n):
                if causal and k > q:
                    continue
                block = plot[q * cell:(q + 1) * cell, k * cell:(k + 1) * cell].reshape(-1, 3)
                self.assertTrue((block == block[0]).all(), f"cell ({q}, {k}) is one flat colour")
                colours.setdefault(int(buckets[q, k]), set()).add(tuple(int(v) for v in block[0]))
        for b, cs in colours.items():
            self.assertEqual(len(cs), 1, f"bucket {b} in one colour")
        by_bucket = {b: next(iter(cs)) for b, cs in colours.items()}
        self.assertEqual(len(set(by_bucket.values())), len(by_bucket), "different buckets, different colours")
        visible = np.tril(np.ones((n, n), bool)) if causal else np.ones((n, n), bool)
        self.assertEqual(len(by_bucket), len(np.unique(buckets[visible])))
        # In the whole plot area: exactly the buckets' colours (and the mask's two greys), nothing else.
        distinct = {tuple(int(v) for v in c) for c in np.unique(plot.reshape(-1, 3), axis=0)}
        distinct -= {(224, 224, 224), (150, 150, 150)} if causal else set()
        self.assertEqual(distinct, set(by_bucket.values()))
        return by_bucket, left + n * cell

    def test_t5_buckets_png_is_a_stepped_categorical_picture(self):
        """Bucket indices are categories: one flat colour per bucket, two hues for the two directions, and a legend
        of steps (one swatch per bucket shown, no continuous bar)."""
        n = 40
        pixels, buckets, top, left = self.t5_plot([], n)
        by_bucket, right = self.check_bucket_cells(pixels, buckets, top, left, causal=False)
        self.assertGreater(len(by_bucket), 20)
        half = 16  # HF: bidirectional buckets from num_buckets // 2 on are keys after the query
        for b, (r, g, bl) in by_bucket.items():
            self.assertEqual(r > bl, b >= half, (b, (r, g, bl)))  # after: the orange ramp; before or at: blue
        legend = pixels[:, right:].reshape(-1, 3).astype(int)
        colourful = legend[(legend.max(axis=1) - legend.min(axis=1)) > 12]
        legend_colours = {tuple(c) for c in np.unique(colourful, axis=0)}
        self.assertEqual(legend_colours, set(by_bucket.values()))  # a swatch per bucket, and only those
        # Causal (the decoder): keys after the query are masked; the buckets shown, one colour each, one hue.
        pixels, buckets, top, left = self.t5_plot(["--causal", "--num-buckets", "16"], 24)
        by_bucket, _ = self.check_bucket_cells(pixels, buckets, top, left, causal=True)
        self.assertGreater(len(by_bucket), 8)
        # With --weights the values are real biases: the continuous diverging bar stays.
        npy = str(self.T5 / "relative_attention_bias.npy")
        _, _, pixels = decode_png(self.run_pe(["--kind", "t5", "--max-len", "20", "--weights", npy], "png"))
        self.assertGreater(len(np.unique(pixels.reshape(-1, 3), axis=0)), 100)

    def test_png_text_is_drawn_large_at_the_default_size(self):
        """The 5x7 font doubled: a glyph's stem is 14 pixels tall, not 7; a tiny plot keeps the small font."""
        def tallest_stroke(pixels):
            ink = self.mask_of(pixels, self.INK).astype(np.int8)
            best = 0
            for x in range(ink.shape[1]):
                col = ink[:, x]
                if col.any():
                    edges = np.flatnonzero(np.diff(np.concatenate([[0], col, [0]])))
                    best = max(best, int((edges[1::2] - edges[::2]).max()))
            return best
        _, _, pixels = decode_png(self.run_pe(["--d-model", "128", "--max-len", "128"], "png"))
        self.assertEqual(tallest_stroke(pixels), 14)
        _, _, pixels = decode_png(self.run_pe(["--d-model", "4", "--max-len", "4"], "png"))
        self.assertEqual(tallest_stroke(pixels), 7)

    def test_similarity_is_the_gram_matrix(self):
        got = self.run_pe(["--d-model", "32", "--max-len", "30", "--similarity"], "npy")
        p = reference.sinusoidal_pe64(range(30), 32)
        np.testing.assert_allclose(got, p @ p.T, atol=1e-5)
        np.testing.assert_allclose(np.diag(got), 16, atol=1e-5)  # |PE[pos]|² = d/2

    def test_stats(self):
        doc = json.loads(self.run_pe(["--d-model", "16", "--max-len", "50", "--stats"], "json"))
        pairs = doc["pairs"]
        self.assertEqual(len(pairs), 8)
        want = 2 * np.pi * 10000 ** (2 * np.arange(8) / 16)
        np.testing.assert_allclose([p["wavelength"] for p in pairs], want, rtol=1e-5)
        self.assertEqual([p["incomplete"] for p in pairs], list(want > 50))
        self.assertFalse(any(p["aliases"] for p in pairs))
        doc = json.loads(self.run_pe(["--d-model", "16", "--max-len", "50", "--stats", "--position-scale", "0.25"],
                                     "json"))
        self.assertTrue(doc["pairs"][0]["aliases"])  # 4x faster: wavelength 2π/4 < 2

    def test_audit(self):
        doc = json.loads(self.run_pe(["--d-model", "512", "--positions", "0:1000000", "--audit"], "json"))
        bands = doc["bands"]
        self.assertEqual([(b["first"], b["last"]) for b in bands],
                         [(0, 9), (10, 99), (100, 999), (1000, 9999), (10000, 99999), (100000, 999999)])
        self.assertGreater(bands[-1]["f32_computed_max"], 1e-2)   # the PyTorch recipe's float32 code near 1e6
        self.assertLess(bands[0]["f32_computed_max"], 1e-6)
        for b in bands:  # half an ulp of values in [-1, 1], plus the float32 rounding on the way (7 digits printed)
            self.assertLessEqual(b["f16_stored_max"], (2.0 ** -12 + 2.0 ** -24) * (1 + 1e-6))
            self.assertLessEqual(b["bf16_stored_max"], (2.0 ** -9 + 2.0 ** -24) * (1 + 1e-6))

    def test_audit_headers_say_what_each_column_measures(self):
        """issue 13: f32 is computed in float32 the naive way; f16/bf16 are the exact value rounded for storage."""
        text = self.ok("pe", "--d-model", "16", "--max-len", "1000", "--audit").stdout.decode().splitlines()
        self.assertIn("f32_computed: computed in float32 the naive way, as the PyTorch recipe does", text[0])
        self.assertIn("f16_stored, bf16_stored: the exact value rounded to float16, bfloat16 for storage", text[0])
        self.assertIn("d=16 interleaved, paper frequencies, base 10000", text[0])
        self.assertEqual(text[1].split(), ["first", "last", "sampled", "f32_computed_max", "f32_computed_mean",
                                           "f16_stored_max", "f16_stored_mean", "bf16_stored_max",
                                           "bf16_stored_mean"])
        csv = self.run_pe(["--d-model", "16", "--max-len", "1000", "--audit"], "csv").decode().splitlines()
        self.assertEqual(csv[0].split(","), text[1].split())
        doc = json.loads(self.run_pe(["--d-model", "16", "--max-len", "1000", "--audit"], "json"))
        self.assertEqual(sorted(doc["config"]["columns"]), ["bf16_stored", "error", "f16_stored", "f32_computed"])
        self.assertIn("f32_computed", self.ok("pe", "--help").stdout.decode())
        self.assertNotIn("seed", " ".join(text[:2]))

    def test_causal_tables_mask_the_keys_after_the_query(self):
        # ALiBi and causal T5 bias causal attention: the text table, like the picture, shows the
        # keys after the query as masked, not as values attention never adds. CSV keeps every value.
        for args in (["--kind", "alibi", "--heads", "4", "--head", "1"], ["--kind", "t5", "--causal"]):
            with self.subTest(kind=args[1]):
                text = self.ok("pe", *args, "--max-len", "5", "--format", "table").stdout.decode().splitlines()
                self.assertTrue(text[0].endswith("; keys after the query are masked"), text[0])
                z = self.run_pe(args + ["--max-len", "5"], "npz")
                values = z["bias"][1] if args[1] == "alibi" else z[tensor_names(z)[-1]]
                for i, line in enumerate(text[2:7]):
                    cells = line.split()[1:]
                    self.assertEqual(len(cells), 5, line)
                    for j, cell in enumerate(cells):
                        if j > i:
                            self.assertEqual(cell, "masked", line)
                        else:
                            self.assertAlmostEqual(float(cell), float(values[i][j]), delta=0.0051, msg=line)  # two decimals
        bidirectional = self.ok("pe", "--kind", "t5", "--max-len", "5", "--format", "table").stdout.decode()
        self.assertNotIn("masked", bidirectional)


        z = self.run_pe(["--kind", "alibi", "--heads", "6", "--max-len", "5"], "npz")
        slopes = z["slopes"]
        i, j = np.meshgrid(np.arange(5), np.arange(5), indexing="ij")
        np.testing.assert_allclose(z["bias"], slopes[:, None, None] * (j - i)[None], rtol=1e-6)
        self.assertEqual(len(slopes), 6)
        doc = json.loads(self.run_pe(["--kind", "rope", "--d-model", "8", "--max-len", "3"], "json"))
        self.assertIn("not added to the input", doc["config"]["note"])

    # --- T5 relative-position buckets (issue 12: a PE kind added as one lib file) ---
    T5 = GOLDEN / "t5"

    def test_t5_buckets_match_hf_relative_position_bucket(self):
        """HF T5Attention._relative_position_bucket (torch, in the goldens generator), encoder and decoder."""
        cases = json.loads((self.T5 / "cases.json").read_text())
        goldens = np.load(self.T5 / "goldens.npz")
        names = [n for n in cases if n.startswith("buckets_")]
        self.assertGreaterEqual(len(names), 10)
        for name in names:
            with self.subTest(case=name):
                got = self.run_pe(cases[name]["args"], "npy")
                self.assertEqual(got.dtype, np.int64)
                np.testing.assert_array_equal(got, goldens[name])

    def test_t5_bias_matches_compute_bias(self):
        """(heads, query, key) = nn.Embedding(buckets).permute(2, 0, 1); the decoder's table with --causal."""
        goldens = np.load(self.T5 / "goldens.npz")
        npy = self.T5 / "relative_attention_bias.npy"
        both = self.T5 / "t5_encoder_decoder.safetensors"
        base = ["--kind", "t5", "--max-len", "20"]
        np.testing.assert_array_equal(self.run_pe(base + ["--weights", str(npy)], "npy"), goldens["bias_bi"])
        np.testing.assert_array_equal(self.run_pe(base + ["--weights", str(both)], "npy"), goldens["bias_bi"])
        np.testing.assert_array_equal(self.run_pe(base + ["--weights", str(both), "--causal"], "npy"),
                                      goldens["bias_causal"])
        z = self.run_pe(base + ["--weights", str(npy)], "npz")
        self.assertEqual(sorted(tensor_names(z)), ["bias", "buckets"])
        doc = json.loads(self.run_pe(base + ["--weights", str(npy)], "json"))
        np.testing.assert_array_equal(np.array(doc["bias"], dtype=np.float32), goldens["bias_bi"])
        self.assertEqual(doc["config"]["heads"], 4)
        self.assertEqual(doc["config"]["num_buckets"], 32)  # from the table's rows
        csv = self.run_pe(base + ["--weights", str(npy), "--head", "2"], "csv").decode().splitlines()
        self.assertEqual(csv[0].split(",")[:3], ["query", "key0", "key1"])
        np.testing.assert_array_equal(np.array([r.split(",")[1:] for r in csv[1:]], dtype=np.float32),
                                      goldens["bias_bi"][2])
        table = self.ok("pe", *base, "--weights", str(npy), "--head", "3").stdout.decode()
        self.assertIn("head 3 of 4", table.splitlines()[0])
        width, height, _ = decode_png(self.run_pe(base + ["--weights", str(npy), "--head", "1"], "png"))
        self.assertGreaterEqual(width, 20 * 4)

    def test_t5_flags_come_from_the_registry(self):
        """No app/ file names t5: its parameters become pe flags, and encode does not offer it."""
        out = self.ok("pe", "--help").stdout.decode()
        for flag in ("--num-buckets", "--max-distance", "--causal", "--weights", "--head"):
            self.assertIn(flag, out)
        self.assertIn("sinusoidal|rope|alibi|t5", out)
        self.assertNotIn("--num-buckets", self.ok("encode", "--help").stdout.decode())

    def test_t5_json_and_default(self):
        doc = json.loads(self.run_pe(["--kind", "t5", "--max-len", "3"], "json"))
        self.assertEqual(doc["buckets"], [[0, 17, 18], [1, 0, 17], [2, 1, 0]])  # HF's defaults: 32 buckets, 128
        self.assertEqual(doc["config"]["bidirectional"], True)
        self.assertIsNone(doc["config"]["relative_attention_bias"])

    def test_t5_buckets_print_as_integers(self):
        """issue 12: the int64 buckets read 17 in the table, CSV and JSON, never 17.00."""
        base = ["--kind", "t5", "--positions", "5:12"]
        want = self.run_pe(base, "npy")
        self.assertEqual(want.dtype, np.int64)
        rows = self.ok("pe", *base).stdout.decode().splitlines()[2:]
        cells = [r.split()[1:] for r in rows]
        self.assertTrue(all(re.fullmatch(r"-?[0-9]+", c) for r in cells for c in r), rows)
        np.testing.assert_array_equal(np.array(cells, dtype=np.int64), want)
        csv = self.run_pe(base, "csv").decode().splitlines()[1:]
        self.assertTrue(all(re.fullmatch(r"[0-9]+(,-?[0-9]+)+", r) for r in csv), csv)
        np.testing.assert_array_equal(np.array([r.split(",")[1:] for r in csv], dtype=np.int64), want)
        doc = json.loads(self.run_pe(base, "json"))
        self.assertTrue(all(type(x) is int for r in doc["buckets"] for x in r))
        np.testing.assert_array_equal(np.array(doc["buckets"]), want)

    def test_head_help_names_both_kinds(self):
        line = next(l for l in self.ok("pe", "--help").stdout.decode().splitlines() if "--head " in l)
        self.assertIn("ALiBi", line)
        self.assertIn("T5", line)

    def test_t5_refuses_nonsense_with_one_line(self):
        self.fails(2, "--num-buckets 3 leaves no bucket for exact distances", "pe", "--kind", "t5", "--num-buckets",
                   "3")
        self.ok("pe", "--kind", "t5", "--num-buckets", "3", "--max-distance", "4", "--causal")
        self.fails(2, "--max-distance 8 must be above 8", "pe", "--kind", "t5", "--max-distance", "8")
        self.fails(2, "--num-buckets", "pe", "--kind", "t5", "--num-buckets", "1")
        npy = str(self.T5 / "relative_attention_bias.npy")
        self.fails(2, "--head 4 is beyond the 4 heads", "pe", "--kind", "t5", "--weights", npy, "--head", "4")
        self.fails(2, "but --num-buckets is 16", "pe", "--kind", "t5", "--weights", npy, "--num-buckets", "16")
        self.fails(2, "--stats applies to --kind sinusoidal, rope, alibi or block", "pe", "--kind", "t5", "--stats")
        self.fails(1, "no-such.npy", "pe", "--kind", "t5", "--weights", str(self.tmp / "no-such.npy"))
        self.fails(2, "must be one of sinusoidal|learned|none|rope", "encode", "--text", "hi", "--pe", "t5")

    def test_block_pe_in_encode_is_the_table_pe_shows(self):
        """issue 16: --pe block adds PE(pos mod B) + PE_block(pos div B) to E[ids] x sqrt(d), the table pe prints."""
        out = self.tmp / "b.npz"
        self.ok("encode", "--text", "a long document, cut into blocks of three tokens", "--d-model", "12", "--pe",
                "block", "--block-size", "3", "--block-base", "500", "--emit",
                "token_embeddings,positional_encoding,output", "-o", str(out))
        z = np.load(out)
        n = z["positional_encoding"].shape[0]
        pos = np.arange(n)
        want = reference.sinusoidal_pe64(pos % 3, 12) + reference.sinusoidal_pe64(pos // 3, 12, base=500.0)
        np.testing.assert_allclose(z["positional_encoding"], want, rtol=0, atol=1.2e-7)
        table = self.run_pe(["--kind", "block", "--d-model", "12", "--max-len", str(n), "--block-size", "3",
                             "--block-base", "500"], "npy")
        np.testing.assert_array_equal(z["positional_encoding"], table)
        np.testing.assert_array_equal(z["output"], z["token_embeddings"] + table)  # token_embeddings: already x sqrt(d)
        doc = json.loads(self.run_pe(["--kind", "block", "--d-model", "4", "--max-len", "4", "--block-size", "2"],
                                     "json"))
        self.assertEqual(doc["config"]["positional_encoding"]["block_size"], 2)
        stats = self.ok("pe", "--kind", "block", "--d-model", "8", "--block-size", "4", "--stats").stdout.decode()
        self.assertEqual([l.split()[0] for l in stats.splitlines()[2:]], ["within"] * 4 + ["block"] * 4)
        pairs = json.loads(self.run_pe(["--kind", "block", "--d-model", "8", "--block-size", "4", "--stats"],
                                       "json"))["pairs"]
        self.assertEqual([p["term"] for p in pairs], ["within"] * 4 + ["block"] * 4)
        self.assertEqual(pairs[4]["frequency"], 1)
        width, height, _ = decode_png(self.run_pe(["--kind", "block", "--d-model", "8", "--block-size", "4"], "png"))
        self.assertGreater(width * height, 0)

    def test_block_and_transformer_xl_refusals(self):
        self.fails(2, "needs --block-size B", "encode", "--text", "hi", "--pe", "block")
        self.fails(2, "needs --block-size B", "pe", "--kind", "block", "--d-model", "8")
        self.fails(2, "--block-size applies to --pe block", "encode", "--text", "hi", "--block-size", "3")
        self.fails(2, "--block-size", "encode", "--text", "hi", "--pe", "block", "--block-size", "0")
        self.fails(2, "give an even --d-model, not 7", "pe", "--kind", "transformer-xl", "--d-model", "7")
        # --clamp-len 0 clamps nothing, as in Transformer-XL (clamp_len > 0 applies).
        self.assertEqual(self.ok("pe", "--kind", "transformer-xl", "--d-model", "8", "--max-len", "4", "--clamp-len",
                                 "0").stdout, self.ok("pe", "--kind", "transformer-xl", "--d-model", "8", "--max-len",
                                                      "4").stdout)
        self.fails(2, "--dims chooses the columns of the table", "pe", "--kind", "block", "--block-size", "4",
                   "--d-model", "8", "--stats", "--dims", "0:4")
        self.fails(2, "--dims chooses the columns of the table", "pe", "--d-model", "8", "--similarity", "--dims", "0:4")
        self.fails(2, "must be one of sinusoidal|learned|none|rope|block", "encode", "--text", "hi", "--pe",
                   "transformer-xl")

    def test_transformer_xl_rows_descend(self):
        """Row r of R is relative position klen-1-r (clamped): the last row is position 0, [0..0 | 1..1]."""
        r = self.run_pe(["--kind", "transformer-xl", "--d-model", "6", "--max-len", "5", "--clamp-len", "2"], "npy")
        np.testing.assert_array_equal(r[-1], [0, 0, 0, 1, 1, 1])
        np.testing.assert_array_equal(r[0], r[2])  # positions 4 and 3 clamp to 2
        inv = 1 / 10000 ** (np.arange(0, 6, 2) / 6)
        np.testing.assert_allclose(r[3], np.concatenate([np.sin(inv), np.cos(inv)]), atol=1.2e-7)
        text = self.ok("pe", "--kind", "transformer-xl", "--d-model", "6", "--max-len", "5").stdout.decode()
        self.assertIn("row r is position 4 - r", text.splitlines()[0])

    def test_encode_shares_the_conventions(self):
        out = self.tmp / "o.npz"
        self.ok("encode", "--text", "Hello world", "--d-model", "10", "--convention", "fairseq",
                "--emit", "positional_encoding,input_ids", "-o", str(out))
        z = np.load(out)
        n = z["input_ids"].shape[1]
        half = 5
        inv = np.exp(np.arange(half) * -(np.log(10000) / (half - 1)))
        ang = np.arange(2, 2 + n)[:, None] * inv[None, :]   # fairseq: positions start at padding_idx + 1 = 2
        want = np.concatenate([np.sin(ang), np.cos(ang)], axis=1)
        np.testing.assert_allclose(z["positional_encoding"], want, atol=1.2e-7)
        self.fails(2, "RoPE is not added to the input", "encode", "--text", "hi", "--pe", "rope")
        z2 = self.tmp / "r.npz"
        self.ok("encode", "--text", "hi", "--d-model", "8", "--emit", "rope_cos,rope_sin,output", "-o", str(z2))
        r = np.load(z2)
        inv = 1 / 10000 ** (np.arange(0, 8, 2) / 8)
        ang = np.arange(r["rope_cos"].shape[0])[:, None] * inv[None, :]
        np.testing.assert_allclose(r["rope_cos"], np.cos(np.concatenate([ang, ang], axis=1)), atol=1.2e-7)


class SafetensorsTests(CliCase):
    """encode -o X.safetensors: every emitted tensor plus the run's config as
    __metadata__ {"config": "<JSON text>"}, read back with a reader written
    here from the format's definition, and compared with the same run's .npz."""

    BASE = ["encode", "--model", str(HERE / "models" / "sp-test.model"), "--text", "Hello world.",
            "--text", "A second, longer line of text.", "--weights", str(GOLDEN / "weights" / "table_f32.npy"),
            "--emit", "all,rope_cos"]

    @staticmethod
    def read(path):
        """{name: (dtype word, shape, raw bytes)}, the metadata, and the tensors' order in the file."""
        raw = pathlib.Path(path).read_bytes()
        n = int.from_bytes(raw[:8], "little")
        header = json.loads(raw[8:8 + n])
        meta = header.pop("__metadata__")
        data = raw[8 + n:]
        spans = sorted((e["data_offsets"][0], e["data_offsets"][1]) for e in header.values())
        # Back to back from 0 to the end of the file: no holes, no overlap.
        ends = [0] + [end for _, end in spans]
        assert [b for b, _ in spans] == ends[:-1] and ends[-1] == len(data), spans
        assert (8 + n) % 8 == 0
        out = {name: (e["dtype"], e["shape"], data[e["data_offsets"][0]:e["data_offsets"][1]])
               for name, e in header.items()}
        return out, meta, list(header)

    def test_same_tensors_as_npz_bit_for_bit(self):
        self.ok(*self.BASE, "-o", str(self.tmp / "a.safetensors"))
        self.ok(*self.BASE, "-o", str(self.tmp / "a.npz"))
        got, meta, order = self.read(self.tmp / "a.safetensors")
        npz = np.load(self.tmp / "a.npz")
        self.assertEqual(order, tensor_names(npz))
        words = {np.dtype(np.float32): "F32", np.dtype(np.int64): "I64"}
        for name in tensor_names(npz):
            dtype, shape, data = got[name]
            self.assertEqual(dtype, words[npz[name].dtype], name)
            self.assertEqual(shape, list(npz[name].shape), name)
            self.assertEqual(data, npz[name].tobytes(), name)
        config = json.loads(meta["config"])
        doc = json.loads(self.ok(*self.BASE).stdout)
        self.assertEqual(config, doc["config"])  # the JSON output's config, sequences and truncated included

    def test_pe_writes_what_npz_holds_bit_for_bit(self):
        """issue 12: pe -o X.safetensors (and --format safetensors) holds the .npz's tensors, with the JSON's config
        and positions as metadata."""
        t5 = str(GOLDEN / "t5" / "relative_attention_bias.npy")
        cases = [["--d-model", "9", "--positions", "100:110"],
                 ["--d-model", "8", "--convention", "fairseq", "--max-len", "6"],
                 ["--d-model", "16", "--max-len", "12", "--similarity"],
                 ["--kind", "rope", "--d-model", "8", "--max-len", "5", "--rope-scaling", "yarn", "--rope-factor", "4"],
                 ["--kind", "alibi", "--heads", "3", "--max-len", "4"],
                 ["--kind", "t5", "--max-len", "7"],
                 ["--kind", "t5", "--max-len", "7", "--weights", t5, "--head", "2"]]
        words = {np.dtype(np.float32): "F32", np.dtype(np.int64): "I64"}
        for n, args in enumerate(cases):
            with self.subTest(args=args):
                st, fmt, npz = self.tmp / f"{n}.safetensors", self.tmp / f"{n}.bin", self.tmp / f"{n}.npz"
                self.ok("pe", *args, "-o", str(st))
                self.ok("pe", *args, "--format", "safetensors", "-o", str(fmt))
                self.ok("pe", *args, "-o", str(npz))
                self.assertEqual(st.read_bytes(), fmt.read_bytes())
                got, meta, order = self.read(st)
                z = np.load(npz)
                self.assertEqual(order, tensor_names(z))
                for name in tensor_names(z):
                    dtype, shape, data = got[name]
                    self.assertEqual(dtype, words[z[name].dtype], name)
                    self.assertEqual(shape, list(z[name].shape), name)
                    self.assertEqual(data, z[name].tobytes(), name)
                doc = json.loads(self.ok("pe", *args, "--format", "json").stdout)
                self.assertEqual(json.loads(meta["config"]), doc["config"])
                for key in meta.keys() - {"config"}:
                    self.assertEqual(json.loads(meta[key]), doc[key], key)
                # the .npz holds the same members, each as JSON text
                self.assertEqual(sorted(set(z.files) - set(tensor_names(z))), sorted(meta.keys()))
                for key in meta.keys():
                    self.assertEqual(json.loads(str(z[key][()])), json.loads(meta[key]), key)

    def test_format_flag_and_embedpe_reads_it_back(self):
        out = self.tmp / "out.bin"
        self.ok(*self.BASE, "--format", "safetensors", "-o", str(out))
        info = json.loads(self.ok("info", "--weights", str(out), "--format", "json").stdout)
        names = {t["name"]: t["dtype"] for t in info["weights"]["tensors"]}
        self.assertEqual(names["output"], "F32")
        self.assertEqual(names["input_ids"], "I64")
        # positional_encoding is (seq_len, d_model): embedpe's --weights reader takes it as a table.
        got, _, _ = self.read(out)
        d = got["positional_encoding"][1][1]
        r = self.ok("lookup", "--weights", f"{out}:positional_encoding", "--ids", "1", "--format", "json")
        row = np.frombuffer(got["positional_encoding"][2], dtype=np.float32).reshape(-1, d)[1]
        np.testing.assert_array_equal(np.array(json.loads(r.stdout)["rows"][0], dtype=np.float32), row)

    def test_f16_and_bf16(self):
        self.ok(*self.BASE, "-o", str(self.tmp / "f32.json"))
        f32 = json.loads((self.tmp / "f32.json").read_text())
        self.ok(*self.BASE, "--dtype", "f16", "-o", str(self.tmp / "h.safetensors"))
        self.ok(*self.BASE, "--dtype", "f16", "-o", str(self.tmp / "h.npz"))
        got, meta, _ = self.read(self.tmp / "h.safetensors")
        self.assertEqual(got["output"][0], "F16")
        self.assertEqual(got["output"][2], np.load(self.tmp / "h.npz")["output"].tobytes())
        self.assertEqual(json.loads(meta["config"])["dtype"], "float16")
        self.ok(*self.BASE, "--dtype", "bf16", "-o", str(self.tmp / "b.safetensors"))
        got, meta, _ = self.read(self.tmp / "b.safetensors")
        self.assertEqual(json.loads(meta["config"])["dtype"], "bfloat16")
        for name in ("output", "token_embeddings", "positional_encoding", "rope_cos"):
            dtype, shape, data = got[name]
            self.assertEqual(dtype, "BF16", name)
            # bf16 bits = the float32 values of the JSON output, rounded to nearest even.
            bits = np.array(f32[name], dtype=np.float32).view(np.uint32).astype(np.uint64)
            rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
            self.assertEqual(data, rounded.tobytes(), name)
        self.assertEqual(got["input_ids"][0], "I64")

    def test_output_dir_still_writes_npz_parts(self):
        (self.tmp / "in.txt").write_text("a line\n")
        self.fails(2, "--output-dir writes .npz parts; drop --format", "encode", "--input", str(self.tmp / "in.txt"),
                   "--output-dir", str(self.tmp / "d"), "--format", "safetensors")


BOTCHAN_LINES = [
    "Project Gutenberg's Botchan (Master Darling), by Kin-nosuke Natsume",
    "",
    "A fine day.  The boy went to the country, and found himself in trouble again.",
    "   ",
    "我爱机器翻译 🙂",
    "He jumped from the second story of the school building and was laid up for a week.",
] * 7


class StreamTests(CliCase):
    def corpus(self, lines=BOTCHAN_LINES, name="corpus.txt"):
        path = self.tmp / name
        path.write_text("\n".join(lines) + "\n")
        return path

    def test_streamed_npy_equals_one_batch_and_threads_do_not_matter(self):
        src = self.corpus()
        outs = []
        for i, extra in enumerate([["--batch-size", "100000", "--threads", "1"], ["--batch-size", "5", "--threads", "1"],
                                   ["--batch-size", "5", "--threads", "2"], ["--batch-size", "3", "--threads", "3"]]):
            out = self.tmp / f"o{i}.npy"
            self.ok("encode", "--input", str(src), "--seq-len", "12", "--d-model", "8", "-o", str(out), *extra)
            outs.append(out.read_bytes())
        self.assertTrue(all(o == outs[0] for o in outs[1:]))
        self.assertEqual(np.load(self.tmp / "o1.npy").shape, (len(BOTCHAN_LINES), 12, 8))

    def test_multi_batch_npy_needs_seq_len(self):
        out = self.tmp / "o.npy"
        self.fails(2, "needs a fixed --seq-len", "encode", "--input", str(self.corpus()), "--batch-size", "5",
                   "-o", str(out), output=out)

    def test_multi_batch_npy_to_stdout_or_a_device_is_refused_before_any_work(self):
        # The .npy header is completed at the end, which only a file allows.
        self.fails(2, "give --output FILE", "encode", "--input", str(self.corpus()), "--batch-size", "5",
                   "--seq-len", "12", "--format", "npy", "-o", "-")
        r = run("encode", "--input", str(self.corpus()), "--batch-size", "5", "--seq-len", "12", "--format", "npy",
                "-o", "/dev/null")
        self.assertEqual(r.returncode, 2)
        self.assertIn("/dev/null cannot do: give --output FILE", r.stderr.decode())

    def test_jsonl_records_are_the_unpadded_rows(self):
        src = self.corpus()
        whole = np.load(self.run_to(["encode", "--input", str(src), "--d-model", "6", "--emit", "all"], "o.npz"))
        recs = [json.loads(l) for l in self.ok("encode", "--input", str(src), "--d-model", "6", "--format", "jsonl",
                                                "--emit", "all", "--batch-size", "4").stdout.splitlines()]
        self.assertEqual(len(recs), len(BOTCHAN_LINES))
        self.assertEqual([r["line"] for r in recs], list(range(1, len(BOTCHAN_LINES) + 1)))
        for b, r in enumerate(recs):
            n = int(whole["attention_mask"][b].sum())
            self.assertEqual(r["input_ids"], whole["input_ids"][b, :n].tolist())
            np.testing.assert_array_equal(np.array(r["output"], dtype=np.float32), whole["output"][b, :n])
            np.testing.assert_array_equal(np.array(r["positional_encoding"], dtype=np.float32),
                                          whole["positional_encoding"][:n])
            self.assertEqual(len(r["tokens"]), n)
        a = self.ok("encode", "--input", str(src), "--format", "jsonl", "--threads", "1", "--batch-size", "2").stdout
        b = self.ok("encode", "--input", str(src), "--format", "jsonl", "--threads", "2", "--batch-size", "9").stdout
        self.assertEqual(a, b)

    def run_to(self, args, name):
        out = self.tmp / name
        self.ok(*args, "-o", str(out))
        return out

    def test_empty_lines_kept_or_skipped_and_counted(self):
        src = self.corpus()
        kept = run("encode", "--input", str(src), "--format", "jsonl", "--emit", "input_ids", "--summary")
        self.assertEqual(kept.returncode, 0)
        recs = [json.loads(l) for l in kept.stdout.splitlines()]
        self.assertEqual(recs[1]["input_ids"], [1, 2])  # the empty line: BOS EOS
        self.assertRegex(kept.stderr.decode(), r"^embedpe: 42 lines, \d+ tokens, 0 truncated, 14 empty, ")
        skipped = self.ok("encode", "--input", str(src), "--format", "jsonl", "--emit", "input_ids", "--skip-empty")
        lines = [json.loads(l)["line"] for l in skipped.stdout.splitlines()]
        self.assertEqual(len(lines), 28)
        self.assertNotIn(2, lines)
        self.assertNotIn(4, lines)

    def test_jsonl_input(self):
        src = self.tmp / "in.jsonl"
        src.write_text(json.dumps({"id": 1, "body": "Hello world"}) + "\n" + json.dumps({"body": "你好"}) + "\n")
        doc = json.loads(self.ok("encode", "--input", str(src), "--input-format", "jsonl", "--field", "body",
                                 "--d-model", "4").stdout)
        want = json.loads(self.ok("encode", "--text", "Hello world", "--text", "你好", "--d-model", "4").stdout)
        self.assertEqual(doc["input_ids"], want["input_ids"])
        self.fails(1, "in.jsonl:1: no string member \"text\"", "encode", "--input", str(src), "--input-format", "jsonl")
        src.write_text('{"text": "ok"}\n{"text": \n')
        self.fails(1, 'in.jsonl:2: not valid JSON at byte 10 in the member "text"', "encode", "--input", str(src),
                   "--input-format", "jsonl")

    def test_several_inputs_in_order(self):
        a = self.corpus(["one", "two"], "a.txt")
        b = self.corpus(["three"], "b.txt")
        recs = [json.loads(l) for l in self.ok("encode", "--input", str(a), "--input", str(b), "--format", "jsonl",
                                                "--emit", "input_ids").stdout.splitlines()]
        self.assertEqual([(pathlib.Path(r["source"]).name, r["line"]) for r in recs],
                         [("a.txt", 1), ("a.txt", 2), ("b.txt", 1)])

    def test_output_dir_manifest_and_resume(self):
        src = self.corpus()
        out = self.tmp / "parts"
        args = ["encode", "--input", str(src), "--seq-len", "10", "--d-model", "8", "--output-dir", str(out),
                "--shard-rows", "10"]
        self.ok(*args)
        manifest = json.loads((out / "manifest.json").read_text())
        self.assertTrue(manifest["complete"])
        self.assertEqual([p["rows"] for p in manifest["parts"]], [10, 10, 10, 10, 2])
        self.assertEqual(manifest["parts"][1]["lines"], [{"source": str(src), "first_line": 11, "last_line": 20}])
        import hashlib
        for p in manifest["parts"]:
            self.assertEqual(hashlib.sha256((out / p["file"]).read_bytes()).hexdigest(), p["sha256"])
        merged = np.concatenate([np.load(out / p["file"])["output"] for p in manifest["parts"]])
        single = np.load(self.run_to(["encode", "--input", str(src), "--seq-len", "10", "--d-model", "8"], "s.npy"))
        np.testing.assert_array_equal(merged, single)

        self.fails(2, "already holds a manifest.json", *args)
        # A killed run: one part gone, the manifest incomplete. --resume redoes only what is missing.
        (out / "part-00003.npz").unlink()
        before = {p: (out / p).stat().st_mtime_ns for p in ("part-00000.npz", "part-00001.npz")}
        self.ok(*args, "--resume")
        self.assertEqual(json.loads((out / "manifest.json").read_text())["parts"], manifest["parts"])
        self.assertEqual({p: (out / p).stat().st_mtime_ns for p in before}, before)
        self.fails(2, "was written with config d_model 8, this run has config d_model 16", "encode", "--input", str(src), "--seq-len", "10", "--d-model",
                   "16", "--output-dir", str(out), "--shard-rows", "10", "--resume")

    def test_output_dir_is_new_or_empty(self):
        """A run writes into a new or empty directory, never beside a model's (or anyone's) files."""
        src = self.corpus(["one", "two"])
        model = self.tmp / "model"
        model.mkdir()
        (model / "config.json").write_text("{}")
        self.fails(2, f"--output-dir {model} is not empty (it holds config.json)", "encode", "--input", str(src),
                   "--output-dir", str(model))
        self.assertEqual([p.name for p in model.iterdir()], ["config.json"])  # not even a lock left
        self.fails(2, "is not empty", "encode", "--input", str(src), "--output-dir", str(model), "--resume")
        empty = self.tmp / "empty"
        empty.mkdir()
        self.ok("encode", "--input", str(src), "--output-dir", str(empty))
        self.assertEqual(sorted(p.name for p in empty.iterdir()), [".lock", "manifest.json", "part-00000.npz"])
        # a run killed before its manifest leaves only its lock: that directory is taken again
        (empty / "manifest.json").unlink()
        (empty / "part-00000.npz").unlink()
        self.ok("encode", "--input", str(src), "--output-dir", str(empty))

    def test_resume_after_deleting_one_part_redoes_only_that_part(self):
        # Issue 13: --resume after deleting only part-00002.npz re-encoded
        # parts 2-4. Only parts missing or failing their recorded SHA-256 are
        # redone; the others are not rewritten (same inode, same mtime), and
        # the directory ends byte-identical to an uninterrupted run.
        src = self.corpus()
        args = ["encode", "--input", str(src), "--seq-len", "10", "--d-model", "8", "--shard-rows", "10",
                "--train", "--seed", "3", "--output-dir"]
        self.ok(*args, str(self.tmp / "fresh"))
        fresh = {f.name: f.read_bytes() for f in (self.tmp / "fresh").iterdir()}
        parts = sorted(f for f in fresh if f.startswith("part-"))
        self.assertEqual(len(parts), 5)
        for lost in (["part-00002.npz"], ["part-00000.npz", "part-00003.npz"], []):
            with self.subTest(lost=lost):
                out = self.tmp / ("resumed-" + str(len(lost)))
                self.ok(*args, str(out))
                for name in lost:
                    (out / name).unlink()
                (out / "part-00004.npz").write_bytes(b"damaged")  # still there, but not what the manifest says
                redone = set(lost) | {"part-00004.npz"}
                before = {p: ((out / p).stat().st_ino, (out / p).stat().st_mtime_ns) for p in parts if p not in redone}
                self.ok(*args, str(out), "--resume")
                self.assertEqual({p: ((out / p).stat().st_ino, (out / p).stat().st_mtime_ns) for p in before}, before)
                self.assertEqual({f.name: f.read_bytes() for f in out.iterdir()}, fresh)

    def test_shards_merge_to_the_single_run(self):
        src = self.corpus([f"line {i} " + "word " * (i % 7) for i in range(1, 200)])
        single = self.ok("encode", "--input", str(src), "--format", "jsonl", "--emit", "input_ids").stdout
        pieces = [self.ok("encode", "--input", str(src), "--format", "jsonl", "--emit", "input_ids",
                          "--shard", f"{k}/5").stdout for k in range(1, 6)]
        self.assertTrue(all(pieces))
        self.assertEqual(b"".join(pieces), single)
        self.fails(2, "--shard", "encode", "--input", str(src), "--shard", "6/5")
        self.fails(2, "seekable", "encode", "--input", "-", "--shard", "1/2")

    def test_gnu_parallel_shards_equal_a_single_run(self):
        import shutil
        parallel = shutil.which("parallel")
        self.assertIsNotNone(parallel, "GNU parallel (Debian package parallel) is needed")
        src = self.corpus([f"sentence number {i}: " + "the boy went to the country " * (i % 5) for i in range(500)])
        single = self.ok("encode", "--input", str(src), "--format", "jsonl", "--d-model", "8").stdout
        r = subprocess.run([parallel, "--will-cite", "-k", "-j", "4", EMBEDPE, "encode", "--input", str(src),
                            "--format", "jsonl", "--d-model", "8", "--threads", "1", "--shard", "{}/4", ":::",
                            "1", "2", "3", "4"], capture_output=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.assertEqual(r.stdout, single)

    def test_head_ends_quietly(self):
        src = self.corpus(BOTCHAN_LINES * 50)
        r = subprocess.run(f"'{EMBEDPE}' encode --input '{src}' --format jsonl | head -1", shell=True,
                           capture_output=True, timeout=120)
        self.assertEqual(r.returncode, 0)
        self.assertEqual(r.stderr, b"")
        self.assertEqual(json.loads(r.stdout)["line"], 1)

    def test_progress_on_a_terminal_only(self):
        import pty
        src = self.corpus(BOTCHAN_LINES * 20)
        master, slave = pty.openpty()
        try:
            r = subprocess.run([EMBEDPE, "encode", "--input", str(src), "--format", "jsonl", "-o", "/dev/null"],
                               stderr=slave, stdout=subprocess.DEVNULL, timeout=60)
            os.close(slave)
            seen = b""
            while True:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                seen += chunk
        finally:
            os.close(master)
        self.assertEqual(r.returncode, 0)
        self.assertRegex(seen.decode(), r"embedpe: 840 lines, \d+ tokens, 0 truncated, 280 empty, [\d.]+ s")
        quiet = run("encode", "--input", str(src), "--format", "jsonl", "-o", "/dev/null")
        self.assertEqual(quiet.stderr, b"")  # not a terminal: nothing

    def test_reading_from_a_pipe(self):
        data = ("\n".join(BOTCHAN_LINES) + "\n").encode()
        a = self.ok("encode", "--input", "-", "--format", "jsonl", "--batch-size", "4", stdin=data).stdout
        b = self.ok("encode", "--input", str(self.corpus()), "--format", "jsonl").stdout
        self.assertEqual(a, b)

    def test_peak_memory_is_bounded_by_the_batch(self):
        """A 20 MB corpus streams through in far less memory than its size."""
        import resource
        line = "He jumped from the second story of the school building and was laid up for a week. " * 2
        src = self.tmp / "big.txt"
        with open(src, "w") as f:
            for i in range(20 * 1024 * 1024 // len(line)):
                f.write(f"{i} {line}\n")
        small = self.corpus(["one short line"], "small.txt")
        env = dict(os.environ)
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=16"

        def peak_kib(path):
            # A fresh Python process, so that its only child is this embedpe run.
            probe = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL); "
                     "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
            r = subprocess.run(["/usr/bin/python3", "-c", probe, EMBEDPE, "encode", "--input", str(path), "--format",
                                "jsonl", "--d-model", "16", "--emit", "input_ids,output"], capture_output=True,
                               env=env, timeout=600)
            status, kib = r.stdout.split()
            self.assertEqual(status, b"0", r.stderr.decode())
            return int(kib)

        base, big = peak_kib(small), peak_kib(src)
        # Sanitizer builds keep shadow memory and a quarantine of freed blocks.
        allowance = 64 * 1024 if os.environ.get("EMBEDPE_SANITIZED") == "1" else 8 * 1024
        self.assertLess(big - base, allowance, f"peak RSS {big} KiB for 20 MiB of input vs {base} KiB for one line")


class ErrorsTests(CliCase):
    def test_usage_errors_exit_2(self):
        out = str(self.tmp / "o.npz")
        cases = [
            ("input <stdin> has no text", ["encode", "-o", out]),  # stdin is empty here; a terminal: ShellTests
            ("--d-model", ["encode", "--text", "hi", "--d-model", "0", "-o", out]),
            ("--d-model", ["encode", "--text", "hi", "--d-model", "-3", "-o", out]),
            ("--d-model", ["encode", "--text", "hi", "--d-model", "abc", "-o", out]),
            ("--max-len", ["encode", "--text", "hi", "--max-len", "0", "-o", out]),
            ("--seq-len", ["encode", "--text", "hi", "--seq-len", "0", "-o", out]),
            ("leaves no room for BOS and EOS", ["encode", "--text", "hi", "--seq-len", "1", "-o", out]),
            ("--scale: expected sqrt, none or a number from -1e+06 to 1e+06, not 'big'",
             ["encode", "--text", "hi", "--scale", "big", "-o", out]),
            ("--dropout only applies with --train", ["encode", "--text", "hi", "--dropout", "0.2", "-o", out]),
            ("--dropout: expected a number from 0 up to (not including) 1, not '1'",
             ["encode", "--text", "hi", "--train", "--seed", "1", "--dropout", "1", "-o", out]),
            ("--train needs an explicit --seed", ["encode", "--text", "hi", "--train", "-o", out]),
            ("unknown tensor 'logits'", ["encode", "--text", "hi", "--emit", "logits", "-o", out]),
            (".npy holds one tensor", ["encode", "--text", "hi", "--emit", "input_ids,output", "-o",
                                       str(self.tmp / "o.npy")]),
            ("--format", ["encode", "--text", "hi", "--format", "csv", "-o", out]),
            ("--pad-id 9000 is outside the vocabulary", ["encode", "--text", "hi", "--pad-id", "9000", "-o", out]),
            ("--seq-len 6000 is longer than the PE table", ["encode", "--text", "hi", "--seq-len", "6000", "-o", out]),
            ("give --text or --input, not both", ["encode", "--text", "hi", "--input", "-", "-o", out]),
            ("--d-model: expected a whole number from 1 to 2147483647, not '4000000000'",
             ["encode", "--text", "hi", "--d-model", "4000000000", "-o", out]),
            ("would need", ["encode", "--text", "hi", "--d-model", "2000000000", "-o", out]),
            # flags that would be ignored (issue 16's hostile pass)
            ("--seed draws the generated table (and with --train the dropout mask), and --weights gives the table",
             ["encode", "--text", "hi", "--weights", str(WEIGHTS / "bert.safetensors"), "--seed", "3", "-o", out]),
            ("--seed draws the generated table, and --weights gives the table",
             ["lookup", "--ids", "1", "--weights", str(WEIGHTS / "bert.safetensors"), "--seed", "3"]),
            ("--max-len sizes a PE table that embedpe computes (sinusoidal, block); --pe none has none",
             ["encode", "--text", "hi", "--pe", "none", "--max-len", "10", "-o", out]),
            ("--pe learned reads its table, whose rows are the positions there are: drop --max-len",
             ["encode", "--text", "hi", "--weights", str(WEIGHTS / "bert.safetensors"), "--pe", "learned",
              "--max-len", "10", "-o", out]),
            ("--no-bos/--no-eos: pairs have no BOS or EOS to leave out",
             ["encode", "--model", str(HERE / "models" / "albert-spiece.model"), "--text", "a", "--text-pair", "b",
              "--no-eos", "-o", out]),
            ("--dtype bf16: NumPy has no bfloat16 dtype, so --output-dir's .npz parts cannot hold it",
             ["encode", "--text", "hi", "--dtype", "bf16", "--output-dir", str(self.tmp / "parts")]),
        ]
        for message, args in cases:
            with self.subTest(message=message, args=args):
                self.fails(2, message, *args, output=out)

    def test_sequence_longer_than_max_len_names_it(self):
        out = str(self.tmp / "o.npz")
        err = self.fails(2, "--text 2 is ", "encode", "--text", "hi", "--text", "word " * 40, "--max-len", "20",
                         "-o", out, output=out)
        self.assertIn("raise --max-len", err)

    def test_bad_text_exits_1_naming_the_line(self):
        src = self.tmp / "bad.txt"
        src.write_bytes(b"fine\nbad \xff\n")
        out = str(self.tmp / "o.npz")
        self.fails(1, "bad.txt:2: invalid UTF-8", "encode", "--input", str(src), "-o", out, output=out)
        self.fails(1, "--text 1: invalid UTF-8", "encode", "--text", b"\xc3(".decode("utf-8", "surrogateescape"),
                   "-o", out, output=out)
        src.write_bytes(b"")
        self.fails(2, "has no text: nothing to encode", "encode", "--input", str(src), "-o", out, output=out)

    def test_bad_models_exit_1(self):
        out = str(self.tmp / "o.npz")
        empty = self.tmp / "empty.model"
        empty.write_bytes(b"")
        self.fails(1, "is empty", "encode", "--model", str(empty), "--text", "hi", "-o", out, output=out)
        cut = self.tmp / "cut.model"
        cut.write_bytes((HERE / "models" / "sp-test.model").read_bytes()[:5000])
        self.fails(1, "not a SentencePiece model", "encode", "--model", str(cut), "--text", "hi", "-o", out,
                   output=out)
        text = self.tmp / "text.model"
        text.write_text("hello, I am not a model\n")
        self.fails(1, "text.model", "info", "--model", str(text))
        # A model whose self-test samples (ModelProto field 4) fail: SentencePiece logs each sample
        # itself; the user still gets one line.
        def length_delimited(number, payload):
            return bytes([number << 3 | 2, len(payload)]) + payload
        sample = length_delimited(1, b"hello world") + length_delimited(2, b"WRONG")
        for name in ("sp-test", "mistral-v3-tokenizer"):
            with self.subTest(model=name):
                selftest = self.tmp / f"{name}-selftest.model"
                selftest.write_bytes((HERE / "models" / f"{name}.model").read_bytes() +
                                     length_delimited(4, length_delimited(1, sample)))
                self.fails(1, "its self-test samples do not encode as it records", "encode", "--model",
                           str(selftest), "--text", "hi", "-o", out, output=out)
        # Missing, like empty or corrupt, is a runtime error (README, SPEC), not a usage error.
        missing = str(self.tmp / "none.model")
        self.fails(1, "cannot open model " + missing, "encode", "--text", "hi", "--model", missing, "-o", out,
                   output=out)

    def test_unwritable_outputs_exit_1(self):
        self.fails(1, "cannot write output", "encode", "--text", "hi", "-o", str(self.tmp / "no" / "dir" / "o.npy"))
        # sysfs refuses new files even to root: an unwritable directory.
        self.fails(1, "cannot write output /sys/embedpe-test.npy", "encode", "--text", "hi", "-o",
                   "/sys/embedpe-test.npy")
        self.fails(1, "is a directory", "encode", "--text", "hi", "-o", str(self.tmp))
        self.fails(1, "No space left on device", "encode", "--text", "hi", "-o", "/dev/full")
        # Streamed batches are written on their own thread: its error still ends the run with one line.
        src = self.tmp / "many.txt"
        src.write_text("\n".join(BOTCHAN_LINES * 40) + "\n")
        self.fails(1, "No space left on device", "encode", "--input", str(src), "--format", "jsonl",
                   "--batch-size", "3", "-o", "/dev/full")

    def test_signals_during_a_write_leave_no_file(self):
        import signal
        import time
        src = self.tmp / "big.txt"
        src.write_text("\n".join(f"line {i} of a corpus that takes a while to write" for i in range(2000)) + "\n")
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
            with self.subTest(signal=sig.name):
                out = self.tmp / "big.json"
                p = subprocess.Popen([EMBEDPE, "encode", "--input", str(src), "--seq-len", "32", "--d-model", "256",
                                      "-o", str(out)], stderr=subprocess.PIPE)
                deadline = time.monotonic() + 60
                while not any(".embedpe-" in f.name for f in self.tmp.iterdir()):
                    self.assertIsNone(p.poll(), "finished before the test could interrupt it")
                    self.assertLess(time.monotonic(), deadline)
                    time.sleep(0.005)
                p.send_signal(sig)
                p.wait(timeout=60)
                p.stderr.close()
                self.assertEqual(p.returncode, -sig)
                self.assertFalse(out.exists())
                temporaries = [f for f in self.tmp.iterdir() if ".embedpe-" in f.name]
                if sig == signal.SIGKILL:  # nothing can clean up after SIGKILL: the temporary stays, the target is absent
                    for f in temporaries:
                        f.unlink()
                else:
                    self.assertEqual(temporaries, [])

    def test_a_10_mb_line(self):
        src = self.tmp / "long.txt"
        src.write_text("short line\n" + "word " * (2 * 1024 * 1024) + "\nafter\n")
        out = self.tmp / "o.json"
        # Over the default --max-line-bytes (4 MiB): raised, as a corpus of long lines must.
        self.fails(2, "long.txt:2 is ", "encode", "--input", str(src), "--max-line-bytes", "16777216", "-o", str(out),
                   output=out)
        self.fails(1, "long.txt:2: line longer than --max-line-bytes 4194304", "encode", "--input", str(src),
                   "-o", str(out), output=out)
        recs = [json.loads(l) for l in self.ok("encode", "--input", str(src), "--format", "jsonl", "--seq-len", "6",
                                                "--max-line-bytes", "16777216",
                                                "--emit", "input_ids").stdout.splitlines()]
        self.assertEqual([len(r["input_ids"]) for r in recs], [6, 6, 6])
        self.assertEqual(recs[1]["input_ids"][-1], 2)  # EOS kept

    def test_closed_stdout(self):
        r = subprocess.run([EMBEDPE, "encode", "--text", "hi", "--d-model", "4"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=60,
                           preexec_fn=lambda: os.close(1))
        self.assertEqual(r.returncode, 1)
        self.assertIn(b"cannot write output to standard output", r.stderr)
        self.assertEqual(r.stderr.count(b"\n"), 1)

    def test_whitespace_only_and_nul_lines(self):
        src = self.tmp / "ws.txt"
        src.write_bytes(b"  \t \n\n")
        doc = json.loads(self.ok("encode", "--input", str(src), "--d-model", "4").stdout)
        self.assertEqual(doc["input_ids"], [[1, 2], [1, 2]])
        src.write_bytes(b"fine\nnul\0here\n")
        self.fails(1, "ws.txt:2: NUL byte", "encode", "--input", str(src))

    def test_missing_input_file(self):
        self.fails(1, "cannot open input", "encode", "--input", str(self.tmp / "missing.txt"))
