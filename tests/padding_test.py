"""Ids in, and HF's padding and truncation choices (issue 13, items 6 and 7),
plus the one id parser that decode, encode --ids and --input-format ids share.

Every test runs the built binary ($EMBEDPE) and checks the exit status, the
stderr line and the output. The padding goldens (golden/padding/) come from
PyTorch in tools/make_goldens.py: HF-style left padding with
position_ids = attention_mask.cumsum(-1) - 1, and HF's truncation sides.
"""
import json
import pathlib
import unicodedata
import unittest

import numpy as np

import reference
from cli_test import GOLDEN, CliCase, read_safetensors, text_args, write_safetensors

PADDING = GOLDEN / "padding"
CASES = json.loads((PADDING / "cases.json").read_text())


class PaddingGoldenTests(CliCase):
    def encode_case(self, args):
        args = [str(GOLDEN / a) if a.startswith("padding/") else a for a in args]
        out = self.tmp / "out.npz"
        inputs = (["--input", str(GOLDEN / CASES["ids_file"])] if "ids" in args
                  else text_args(CASES["texts"]))
        self.ok("encode", *inputs, "--d-model", str(CASES["d_model"]), "--seed", str(CASES["seed"]),
                "--emit", "input_ids,attention_mask,output", *args, "-o", str(out))
        return np.load(out)

    def test_every_case_equals_the_pytorch_reference(self):
        goldens = np.load(PADDING / "goldens.npz")
        self.assertGreaterEqual(len(CASES["cases"]), 8)
        for name, args in CASES["cases"].items():
            with self.subTest(name):
                got = self.encode_case(args)
                np.testing.assert_array_equal(got["input_ids"], goldens[name + ".input_ids"])
                np.testing.assert_array_equal(got["attention_mask"], goldens[name + ".attention_mask"])
                np.testing.assert_allclose(got["output"], goldens[name + ".output"], rtol=1e-5, atol=2e-6,
                                           err_msg=name)

    def test_left_padding_keeps_positions_of_the_right_padded_row(self):
        # The same tokens get the same vectors whichever side the padding is on.
        right = self.encode_case([])
        left = self.encode_case(["--padding-side", "left"])
        mask_r, mask_l = right["attention_mask"], left["attention_mask"]
        self.assertTrue((mask_l[:, -1] == 1).all())
        self.assertFalse((mask_l == mask_r).all())
        for b in range(mask_r.shape[0]):
            np.testing.assert_array_equal(right["output"][b][mask_r[b] == 1], left["output"][b][mask_l[b] == 1])
            np.testing.assert_array_equal(right["input_ids"][b][mask_r[b] == 1], left["input_ids"][b][mask_l[b] == 1])


class PaddingFlagsTests(CliCase):
    def json_encode(self, *args):
        return json.loads(self.ok("encode", *args, "--d-model", "8", "--format", "json").stdout)

    def test_config_records_the_choices(self):
        doc = self.json_encode("--text", "a b", "--text", "a much longer sentence", "--padding-side", "left",
                               "--truncation-side", "left", "--pad-to-multiple-of", "4")
        c = doc["config"]
        self.assertEqual((c["padding_side"], c["truncation_side"], c["pad_to_multiple_of"], c["input"]),
                         ("left", "left", 4, "text"))
        self.assertEqual(c["position_ids"], "from attention_mask")
        self.assertEqual(doc["shapes"]["input_ids"][1] % 4, 0)
        default = self.json_encode("--text", "a")["config"]
        self.assertEqual((default["padding_side"], default["truncation_side"], default["pad_to_multiple_of"],
                          default["position_ids"]), ("right", "right", None, "arange"))

    def test_left_padding_puts_the_pads_first(self):
        doc = self.json_encode("--text", "a b", "--text", "a much longer sentence", "--padding-side", "left",
                               "--seq-len", "12")
        self.assertEqual(doc["attention_mask"][0][:3], [0, 0, 0])
        self.assertEqual(doc["attention_mask"][0][-1], 1)
        self.assertEqual(doc["input_ids"][0][-1], 2)  # EOS last
        self.assertEqual(doc["tokens"][0][0], "<s>")  # tokens are the real ones, in order

    def test_jsonl_records_hold_the_real_tokens_on_either_side(self):
        args = ["--text", "a b", "--text", "a much longer sentence", "--d-model", "8", "--emit", "all"]
        for side in ("right", "left"):
            with self.subTest(side):
                whole = json.loads(self.ok("encode", *args, "--padding-side", side, "--format", "json").stdout)
                lines = self.ok("encode", *args, "--padding-side", side, "--format", "jsonl").stdout.splitlines()
                for b, line in enumerate(lines):
                    rec = json.loads(line)
                    mask = np.array(whole["attention_mask"][b]) == 1
                    self.assertEqual(rec["input_ids"], np.array(whole["input_ids"][b])[mask].tolist())
                    self.assertEqual(rec["output"], np.array(whole["output"][b])[mask].tolist())
                    self.assertEqual(rec["tokens"], whole["tokens"][b])

    def test_jsonl_records_pad_to_a_multiple_alone(self):
        # Each record is what a batch of one gives, whatever it was batched with.
        texts = ["a b", "a much longer sentence", "x"]
        for side in ("right", "left"):
            with self.subTest(side):
                args = ["--d-model", "8", "--emit", "all", "--padding-side", side, "--pad-to-multiple-of", "4"]
                lines = self.ok("encode", *text_args(texts), *args, "--format", "jsonl", "--batch-size", "2")
                for text, line in zip(texts, lines.stdout.splitlines()):
                    alone = json.loads(self.ok("encode", "--text", text, *args, "--format", "json").stdout)
                    rec = json.loads(line)
                    self.assertEqual(len(rec["input_ids"]) % 4, 0)
                    for name in ("input_ids", "attention_mask", "output", "token_embeddings"):
                        self.assertEqual(rec[name], alone[name][0], name)

    def test_terminal_summary_pairs_pieces_with_their_ids(self):
        out = self.ok("encode", "--text", "a b", "--text", "a much longer sentence", "--padding-side", "left",
                      "--d-model", "8", "--format", "summary").stdout.decode()
        self.assertRegex(out, r"\[1\] <s>/1 ")
        self.assertRegex(out, r"\[0\] <s>/1 ")

    def test_truncation_left_keeps_bos_and_eos(self):
        right = self.json_encode("--text", "one two three four five six", "--seq-len", "5")
        left = self.json_encode("--text", "one two three four five six", "--seq-len", "5", "--truncation-side", "left")
        full = self.json_encode("--text", "one two three four five six")["input_ids"][0]
        self.assertEqual(right["input_ids"][0], full[:4] + [2])
        self.assertEqual(left["input_ids"][0], [1] + full[-4:])

    def test_pad_to_multiple_of(self):
        n = len(self.json_encode("--text", "hi")["input_ids"][0])  # BOS, the text's tokens, EOS
        doc = self.json_encode("--text", "hi", "--pad-to-multiple-of", "8")
        self.assertEqual(doc["shapes"]["input_ids"], [1, 8])
        self.assertEqual(sum(doc["attention_mask"][0]), n)
        doc = self.json_encode("--text", "hi", "--pad-to-multiple-of", str(n))  # already a multiple
        self.assertEqual(doc["shapes"]["input_ids"], [1, n])
        doc = self.json_encode("--text", "hi", "--pad-to-multiple-of", "4", "--seq-len", "8")
        self.assertEqual(doc["shapes"]["input_ids"], [1, 8])

    def test_tokenize_pads_as_encode_does(self):
        args = ["--text", "a b", "--text", "a much longer sentence", "--padding-side", "left",
                "--pad-to-multiple-of", "4", "--truncation-side", "left"]
        enc = self.json_encode(*args)
        tok = json.loads(self.ok("tokenize", *args).stdout)
        self.assertEqual(tok["input_ids"], enc["input_ids"])
        self.assertEqual(tok["attention_mask"], enc["attention_mask"])
        self.assertEqual(tok["config"]["padding_side"], "left")
        # A line (like a JSON Lines record) is its row alone: its tokens padded
        # up to a multiple of 4, not to the longest row it was read with.
        own = [row[len(row) + sum(mask) // -4 * 4:] for row, mask in zip(enc["input_ids"], enc["attention_mask"])]
        self.assertEqual([len(r) for r in own], [4, 8])
        lines = self.ok("tokenize", *args, "--format", "ids").stdout.decode().splitlines()
        self.assertEqual([list(map(int, l.split())) for l in lines], own)
        records = [json.loads(l) for l in self.ok("tokenize", *args, "--format", "jsonl").stdout.splitlines()]
        self.assertEqual([r["input_ids"] for r in records], own)
        pieces = self.ok("tokenize", *args, "--format", "pieces").stdout.decode().splitlines()
        self.assertEqual(pieces[1].split()[0], "<pad>")
        self.assertEqual(pieces[1].split()[-1], "</s>")
        # Without a length asked for, a line shows the real tokens only.
        plain = self.ok("tokenize", "--text", "a b", "--text", "a much longer sentence", "--padding-side", "left",
                        "--format", "ids").stdout.decode().splitlines()
        self.assertEqual(plain[0].split()[0], "1")

    def test_seq_len_not_a_multiple_is_a_usage_error(self):
        out = self.tmp / "o.npz"
        err = self.fails(2, "--seq-len 10 is not a multiple of --pad-to-multiple-of 4; give --seq-len 8 or 12",
                         "encode", "--text", "hi", "--seq-len", "10", "--pad-to-multiple-of", "4", "-o", str(out),
                         output=str(out))
        self.assertNotIn("seq_len", err)
        self.fails(2, "not a multiple of --pad-to-multiple-of", "tokenize", "--text", "hi", "--seq-len", "10",
                   "--pad-to-multiple-of", "4")

    def test_bad_values(self):
        self.fails(2, "--padding-side: must be one of right|left, not 'middle'", "encode", "--text", "hi",
                   "--padding-side", "middle")
        self.fails(2, "--truncation-side: must be one of right|left, not 'up'", "tokenize", "--text", "hi",
                   "--truncation-side", "up")
        self.fails(2, "--pad-to-multiple-of: expected a whole number from 1", "encode", "--text", "hi",
                   "--pad-to-multiple-of", "0")
        self.fails(2, "--pad-to-multiple-of: expected a whole number from 1", "encode", "--text", "hi",
                   "--pad-to-multiple-of", "-8")


class IdsInTests(CliCase):
    def test_ids_flag_skips_the_tokenizer(self):
        doc = json.loads(self.ok("encode", "--ids", "1,262,2", "--ids", "5 6", "--d-model", "8",
                                 "--format", "json").stdout)
        self.assertEqual(doc["input_ids"], [[1, 262, 2], [5, 6, 0]])
        self.assertEqual(doc["attention_mask"], [[1, 1, 1], [1, 1, 0]])
        c = doc["config"]
        self.assertEqual((c["input"], c["add_bos"], c["add_eos"]), ("ids", False, False))
        self.assertEqual(len(doc["tokens"][1]), 2)

    def test_ids_in_gives_the_same_output_as_the_text(self):
        text = json.loads(self.ok("encode", "--text", "Hello world", "--d-model", "8", "--emit", "all",
                                  "--format", "json").stdout)
        ids = ",".join(map(str, text["input_ids"][0]))
        again = json.loads(self.ok("encode", "--ids", ids, "--d-model", "8", "--emit", "all",
                                   "--format", "json").stdout)
        for name in ("input_ids", "attention_mask", "token_embeddings", "output", "tokens"):
            self.assertEqual(again[name], text[name], name)

    def test_input_format_ids_from_a_file_stdin_and_every_format(self):
        f = self.tmp / "ids.txt"
        f.write_text("1 262 2\n1,7,8,2\n")
        want = json.loads(self.ok("encode", "--input-format", "ids", str(f), "--d-model", "8",
                                  "--format", "json").stdout)
        self.assertEqual(want["input_ids"], [[1, 262, 2, 0], [1, 7, 8, 2]])
        piped = json.loads(self.ok("encode", "--input-format", "ids", "--d-model", "8", "--format", "json",
                                   stdin=f.read_bytes()).stdout)
        self.assertEqual(piped["output"], want["output"])
        # The documented formula in NumPy (reference.py) at the ids given, where the mask is 1.
        ids, mask = np.array(want["input_ids"]), np.array(want["attention_mask"]) == 1
        output = np.array(want["output"], dtype=np.float32)
        np.testing.assert_allclose(output[mask], reference.input_layer(ids, 8, seed=0)[mask], rtol=1e-6, atol=1e-6)
        for fmt in ("npz", "safetensors", "jsonl", "npy"):
            out = self.tmp / f"o.{fmt}"
            self.ok("encode", "--input-format", "ids", str(f), "--d-model", "8", "--seq-len", "4", "-o", str(out))
            if fmt == "npz":
                got = np.load(out)["output"]
            elif fmt == "npy":
                got = np.load(out)
            elif fmt == "safetensors":
                got = read_safetensors(out)[0]["output"]
            else:
                recs = [json.loads(line) for line in out.read_text().splitlines()]
                self.assertEqual([r["input_ids"] for r in recs], want["input_ids"])  # padded to --seq-len
                got = np.array([r["output"] for r in recs], dtype=np.float32)
            np.testing.assert_array_equal(got, output, err_msg=fmt)
        out = self.tmp / "o.npz"
        self.ok("encode", "--input-format", "ids", str(f), "--d-model", "8", "-o", str(out))
        np.testing.assert_array_equal(np.load(out)["output"], np.array(want["output"], dtype=np.float32))
        parts = self.tmp / "parts"
        self.ok("encode", "--input-format", "ids", str(f), "--d-model", "8", "--seq-len", "4", "--output-dir",
                str(parts), "--shard-rows", "1", "-q")
        self.assertEqual(np.load(parts / "part-00001.npz")["input_ids"].tolist(), [[1, 7, 8, 2]])
        shard = json.loads(self.ok("encode", "--input-format", "ids", str(f), "--d-model", "8", "--shard", "2/2",
                                   "--format", "json").stdout)
        self.assertEqual(shard["input_ids"], [[1, 7, 8, 2]])

    def test_tokenize_takes_ids_too(self):
        f = self.tmp / "ids.txt"
        f.write_text("1 262 2\n")
        doc = json.loads(self.ok("tokenize", "--input-format", "ids", str(f), "--seq-len", "5").stdout)
        self.assertEqual(doc["input_ids"], [[1, 262, 2, 0, 0]])
        self.assertEqual(doc["config"]["input"], "ids")

    def test_truncation_of_ids_cuts_them_as_given(self):
        doc = json.loads(self.ok("encode", "--ids", "1,5,6,7,2", "--seq-len", "3", "--truncation-side", "left",
                                 "--d-model", "8", "--format", "json").stdout)
        self.assertEqual(doc["input_ids"], [[6, 7, 2]])

    def test_an_id_outside_the_vocabulary_names_the_line(self):
        f = self.tmp / "ids.txt"
        f.write_text("1 2\n1 8000 2\n")
        out = self.tmp / "o.npz"
        self.fails(1, "ids.txt:2: id 8000 is outside the vocabulary of model embedded default (0 to 7999)",
                   "encode", "--input-format", "ids", str(f), "-o", str(out), output=str(out))
        # An --ids value is a command-line value: outside the vocabulary is a usage error, in every command.
        for command in ("encode", "tokenize", "decode"):
            with self.subTest(command):
                self.fails(2, "--ids 2: id 8000 is outside the vocabulary of model embedded default (0 to 7999)",
                           command, "--ids", "1", "--ids", "8000")

    def test_bad_id_lines_are_data_errors(self):
        f = self.tmp / "ids.txt"
        for line, message in (("1,,2", "ids.txt:1: an empty id between commas"),
                              ("+5", "ids.txt:1: expected ids"),
                              ("1 -3", "ids.txt:1: expected ids"),
                              ("1 x", "ids.txt:1: expected ids"),
                              ("1,2,", "an empty id between commas"),
                              ("2147483648", "not '2147483648'")):
            with self.subTest(line):
                f.write_text(line + "\n")
                self.fails(1, message, "encode", "--input-format", "ids", str(f), "--format", "json")
                self.fails(1, message, "tokenize", "--input-format", "ids", str(f))
                self.fails(1, message, "decode", str(f))

    def test_bad_ids_flags_are_usage_errors(self):
        for cmd in ("encode", "tokenize", "decode"):
            for value, message in (("1,,2", "--ids: an empty id between commas in '1,,2'"),
                                   ("+5", "--ids: expected ids"),
                                   ("", "--ids: expected ids such as 1,262,2, not an empty value")):
                with self.subTest(cmd=cmd, value=value):
                    err = self.fails(2, message, cmd, "--ids", value)
                    self.assertRegex(err, rf"^embedpe {cmd}: ")

    def test_ids_with_text_or_jsonl_is_refused(self):
        self.fails(2, "--ids", "encode", "--ids", "1", "--text", "hi")
        self.fails(2, "--ids gives ids, not JSON Lines", "encode", "--ids", "1", "--input-format", "jsonl")


class DecodeInputsTests(CliCase):
    def test_int32_safetensors_ids_are_read(self):
        # SentencePiece's ids for the golden texts (golden/encodings.json, from
        # python3-sentencepiece), laid out by NumPy as int32 rows of different
        # lengths with BOS, EOS, padding and a mask: decode must give back the
        # texts. Only texts SentencePiece's normalizer (NFKC, whitespace runs
        # collapsed) leaves as they are, so that decode(encode(t)) == t.
        cases = [c for c in json.loads((GOLDEN / "encodings.json").read_text())["models"]["data/default.model"]["cases"]
                 if c["text"] and c["text"] == " ".join(c["text"].split())
                 and unicodedata.normalize("NFKC", c["text"]) == c["text"]]
        self.assertGreaterEqual(len(cases), 5)
        rows = [[1, *c["ids"], 2] for c in cases]
        width = max(map(len, rows)) + 2
        ids = np.zeros((len(rows), width), dtype=np.int32)
        mask = np.zeros_like(ids)
        for i, row in enumerate(rows):
            ids[i, :len(row)] = row
            mask[i, :len(row)] = 1
        st = self.tmp / "ids.safetensors"
        write_safetensors(st, {"input_ids": ("I32", ids), "attention_mask": ("I32", mask)})
        self.assertEqual(self.ok("decode", str(st)).stdout.decode(), "".join(c["text"] + "\n" for c in cases))

    def test_safetensors_errors_talk_about_ids(self):
        st = self.tmp / "ids.safetensors"
        write_safetensors(st, {"input_ids": ("F32", np.array([[1, 2]], dtype=np.float32))})
        err = self.fails(1, "input_ids has dtype F32; ids and masks are I64 or I32", "decode", str(st))
        self.assertNotIn("weights", err)
        self.assertNotIn("embedpe does not read", err)
        st.write_bytes(b"not a safetensors file at all")
        err = self.fails(1, "ids.safetensors", "decode", str(st))
        self.assertNotIn("weights", err)

    def test_fortran_order_npy_is_one_clear_line(self):
        f = self.tmp / "f.npy"
        np.save(f, np.asfortranarray(np.array([[1, 262, 2], [1, 5, 2]], dtype=np.int64)))
        err = self.fails(1, "is a Fortran-ordered array; save the ids C-ordered", "decode", str(f))
        self.assertNotIn("holds <i8 values", err)
        one_d = self.tmp / "one.npy"
        np.save(one_d, np.asfortranarray(np.array([1, 262, 2], dtype=np.int64)))  # 1-D: the same in either order
        self.assertEqual(self.ok("decode", str(one_d)).stdout, self.ok("decode", "--ids", "1,262,2").stdout)

    def test_output_with_a_tensor_extension_is_refused(self):
        for name in ("out.npz", "out.NPY", "out.safetensors", "out.json"):
            with self.subTest(name):
                out = self.tmp / name
                self.fails(2, "decode writes lines of text, not what", "decode", "--ids", "1,262,2", "-o",
                           str(out), output=str(out))
        out = self.tmp / "out.txt"
        self.ok("decode", "--ids", "1,262,2", "-o", str(out))
        self.assertTrue(out.read_text().endswith("\n"))
        # An output that is the input: the overwrite is what the user hears of, and the input stays.
        ids = self.tmp / "ids.npy"
        self.ok("encode", "--text", "hello", "--emit", "input_ids", "-o", str(ids))
        before = ids.read_bytes()
        err = self.fails(2, "writing it would destroy the input", "decode", str(ids), "-o", str(ids))
        self.assertNotIn("decode writes lines of text", err)
        self.assertEqual(ids.read_bytes(), before)


if __name__ == "__main__":
    unittest.main()
