"""`import embedpe` (python/, issue 48): every array the module returns against
the member of the same name in the CLI's .npz (`embedpe encode ... -o x.npz`),
bit for bit, for a range of options; tokenize, decode and pe against their
commands; the exceptions and their messages; arrays that hold the computed
buffer; the README's Python example.

The module is found in EMBEDPE_PYTHON_MODULE_DIR (build/python). When it was
not built (no pybind11), every test is skipped and CTest reports SKIPPED.
Under the sanitizer tree the interpreter runs with the sanitizer runtime
preloaded (tests/CMakeLists.txt): the children it starts (the CLI, itself
sanitized) run without the preload.
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

import numpy as np

from cli_test import GOLDEN, GOLDEN_TEXTS, HERE, TMP, run, tensor_names, text_args

# The CLI is a sanitized executable of its own: it must not get the runtime twice.
PRELOAD = os.environ.pop("LD_PRELOAD", None)

MODULE_DIR = os.environ.get("EMBEDPE_PYTHON_MODULE_DIR", str(HERE.parent / "build" / "python"))
MODULE_DIR = str(pathlib.Path(MODULE_DIR).resolve()) if MODULE_DIR else MODULE_DIR
embedpe = None
if MODULE_DIR and (pathlib.Path(MODULE_DIR)).is_dir():
    sys.path.insert(0, MODULE_DIR)
    try:
        import embedpe
    except ImportError:
        embedpe = None

TEXTS = ["Hello world.", "The quick brown fox jumps over the lazy dog.", "I am a cat."]
SP_TEST = HERE / "models" / "sp-test.model"
WEIGHTS = GOLDEN / "weights" / "table_f32.npy"
XLMR = "xlm-roberta-base-subst-hfsample"  # its tokenizer (models/hf) and its layer (models/hf_layer)
GGUF = GOLDEN / "gguf_llamacpp" / "mistral-v0.3.gguf"
ASAN = os.environ.get("EMBEDPE_PYTHON_ASAN") == "1"  # tests/python_asan_test.sh


def flags(options):
    """Keyword arguments as the CLI's flags, written out independently of the module."""
    args = []
    for k, v in options.items():
        flag = "--" + k.replace("_", "-")
        if v is True:
            args.append(flag)
        elif isinstance(v, (list, tuple)):
            args += [flag, ",".join(str(x) for x in v)]
        else:
            args += [flag, str(v)]
    return args


class Case(unittest.TestCase):
    def setUp(self):
        if embedpe is None:
            self.skipTest(f"the Python module was not built (no pybind11?): nothing in {MODULE_DIR}")
        self.dir = tempfile.TemporaryDirectory(dir=TMP)
        self.tmp = pathlib.Path(self.dir.name)

    def tearDown(self):
        self.dir.cleanup()

    def pretrained(self, name=XLMR):
        """A Hugging Face directory with its tokenizer and weights: the committed tokenizer files
        (tests/models/hf/NAME) and the committed tiny layer (tests/models/hf_layer/NAME) side by side."""
        d = self.tmp / name
        if not d.is_dir():
            d.mkdir()
            for part in ("hf", "hf_layer"):
                for f in (HERE / "models" / part / name).iterdir():
                    shutil.copyfile(f, d / f.name)
        return str(d)

    def ok(self, *args):
        r = run(*args)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        return r

    def cli_npz(self, command, texts, args, pairs=()):
        out = self.tmp / "x.npz"
        pair_args = []
        for p in pairs:
            pair_args += ["--text-pair", p]
        self.ok(command, *text_args(texts), *pair_args, *args, "-o", str(out))
        with np.load(out) as z:
            return {k: z[k] for k in tensor_names(z)}

    def assertSameArrays(self, got, want):
        self.assertEqual(list(got), list(want))
        for name in want:
            with self.subTest(member=name):
                self.assertIsInstance(got[name], np.ndarray)
                self.assertEqual(got[name].dtype, want[name].dtype)
                self.assertEqual(got[name].shape, want[name].shape)
                self.assertEqual(got[name].tobytes(), want[name].tobytes())

    def same_as_cli(self, texts, options, emit=None, pairs=None, **init):
        enc = embedpe.Encoder(**init, **options)
        got = enc.encode(texts, text_pair=pairs, emit=emit)
        cli_options = dict(init, **options)
        extra = ["--emit", ",".join(emit)] if emit else []
        want = self.cli_npz("encode", texts if isinstance(texts, list) else [texts], flags(cli_options) + extra,
                            pairs=(pairs if isinstance(pairs, list) else [pairs]) if pairs is not None else ())
        self.assertSameArrays(got, want)
        return got


class SameAsCliTests(Case):
    """enc.encode(...) == the CLI's .npz, member by member, byte for byte."""

    def test_defaults(self):
        self.same_as_cli(TEXTS, {})

    def test_the_pytorch_golden(self):
        """As the CLI's test: Python SentencePiece ids + the PyTorch embedding x sqrt(d_model) + PE (eval)."""
        got = embedpe.Encoder(d_model=16).encode(GOLDEN_TEXTS)
        with np.load(GOLDEN / "cli_default_d16.npz") as want:
            self.assertEqual(sorted(got), ["attention_mask", "input_ids", "output"])
            np.testing.assert_array_equal(got["input_ids"], want["input_ids"])
            np.testing.assert_array_equal(got["attention_mask"], want["attention_mask"])
            self.assertEqual(got["output"].dtype, np.float32)
            np.testing.assert_allclose(got["output"], want["output"], rtol=1e-5, atol=1e-5)

    def test_one_str(self):
        got = self.same_as_cli("Hello world.", {"d_model": 16})
        self.assertEqual(got["output"].shape[0], 1)

    def test_left_padding_every_tensor(self):
        self.same_as_cli(TEXTS, {"d_model": 32, "padding_side": "left", "pad_id": 3, "seed": 7},
                         emit=["all", "token_type_ids"])

    def test_rope_tables_in_f16(self):
        # rope_theta applies to the RoPE tables only: emit given to the Encoder, as --emit to the CLI.
        tables = ["input_ids", "attention_mask", "rope_cos", "rope_sin"]
        got = embedpe.Encoder(d_model=64, pe="none", dtype="f16", seq_len=24, rope_theta=500000.0, rope_dim=32,
                              emit=tables).encode(TEXTS)
        self.assertSameArrays(got, self.cli_npz("encode", TEXTS, ["--d-model", "64", "--pe", "none", "--dtype", "f16",
                                                                  "--seq-len", "24", "--rope-theta", "500000.0",
                                                                  "--rope-dim", "32", "--emit", ",".join(tables)]))
        self.assertEqual(got["rope_cos"].dtype, np.float16)
        self.same_as_cli(TEXTS, {"d_model": 64, "pe": "none", "dtype": "f16", "padding_side": "left"},
                         emit=["input_ids", "rope_cos", "rope_sin", "output"])

    def test_weights_scale_none(self):
        self.same_as_cli(TEXTS, {"model": str(SP_TEST), "weights": str(WEIGHTS), "scale": "none", "padding_idx": 0},
                         emit=["all"])

    def test_pretrained_directory(self):
        self.same_as_cli(TEXTS + ["Ça marche, ß ǅ 😀."], {"seq_len": 20}, pretrained=self.pretrained())

    def test_pretrained_left_padding_every_tensor(self):
        self.same_as_cli(TEXTS, {"seq_len": 16, "padding_side": "left"}, emit=["all"], pretrained=self.pretrained())

    def test_text_pairs(self):
        self.same_as_cli(TEXTS, {"seq_len": 24}, pairs=["a second text", "another", "yes"],
                         emit=["input_ids", "attention_mask", "token_type_ids", "output"],
                         pretrained=self.pretrained())

    def test_one_text_pair(self):
        self.same_as_cli("a first text", {}, pairs="and its second", emit=["all", "token_type_ids"],
                         pretrained=self.pretrained())

    def test_gguf_file(self):
        """A GGUF file as llama.cpp wrote it (tests/golden/gguf_llamacpp/): its tokenizer and its table."""
        self.same_as_cli(TEXTS, {"seq_len": 16}, emit=["all"], pretrained=str(GGUF))

    def test_tokenizer_json_directory(self):
        """A directory with tokenizer.json (BERT's, HF's fast tokenizer) and a layer: pairs and token types."""
        d = self.tmp / "bert-tokenizer-json"
        d.mkdir()
        source = HERE / "golden" / "tokenizer_json" / "bert_base_uncased"
        shutil.copyfile(source / "tokenizer.json", d / "tokenizer.json")
        shutil.copyfile(source / "tokenizer_config.json", d / "tokenizer_config.json")
        config = json.loads((source / "config.json").read_text())
        config.update(hidden_size=8, max_position_embeddings=64)
        (d / "config.json").write_text(json.dumps(config))
        rng = np.random.default_rng(5)
        tensors = {"embeddings.word_embeddings.weight": (config["vocab_size"], 8),
                   "embeddings.position_embeddings.weight": (64, 8),
                   "embeddings.token_type_embeddings.weight": (config["type_vocab_size"], 8),
                   "embeddings.LayerNorm.weight": (8,), "embeddings.LayerNorm.bias": (8,)}
        header, blobs, at = {}, [], 0
        for name, shape in tensors.items():
            blob = rng.standard_normal(shape, dtype=np.float32).tobytes()
            header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [at, at + len(blob)]}
            blobs.append(blob)
            at += len(blob)
        text = json.dumps(header).encode()
        text += b" " * (-len(text) % 8)
        (d / "model.safetensors").write_bytes(len(text).to_bytes(8, "little") + text + b"".join(blobs))
        self.same_as_cli(TEXTS, {"seq_len": 24}, emit=["all"], pairs=TEXTS[::-1], pretrained=str(d))

    def test_threads_give_the_same_bytes(self):
        many = TEXTS * 40
        one = embedpe.Encoder(d_model=48, threads=1).encode(many)
        four = embedpe.Encoder(d_model=48, threads=4).encode(many)
        self.assertSameArrays(four, one)

    def test_two_python_threads_at_once(self):
        enc = embedpe.Encoder(d_model=32, threads=2)
        want = enc.encode(TEXTS * 30)
        results = [None, None]

        def work(i):
            results[i] = enc.encode(TEXTS * 30)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for r in results:
            self.assertSameArrays(r, want)

    def test_tokenize(self):
        enc = embedpe.Encoder(model=str(SP_TEST), seq_len=12, padding_side="left")
        got = enc.tokenize(TEXTS)
        want = self.cli_npz("tokenize", TEXTS, ["--model", str(SP_TEST), "--seq-len", "12", "--padding-side", "left"])
        self.assertSameArrays(got, want)
        pairs = embedpe.Encoder(pretrained=self.pretrained()).tokenize(TEXTS, ["x", "y", "z"])
        self.assertSameArrays(pairs, self.cli_npz("tokenize", TEXTS, ["--pretrained", self.pretrained()],
                                                  pairs=["x", "y", "z"]))

    def test_decode(self):
        enc = embedpe.Encoder(model=str(SP_TEST))
        out = enc.encode(TEXTS, emit=["input_ids", "attention_mask"])
        npz = self.tmp / "ids.npz"
        np.savez(npz, input_ids=out["input_ids"], attention_mask=out["attention_mask"])
        want = self.ok("decode", "--model", str(SP_TEST), str(npz)).stdout.decode().split("\n")[:-1]
        self.assertEqual(enc.decode(out), want)
        self.assertEqual(enc.decode(out["input_ids"], out["attention_mask"]), want)
        self.assertEqual(enc.decode(out["input_ids"][0][out["attention_mask"][0] == 1].tolist()), want[0])

    def test_pe(self):
        for kind, options in [("sinusoidal", {"d_model": 16, "max_len": 9}),
                              ("rope", {"d_model": 8, "max_len": 5, "rope_theta": 10000.0}),
                              ("alibi", {"heads": 4, "max_len": 6})]:
            with self.subTest(kind=kind):
                got = embedpe.pe(kind, **options)
                out = self.tmp / "pe.npy"
                self.ok("pe", "--kind", kind, *flags(options), "-o", str(out))
                want = np.load(out)
                self.assertEqual((got.dtype, got.shape), (want.dtype, want.shape))
                self.assertEqual(got.tobytes(), want.tobytes())


class ErrorTests(Case):
    """Python exceptions with the CLI's line, keywords spelled as keywords; never a crash."""

    def cli_line(self, *args):
        r = run(*args)
        self.assertNotEqual(r.returncode, 0)
        return r.stderr.decode().strip().removeprefix("embedpe: ")

    def test_bad_values_are_value_errors(self):
        with self.assertRaises(ValueError) as e:
            embedpe.Encoder(d_model=0)
        self.assertIn("d_model", str(e.exception))
        self.assertNotIn("--", str(e.exception))
        with self.assertRaises(ValueError) as e:
            embedpe.Encoder(pe="nope")
        self.assertIn("nope", str(e.exception))
        with self.assertRaises(ValueError):
            embedpe.Encoder(padding_side="middle")
        with self.assertRaises(ValueError):
            embedpe.Encoder(train=True)  # needs an explicit seed
        with self.assertRaises(ValueError):
            embedpe.pe("sinusoidal", d_model=-3)

    def test_library_message_is_the_clis_with_keywords(self):
        """A library message names parameters: the keyword spelling, where the CLI says --flags."""
        with self.assertRaises(ValueError) as e:
            embedpe.Encoder(d_model=64, pe="rope", rope_dim=128).encode("x", emit=["rope_cos"])
        cli = self.cli_line("encode", "--text", "x", "--d-model", "64", "--pe", "rope", "--rope-dim", "128",
                            "--emit", "rope_cos", "-o", str(self.tmp / "x.npz"))
        self.assertEqual(str(e.exception), re.sub(r"--([a-z-]+)", lambda m: m.group(1).replace("-", "_"), cli))

    def test_bf16_is_refused_as_for_npz(self):
        with self.assertRaises(ValueError) as e:
            embedpe.Encoder(dtype="bf16")
        self.assertIn("bfloat16", str(e.exception))

    def test_files(self):
        with self.assertRaises(FileNotFoundError):
            embedpe.Encoder(model=str(self.tmp / "missing.model"))
        with self.assertRaises(FileNotFoundError):
            embedpe.Encoder(weights=str(self.tmp / "missing.npy"))
        with self.assertRaises(FileNotFoundError):
            embedpe.Encoder(str(self.tmp / "missing-dir"))
        bad = self.tmp / "bad.model"
        bad.write_bytes(b"not a model")
        with self.assertRaises(OSError):
            embedpe.Encoder(model=str(bad))

    def test_types(self):
        enc = embedpe.Encoder(d_model=8)
        with self.assertRaises(TypeError):
            enc.encode(b"bytes is not str")
        with self.assertRaises(TypeError):
            enc.encode(["ok", b"no"])
        with self.assertRaises(TypeError):
            enc.encode(["ok", 3])
        with self.assertRaises(TypeError) as e:
            embedpe.Encoder(d_modle=8)
        self.assertIn("d_modle", str(e.exception))
        with self.assertRaises(TypeError):
            embedpe.Encoder(output="x.npz")  # where the tensors go is the call's
        with self.assertRaises(TypeError):
            embedpe.Encoder(text="x")  # and the texts
        with self.assertRaises(ValueError):
            embedpe.Encoder(d_model=64, pe="none", rope_theta=500000.0)  # the .npz's tensors: rope_theta unused
        with self.assertRaises(TypeError):
            embedpe.Encoder(d_model=True)
        with self.assertRaises(TypeError):
            embedpe.Encoder(no_bos=1)
        with self.assertRaises(ValueError):
            enc.encode([])
        with self.assertRaises(ValueError):
            enc.encode(["a", "b"], text_pair=["one"])
        with self.assertRaises(ValueError):
            enc.encode("x", emit=["nope"])
        with self.assertRaises(ValueError):
            enc.decode([[1, 2, 10 ** 12]])
        with self.assertRaises(ValueError):
            enc.decode([[1, 2, 99999]])
        with self.assertRaises(TypeError):
            enc.decode([[1.5, 2]])  # not id 1: a float is refused, not truncated
        with self.assertRaises(ValueError):
            enc.decode(np.array([[2 ** 63]], dtype=np.uint64))  # not wrapped to a negative id
        with self.assertRaises(TypeError):
            enc.decode([[1, 2], [3]])
        with self.assertRaises(TypeError):
            enc.encode("a", text_pair=["b"])
        with self.assertRaises(TypeError):
            enc.encode(["a"], text_pair="b")
        with self.assertRaises(UnicodeEncodeError):
            enc.encode("lone \ud800 surrogate")


class ArrayTests(Case):
    """The arrays hold the computed buffer: one capsule owns it, nothing is copied."""

    def test_arrays_are_views_of_one_buffer(self):
        out = embedpe.Encoder(d_model=16, dtype="f16").encode(TEXTS, emit=["all"])
        for name, a in out.items():
            with self.subTest(name=name):
                self.assertFalse(a.flags.owndata)
                self.assertTrue(a.flags.c_contiguous and a.flags.writeable)
                self.assertEqual(type(a.base).__name__, "PyCapsule")
        a = out["output"]
        del out
        a[0, 0, 0] = 1.5  # still alive, and writable
        self.assertEqual(a[0, 0, 0], 1.5)

    def test_help_and_repr(self):
        doc = embedpe.Encoder.__doc__
        for option in ("d_model", "seq_len", "padding_side", "pe", "rope_theta", "threads", "dtype"):
            self.assertIn(f"    {option}=", doc)
        self.assertIn("(default: f32)", doc)
        r = repr(embedpe.Encoder(d_model=16, pe="none"))
        self.assertIn("d_model=16", r)
        self.assertIn("vocab", r)
        self.assertIn("pe none", r)
        self.assertIn("embedded default", r)

    def test_the_module_tested_is_the_one_meant(self):
        """From MODULE_DIR; under tests/python_asan_test.sh, an ASan-instrumented build with the runtime loaded."""
        self.assertEqual(pathlib.Path(embedpe.__file__).parent.resolve(), pathlib.Path(MODULE_DIR).resolve())
        if ASAN:
            self.assertIn(b"__asan_init", pathlib.Path(embedpe.__file__).read_bytes())
            self.assertIn("asan", PRELOAD or "")

    def test_version_is_the_clis(self):
        cli = self.ok("--version").stdout.decode().split("\n")[0]
        self.assertEqual(cli, f"embedpe {embedpe.__version__}")


class ReadmeTests(Case):
    """The README's Python example runs as it is written."""

    def test_readme_example(self):
        readme = (HERE.parent / "README.md").read_text(encoding="utf-8")
        m = re.search(r"<!-- python example -->\s*```python\n(.*?)```", readme, re.S)
        self.assertIsNotNone(m, "README.md has no Python example")
        code = m.group(1)
        self.assertLessEqual(len(code.strip().split("\n")), 5)
        env = dict(os.environ, PYTHONPATH=MODULE_DIR)
        if PRELOAD:
            env["LD_PRELOAD"] = PRELOAD
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env, cwd=self.tmp, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.assertTrue(r.stdout.strip())


if __name__ == "__main__":
    unittest.main()
