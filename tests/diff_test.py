"""embedpe diff (issue 31, item 1): two outputs compared as numpy.allclose
would. Every figure the tool reports is computed here again with NumPy, on
arrays written by numpy.save / numpy.savez / a .safetensors writer and by
embedpe itself, and asserted against it; exit statuses as cmp's and diff's
(0 same, 1 different, 2 trouble).
"""
import json
import unittest

import numpy as np
import sentencepiece as spm

from cli_test import CliCase, HERE, run, write_safetensors

DEFAULT_MODEL = HERE.parent / "data" / "default.model"


def keys(x, dtype):
    """Floats as integers ordered like the floats (units in the last place apart)."""
    bits = {np.float32: np.int32, np.float16: np.int16, np.float64: np.int64}[dtype]
    i = np.asarray(x, dtype).view(bits).astype(np.int64)
    sign = np.int64(np.iinfo(bits).min)
    return np.where(i < 0, -(i & ~sign), i)


def expected(a, b, atol=1e-8, rtol=1e-5, equal_nan=False, keep=None, ulp_dtype=np.float32):
    """The report's figures for A against B, from NumPy."""
    a64, b64 = np.asarray(a, np.float64), np.asarray(b, np.float64)
    keep = np.ones(a64.shape, bool) if keep is None else np.broadcast_to(
        keep.reshape(keep.shape + (1,) * (a64.ndim - keep.ndim)) != 0, a64.shape)
    nan = np.isnan(a64) | np.isnan(b64)
    close = np.isclose(a64, b64, rtol=rtol, atol=atol, equal_nan=equal_nan)
    numeric = keep & ~nan
    with np.errstate(invalid="ignore", divide="ignore"):
        err = np.where(a64 == b64, 0.0, np.abs(a64 - b64))
        rel = np.where(err == 0, 0.0, np.where((b64 == 0) | ~np.isfinite(err), np.inf, err / np.abs(b64)))
    out = {"compared": int(keep.sum()), "nan": int((nan & keep).sum()), "beyond": int((~close & keep).sum())}
    out["max_abs"] = float(err[numeric].max()) if numeric.any() else 0.0
    out["max_rel"] = float(rel[numeric].max()) if numeric.any() else 0.0
    out["mean_abs"] = float(err[numeric].mean()) if numeric.any() else 0.0
    moved = numeric & (err != 0)
    out["max_ulp"] = float(np.abs(keys(a64, ulp_dtype) - keys(b64, ulp_dtype))[moved].max()) if moved.any() else 0.0
    finite = numeric & np.isfinite(a64) & np.isfinite(b64)
    fa, fb = np.where(finite, a64, 0), np.where(finite, b64, 0)

    def cosine(dot, na, nb):
        if na == 0 and nb == 0:
            return 1.0
        if na == 0 or nb == 0:
            return 0.0
        return dot / (np.sqrt(na) * np.sqrt(nb))

    out["cosine"] = cosine((fa * fb).sum(), (fa * fa).sum(), (fb * fb).sum())
    rows = a64.shape[:-1]
    cos = np.full(rows, 2.0)
    for r in np.ndindex(*rows):
        if finite[r].any():
            cos[r] = cosine((fa[r] * fb[r]).sum(), (fa[r] ** 2).sum(), (fb[r] ** 2).sum())
    out["worst_row_cosine"] = float(cos.min())
    out["row_cosines"] = cos
    bad = (~close & keep).ravel()
    out["first"] = list(np.unravel_index(int(np.argmax(bad)), a64.shape)) if bad.any() else None
    ranked = np.where(numeric, err, -1).ravel()
    out["worst"] = list(np.unravel_index(int(np.argmax(ranked)), a64.shape)) if out["max_abs"] > 0 else None
    return out


def noisy_pair(seed=0, shape=(2, 5, 16)):
    """A float32 tensor and a copy with float32 rounding noise and three outliers."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape).astype(np.float32)
    b = (a + rng.standard_normal(shape).astype(np.float32) * np.float32(1e-7)).astype(np.float32)
    b[0, 1, 3] += np.float32(0.25)
    b[1, 4, 15] -= np.float32(0.5)
    b[1, 0, 0] = np.float32(0.0)
    return a, b


class DiffCase(CliCase):
    def diff(self, *args, status=None):
        r = run("diff", *map(str, args))
        if status is not None:
            self.assertEqual(r.returncode, status, r.stderr.decode())
            self.assertEqual(r.stderr, b"")
        return r

    def report(self, *args, status=None):
        r = self.diff(*args, "--format", "json", status=status)
        return json.loads(r.stdout)

    def assert_figures(self, got, want):
        for k in ("compared", "nan", "beyond", "max_abs", "max_rel", "max_ulp"):
            self.assertEqual(got[k], want[k] if not np.isinf(want[k]) else "inf", k)
        for k in ("mean_abs", "cosine", "worst_row_cosine"):
            if np.isinf(want[k]):
                self.assertEqual(got[k], "inf", k)
            else:
                self.assertAlmostEqual(got[k], want[k], delta=1e-12 * max(1.0, abs(want[k])), msg=k)
        # The worst row: one whose cosine is the least (rows a rounding apart tie).
        self.assertAlmostEqual(want["row_cosines"][tuple(got["worst_row"])], want["worst_row_cosine"], delta=1e-12)
        self.assertEqual(got["first"]["index"] if got["first"] else None, want["first"])
        self.assertEqual(got["worst"]["index"] if got["worst"] else None, want["worst"])
        self.assertAlmostEqual(got["beyond_fraction"], want["beyond"] / want["compared"])


class DiffFiguresTests(DiffCase):
    def test_npy_pair_every_figure_equals_numpy(self):
        a, b = noisy_pair()
        np.save(self.tmp / "a.npy", a)
        np.save(self.tmp / "b.npy", b)
        rep = self.report(self.tmp / "a.npy", self.tmp / "b.npy", status=1)
        self.assertFalse(rep["same"])
        (t,) = rep["tensors"]
        self.assertEqual((t["a"], t["b"], t["shape_a"], t["dtype_a"]), ("a", "b", [2, 5, 16], "float32"))
        want = expected(a, b)
        self.assertGreaterEqual(want["beyond"], 3)
        self.assert_figures(t, want)
        self.assertEqual(t["max_rel"], "inf")  # b[1, 0, 0] is 0
        self.assertEqual(t["first"]["a"], float(a[tuple(want["first"])]))
        self.assertEqual(t["worst"]["b"], float(b[tuple(want["worst"])]))

    def test_tolerances_follow_numpy_allclose(self):
        a, b = noisy_pair(seed=1)
        np.savez(self.tmp / "a.npz", x=a)
        np.savez(self.tmp / "b.npz", x=b)
        for atol, rtol in ((0.0, 0.0), (1e-6, 0.0), (0.0, 1e-5), (0.3, 0.0), (0.6, 0.0), (1.0, 1.0)):
            with self.subTest(atol=atol, rtol=rtol):
                close = np.allclose(a.astype(np.float64), b.astype(np.float64), rtol=rtol, atol=atol)
                rep = self.report(self.tmp / "a.npz", self.tmp / "b.npz", "--atol", atol, "--rtol", rtol,
                                  status=0 if close else 1)
                self.assert_figures(rep["tensors"][0], expected(a, b, atol=atol, rtol=rtol))
                self.assertEqual((rep["atol"], rep["rtol"]), (atol, rtol))

    def test_defaults_are_numpys(self):
        a, _ = noisy_pair()
        b = (a * np.float32(1 + 5e-6)).astype(np.float32)  # within rtol 1e-5
        np.save(self.tmp / "a.npy", a)
        np.save(self.tmp / "b.npy", b)
        self.assertTrue(np.allclose(a, b))
        rep = self.report(self.tmp / "a.npy", self.tmp / "b.npy", status=0)
        self.assertEqual((rep["atol"], rep["rtol"], rep["equal_nan"]), (1e-8, 1e-5, False))
        self.assert_figures(rep["tensors"][0], expected(a, b))
        c = (a * np.float32(1 + 5e-5)).astype(np.float32)
        np.save(self.tmp / "c.npy", c)
        self.assertFalse(np.allclose(c, a))
        self.diff(self.tmp / "c.npy", self.tmp / "a.npy", status=1)

    def test_nan_and_infinity_as_equal_nan_says(self):
        a, b = noisy_pair(seed=2)
        a[0, 0, 0] = b[0, 0, 0] = np.nan
        a[0, 0, 1] = np.nan
        a[0, 0, 2] = b[0, 0, 2] = np.inf
        a[0, 0, 4] = np.inf
        b = b.copy()
        b[1, 4, 15] = a[1, 4, 15]
        b[0, 1, 3] = a[0, 1, 3]
        b[1, 0, 0] = a[1, 0, 0]
        np.savez(self.tmp / "a.npz", x=a)
        np.savez(self.tmp / "b.npz", x=b)
        for equal_nan in (False, True):
            with self.subTest(equal_nan=equal_nan):
                flags = ["--equal-nan"] if equal_nan else []
                rep = self.report(self.tmp / "a.npz", self.tmp / "b.npz", *flags, status=1)
                want = expected(a, b, equal_nan=equal_nan)
                self.assert_figures(rep["tensors"][0], want)
                self.assertEqual(rep["tensors"][0]["nan"], 2)
        # Only the NaN in both: the same with --equal-nan, different without.
        c = a.copy()
        np.savez(self.tmp / "c.npz", x=c)
        self.assertTrue(np.allclose(a, c, equal_nan=True))
        self.diff(self.tmp / "a.npz", self.tmp / "c.npz", "--equal-nan", status=0)
        self.diff(self.tmp / "a.npz", self.tmp / "c.npz", status=1)

    def test_ulp_distance_in_the_less_precise_dtype(self):
        a, b = noisy_pair(seed=3)
        h = b.astype(np.float16)
        write_safetensors(self.tmp / "a.safetensors", {"x": ("F32", a)})
        write_safetensors(self.tmp / "h.safetensors", {"x": ("F16", h)})
        rep = self.report(self.tmp / "a.safetensors", self.tmp / "h.safetensors", "--atol", "1", status=1)
        t = rep["tensors"][0]
        self.assertTrue(t["dtype_differs"])
        self.assertEqual((t["dtype_a"], t["dtype_b"]), ("float32", "float16"))
        self.assert_figures(t, expected(a, h, atol=1, ulp_dtype=np.float16))
        # float64 against float64: units in the last place of float64.
        a64, b64 = a.astype(np.float64), (a.astype(np.float64) * (1 + 1e-15))
        np.save(self.tmp / "a64.npy", a64)
        np.save(self.tmp / "b64.npy", b64)
        rep = self.report(self.tmp / "a64.npy", self.tmp / "b64.npy", status=0)
        self.assert_figures(rep["tensors"][0], expected(a64, b64, ulp_dtype=np.float64))

    def test_identical_files_report_zeros_and_exit_0(self):
        a, _ = noisy_pair()
        np.save(self.tmp / "a.npy", a)
        rep = self.report(self.tmp / "a.npy", self.tmp / "a.npy", status=0)
        t = rep["tensors"][0]
        self.assertTrue(rep["same"])
        self.assertEqual((t["max_abs"], t["max_ulp"], t["beyond"], t["first"], t["worst"]), (0, 0, 0, None, None))
        self.assertAlmostEqual(t["cosine"], 1.0, delta=1e-12)

    def test_result_does_not_depend_on_threads(self):
        a, b = noisy_pair(shape=(4, 64, 512))
        np.save(self.tmp / "a.npy", a)
        np.save(self.tmp / "b.npy", b)
        one = self.diff(self.tmp / "a.npy", self.tmp / "b.npy", "--format", "json", "--threads", "1").stdout
        two = self.diff(self.tmp / "a.npy", self.tmp / "b.npy", "--format", "json", "--threads", "2").stdout
        self.assertEqual(one, two)
        self.assert_figures(json.loads(one)["tensors"][0], expected(a, b))


class DiffPairingTests(DiffCase):
    def test_names_pair_and_unpaired_names_are_differences(self):
        a, b = noisy_pair()
        ids = np.arange(10, dtype=np.int64).reshape(2, 5)
        np.savez(self.tmp / "a.npz", output=a, input_ids=ids, extra=a[0])
        write_safetensors(self.tmp / "b.safetensors", {"output": ("F32", a), "input_ids": ("I64", ids),
                                                        "other": ("F32", b)})
        rep = self.report(self.tmp / "a.npz", self.tmp / "b.safetensors", status=1)
        self.assertEqual(sorted(t["a"] for t in rep["tensors"]), ["input_ids", "output"])
        self.assertTrue(all(t["same"] for t in rep["tensors"]))
        self.assertEqual((rep["only_in_a"], rep["only_in_b"]), (["extra"], ["other"]))
        # --tensor picks one: then the rest does not count.
        rep = self.report(self.tmp / "a.npz", self.tmp / "b.safetensors", "--tensor", "output", status=0)
        self.assertEqual([t["a"] for t in rep["tensors"]], ["output"])
        # A_NAME=B_NAME pairs different names.
        rep = self.report(self.tmp / "a.npz", self.tmp / "b.safetensors", "output=other", status=1)
        (t,) = rep["tensors"]
        self.assertEqual((t["a"], t["b"]), ("output", "other"))
        self.assert_figures(t, expected(a, b))
        # Each first divergence names its token: input_ids at [batch, position].
        self.assertEqual(t["first"]["token_id"], int(ids[tuple(t["first"]["index"][:2])]))
        self.assertEqual(t["worst"]["token_id"], int(ids[tuple(t["worst"]["index"][:2])]))

    def test_npy_dump_against_embedpe_output(self):
        out = self.tmp / "out.npz"
        self.ok("encode", "--text", "Hello world", "--text", "a b", "--d-model", "16", "-o", str(out))
        ours = np.load(out)
        np.save(self.tmp / "hidden_states_0.npy", ours["output"] * np.float32(1.0000001))
        rep = self.report(out, self.tmp / "hidden_states_0.npy", "output=hidden_states_0", status=0)
        self.assert_figures(rep["tensors"][0], expected(ours["output"], ours["output"] * np.float32(1.0000001)))

    def test_shape_mismatch_is_a_difference(self):
        np.save(self.tmp / "a.npy", np.zeros((2, 3), np.float32))
        np.save(self.tmp / "b.npy", np.zeros((2, 4), np.float32))
        rep = self.report(self.tmp / "a.npy", self.tmp / "b.npy", status=1)
        t = rep["tensors"][0]
        self.assertTrue(t["shape_differs"])
        self.assertEqual((t["shape_a"], t["shape_b"]), ([2, 3], [2, 4]))
        text = self.diff(self.tmp / "a.npy", self.tmp / "b.npy", status=1).stdout.decode()
        self.assertIn("shapes differ", text)


class DiffEmbedpeOutputsTests(DiffCase):
    TEXTS = ("Hello world", "The quick brown fox jumps over the lazy dog", "a")

    def encode(self, name, *args):
        path = self.tmp / name
        texts = [x for t in self.TEXTS for x in ("--text", t)]
        self.ok("encode", *texts, "--d-model", "16", "--emit", "input_ids,attention_mask,output", *args,
                "-o", str(path))
        return path

    def test_every_format_of_one_run_is_the_same(self):
        npz = self.encode("o.npz", "--seq-len", "12")
        want = np.load(npz)
        others = [self.encode("o.json", "--seq-len", "12"), self.encode("o.jsonl", "--seq-len", "12"),
                  self.encode("o.safetensors", "--seq-len", "12")]
        for other in others:
            with self.subTest(other.suffix):
                rep = self.report(npz, other, status=0)
                self.assertEqual(sorted(t["a"] for t in rep["tensors"]), ["attention_mask", "input_ids", "output"])
                out = next(t for t in rep["tensors"] if t["a"] == "output")
                self.assertEqual(out["shape_b"], list(want["output"].shape))
                self.assertLessEqual(out["max_abs"], 1e-6)

    def test_parts_directory_against_one_file(self):
        npz = self.encode("o.npz", "--seq-len", "12")
        parts = self.tmp / "parts"
        texts = self.tmp / "in.txt"
        texts.write_text("\n".join(self.TEXTS) + "\n")
        self.ok("encode", "--input", str(texts), "--d-model", "16", "--seq-len", "12",
                "--emit", "input_ids,attention_mask,output", "--output-dir", str(parts), "--shard-rows", "2")
        self.assertTrue((parts / "part-00001.npz").exists())
        rep = self.report(parts, npz, status=0)
        out = next(t for t in rep["tensors"] if t["a"] == "output")
        self.assertEqual(out["shape_a"], [3, 12, 16])
        self.assertEqual(out["max_abs"], 0)

    def test_ignore_padding_and_token_pieces(self):
        npz = self.encode("o.npz")
        got = np.load(npz)
        mask, ids = got["attention_mask"], got["input_ids"]
        self.assertFalse(mask.all())
        changed = got["output"].copy()
        changed[mask == 0] += np.float32(1.0)  # only the padding
        np.savez(self.tmp / "pad.npz", output=changed, input_ids=ids, attention_mask=mask)
        rep = self.report(npz, self.tmp / "pad.npz", status=1)
        out = next(t for t in rep["tensors"] if t["a"] == "output")
        self.assert_figures(out, expected(got["output"], changed))
        b, p = out["first"]["index"][:2]
        self.assertEqual(out["first"]["token_id"], int(ids[b, p]))
        rep = self.report(npz, self.tmp / "pad.npz", "--ignore-padding", status=0)
        out = next(t for t in rep["tensors"] if t["a"] == "output")
        self.assert_figures(out, expected(got["output"], changed, keep=mask))
        self.assertEqual(out["compared"], int(mask.sum()) * 16)
        # A real difference under a token, with the model: its piece too.
        changed[0, 1, 2] += np.float32(1.0)
        np.savez(self.tmp / "tok.npz", output=changed, input_ids=ids, attention_mask=mask)
        sp = spm.SentencePieceProcessor(model_file=str(DEFAULT_MODEL))
        rep = self.report(npz, self.tmp / "tok.npz", "--ignore-padding", "--model", DEFAULT_MODEL, status=1)
        out = next(t for t in rep["tensors"] if t["a"] == "output")
        self.assertEqual(out["first"]["index"], [0, 1, 2])
        self.assertEqual(out["first"]["token_id"], int(ids[0, 1]))
        self.assertEqual(out["first"]["piece"], sp.id_to_piece(int(ids[0, 1])))
        text = self.diff(npz, self.tmp / "tok.npz", "--ignore-padding", "--model", DEFAULT_MODEL,
                         status=1).stdout.decode()
        self.assertIn(f"[0, 1, 2] id {int(ids[0, 1])} '{sp.id_to_piece(int(ids[0, 1]))}'", text)

    def test_float16_against_float32_is_a_dtype_difference(self):
        f32 = self.encode("f.npz", "--seq-len", "12")
        f16 = self.encode("h.npz", "--seq-len", "12", "--dtype", "f16")
        rep = self.report(f32, f16, "--tensor", "output", "--rtol", "1e-2", "--atol", "1e-2", status=1)
        t = rep["tensors"][0]
        self.assertTrue(t["dtype_differs"])
        self.assertEqual(t["beyond"], 0)
        self.assert_figures(t, expected(np.load(f32)["output"], np.load(f16)["output"], atol=1e-2, rtol=1e-2,
                                        ulp_dtype=np.float16))

    def test_every_integer_and_bool_dtype_is_read_and_named(self):
        """issue 46: diff reads through DType; int32, int16, uint8 and bool are named as NumPy names them."""
        base = np.arange(-6, 6).reshape(3, 4)
        for dtype, name, descr in ((np.int32, "int32", "I32"), (np.int16, "int16", "I16"),
                                   (np.uint8, "uint8", "U8"), (np.bool_, "bool", "BOOL")):
            with self.subTest(name):
                a = (base > 0) if dtype is np.bool_ else np.abs(base).astype(dtype)
                b = a.copy()
                b[1, 2] = not b[1, 2] if dtype is np.bool_ else b[1, 2] + 1
                np.save(self.tmp / "a.npy", a)
                write_safetensors(self.tmp / "b.safetensors", {"a": (descr, b)})
                t = self.report(self.tmp / "a.npy", self.tmp / "b.safetensors", status=1)["tensors"][0]
                self.assertEqual((t["dtype_a"], t["dtype_b"], t["dtype_differs"]), (name, name, False))
                self.assertEqual((t["beyond"], t["first"]["index"], t["max_ulp"]), (1, [1, 2], 1))

    def test_parts_directory_manifest_is_read_by_the_one_parser(self):
        """issue 46: a parts directory's manifest goes through load_manifest, which checks every key."""
        parts = self.tmp / "parts"
        texts = self.tmp / "in.txt"
        texts.write_text("\n".join(self.TEXTS) + "\n")
        self.ok("encode", "--input", str(texts), "--d-model", "16", "--seq-len", "12",
                "--emit", "input_ids,attention_mask,output", "--output-dir", str(parts), "--shard-rows", "2")
        manifest = json.loads((parts / "manifest.json").read_text())
        del manifest["embedpe_version"]
        (parts / "manifest.json").write_text(json.dumps(manifest))
        self.fails(2, "is not a valid embedpe manifest (the document has no \"embedpe_version\")",
                   "diff", str(parts), str(parts))

    def test_a_json_dtype_that_is_not_one_is_refused(self):
        (self.tmp / "a.json").write_text('{"output": [[1, 2], [3, 4]], "dtypes": {"output": "wibble"}}')
        (self.tmp / "b.json").write_text('{"output": [[1, 2], [3, 4]], "dtypes": {"output": "float32"}}')
        self.fails(2, "its dtypes give output as wibble, which is not a dtype",
                   "diff", str(self.tmp / "a.json"), str(self.tmp / "b.json"))


class DiffCommandTests(DiffCase):
    def test_text_table_has_a_line_per_tensor(self):
        a, b = noisy_pair()
        np.savez(self.tmp / "a.npz", x=a, y=a)
        np.savez(self.tmp / "b.npz", x=b, y=a)
        lines = self.diff(self.tmp / "a.npz", self.tmp / "b.npz", status=1).stdout.decode().splitlines()
        self.assertEqual(len(lines), 4)
        self.assertTrue(lines[0].startswith("tensor"))
        self.assertTrue(lines[1].startswith("x ") and lines[2].startswith("y "))
        self.assertIn("1 of 2 tensors differ (atol 1e-08, rtol 1e-05)", lines[3])

    def test_trouble_exits_2_with_one_line(self):
        np.save(self.tmp / "a.npy", np.zeros(3, np.float32))
        (self.tmp / "bad.npy").write_bytes(b"not an npy file")
        (self.tmp / "x.txt").write_text("1 2 3\n")
        cases = [((self.tmp / "a.npy", self.tmp / "missing.npy"), "missing.npy"),
                 ((self.tmp / "a.npy", self.tmp / "bad.npy"), "bad.npy"),
                 ((self.tmp / "a.npy", self.tmp / "x.txt"), "diff reads .npy"),
                 ((self.tmp / "a.npy", self.tmp / "a.npy", "a=nope"), "has no tensor nope"),
                 ((self.tmp / "a.npy", self.tmp / "a.npy", "--tensor", "zz"), "has no tensor zz"),
                 ((self.tmp / "a.npy", self.tmp / "a.npy", "pair"), "A_NAME=B_NAME"),
                 ((self.tmp / "a.npy",), "A B"),
                 ((self.tmp / "a.npy", self.tmp / "a.npy", "--atol", "-1"), "--atol")]
        for args, message in cases:
            with self.subTest(message):
                self.fails(2, message, "diff", *map(str, args))

    def test_help_states_the_defaults(self):
        out = self.ok("diff", "--help").stdout.decode()
        for word in ("--atol", "1e-08", "--rtol", "1e-05", "--equal-nan", "--ignore-padding", "--tensor",
                     "A_NAME=B_NAME", "--format"):
            self.assertIn(word, out)


if __name__ == "__main__":
    unittest.main()
