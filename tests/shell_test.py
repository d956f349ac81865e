"""The command line as a shell user meets it: decode, help and --version,
mistyped commands and options, completions and the man page.

Every test runs the built binary ($EMBEDPE) and checks the exit status, the
stderr line and the output. Completions are exercised in the real shells:
bash (always), fish and zsh (installed by tools/install_deps.sh).
"""
import concurrent.futures
import json
import os
import pathlib
import re
import shutil
import subprocess
import unittest
import zipfile

import numpy as np

from cli_test import EMBEDPE, CliCase, run

TOKENIZE_TEXTS = ["Hello world", "The quick brown fox jumps over the lazy dog.", "Numbers: 3.14 and 42", "  spaced   out  "]


def text_args(texts):
    out = []
    for t in texts:
        out += ["--text", t]
    return out


class DecodeTests(CliCase):
    def setUp(self):
        super().setUp()
        self.texts = TOKENIZE_TEXTS
        r = self.ok("tokenize", "--format", "ids", *text_args(self.texts))
        self.id_lines = r.stdout.decode().splitlines()
        # What SentencePiece's decoding gives back: the normalized text.
        self.expected = [" ".join(t.split()) for t in self.texts]

    def test_round_trip_through_lines_of_ids(self):
        r = self.ok("decode", stdin=("\n".join(self.id_lines) + "\n").encode())
        self.assertEqual(r.stdout.decode().splitlines(), self.expected)

    def test_ids_flag_commas_or_spaces_and_repeatable(self):
        ids = [line.split() for line in self.id_lines[:2]]
        r = self.ok("decode", "--ids", ",".join(ids[0]), "--ids", " ".join(ids[1]))
        self.assertEqual(r.stdout.decode().splitlines(), self.expected[:2])

    def test_file_arguments_in_order(self):
        a, b = self.tmp / "a.txt", self.tmp / "b.txt"
        a.write_text("\n".join(self.id_lines[:2]) + "\n")
        b.write_text(",".join(self.id_lines[2].split()) + "\n")
        r = self.ok("decode", str(a), str(b))
        self.assertEqual(r.stdout.decode().splitlines(), self.expected[:3])

    def test_from_every_embedpe_output_padding_dropped(self):
        for ext in ["json", "jsonl", "npz", "safetensors"]:
            with self.subTest(ext=ext):
                out = self.tmp / f"o.{ext}"
                self.ok("encode", *text_args(self.texts), "--d-model", "8", "-o", str(out))
                r = self.ok("decode", str(out))
                self.assertEqual(r.stdout.decode().splitlines(), self.expected)
        # A .npy of input_ids alone: padding is the model's pad piece, which decodes to nothing.
        out = self.tmp / "ids.npy"
        self.ok("encode", *text_args(self.texts), "--emit", "input_ids", "-o", str(out))
        self.assertEqual(self.ok("decode", str(out)).stdout.decode().splitlines(), self.expected)
        # tokenize's JSON, piped.
        js = self.ok("tokenize", *text_args(self.texts)).stdout
        self.assertEqual(self.ok("decode", stdin=js).stdout.decode().splitlines(), self.expected)

    def test_numpy_written_npz_compressed_and_int32(self):
        ids = [[int(x) for x in line.split()] for line in self.id_lines[:2]]
        width = max(map(len, ids))
        pad = 0
        arr = np.full((2, width + 3), pad, dtype=np.int32)
        mask = np.zeros_like(arr)
        for i, row in enumerate(ids):
            arr[i, :len(row)] = row
            mask[i, :len(row)] = 1
        arr[mask == 0] = 5  # a real piece where the mask says padding: must be dropped
        path = self.tmp / "np.npz"
        np.savez_compressed(path, input_ids=arr, attention_mask=mask, other=np.ones((3, 3)))
        self.assertEqual(self.ok("decode", str(path)).stdout.decode().splitlines(), self.expected[:2])

    def test_another_models_output_is_refused(self):
        out = self.tmp / "o.json"
        self.ok("encode", "--text", "hi", "--d-model", "4", "-o", str(out))
        doc = json.loads(out.read_text())
        doc["config"]["model"]["sha256"] = "0" * 64
        out.write_text(json.dumps(doc))
        self.fails(2, "was made with another model", "decode", str(out))
        # .safetensors keeps the config in its metadata: checked too.
        st = self.tmp / "o.safetensors"
        self.ok("encode", "--text", "hi", "--d-model", "4", "-o", str(st))
        t5 = str(pathlib.Path(__file__).resolve().parent / "models" / "t5-spiece.model")
        self.fails(2, "was made with another model (embedded default", "decode", "--model", t5, str(st))
        self.assertEqual(self.ok("decode", str(st)).stdout, b"hi\n")

    def test_an_output_whose_model_record_is_not_whole_is_refused(self):
        """Issue 45, item 4: decode never falls back to the embedded model when an output's
        config is unreadable, names no model, or names it with fields of the wrong type. Before:
        decoded with the embedded model (exit 0, silent), and a numeric model.source was exit 70."""
        out = self.tmp / "o.json"
        self.ok("encode", "--text", "hi", "--d-model", "4", "-o", str(out))
        good = json.loads(out.read_text())

        def edited(change):
            doc = json.loads(json.dumps(good))
            change(doc)
            out.write_text(json.dumps(doc))
            return str(out)

        cases = (
            (lambda d: d["config"].pop("model"), "records no model (its config has no model)"),
            (lambda d: d["config"].update(model=None), "was made from ids with no tokenizer"),
            (lambda d: d.update(config="x"), "carries a config that is not a JSON object"),
            (lambda d: d["config"].update(model=[1]), "its config's model is a JSON array, not an object"),
            (lambda d: d["config"]["model"].update(source=5), "its config's model.source is a JSON number, not a string"),
            (lambda d: d["config"]["model"].update(sha256=7), "its config's model.sha256 is a JSON number"),
            (lambda d: d["config"]["model"].pop("sha256"), "its config's model has no sha256"),
            (lambda d: d["config"]["model"].update(sha256="abc"), "model.sha256 is not a SHA-256"),
            (lambda d: d["config"]["model"].update(tokenizer_class=3), "model.tokenizer_class is a JSON number"))
        for change, message in cases:
            with self.subTest(message=message):
                err = self.fails(2, message, "decode", edited(change))
                self.assertIn("give the model with --model or --pretrained", err)
        # An .npz whose config member does not parse.
        npz = self.tmp / "o.npz"
        self.ok("encode", "--text", "hi", "--d-model", "4", "-o", str(npz))
        with zipfile.ZipFile(npz) as z:
            members = {n: z.read(n) for n in z.namelist()}
        bad = self.tmp / "bad.npz"
        np.savez(bad, input_ids=np.load(npz)["input_ids"], config=np.array("{not json"))
        self.fails(2, "carries a config that is not a JSON object", "decode", str(bad))
        self.assertIn("config.npy", members)
        # Given --model, a record of the wrong type is still not read as something else.
        spm = pathlib.Path(__file__).resolve().parent / "models" / "sp-test.model"
        self.fails(2, "model.source is a JSON number", "decode", "--model", str(spm),
                   edited(lambda d: d["config"]["model"].update(source=5)))
        # diff compares without pieces, and says why.
        r = run("diff", edited(lambda d: d["config"].pop("model")), edited(lambda d: d["config"].pop("model")))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("records no model", r.stderr.decode())

    def test_the_model_an_output_names_is_found_by_path_and_sha256(self):
        """Issue 31 item 3: without --model, decode and diff use the model an output's config names,
        found at its path (as given, then beside the output) and checked by its SHA-256, and say so."""
        models = pathlib.Path(__file__).resolve().parent / "models"
        t5, other = models / "t5-spiece.model", models / "albert-spiece.model"
        work = self.tmp / "work"
        work.mkdir()
        shutil.copy(t5, work / "m.model")
        for ext in ("json", "npz", "safetensors"):
            with self.subTest(ext=ext):
                out = work / f"o.{ext}"
                # a relative --model path: decode, run from elsewhere, finds it beside the output
                self.ok("encode", *text_args(self.texts), "--model", "m.model", "--d-model", "8", "-o", out.name,
                        cwd=work)
                want = self.ok("decode", "--model", str(t5), str(out)).stdout
                self.assertEqual(want.decode().splitlines(), self.expected)
                r = run("decode", str(out))
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout, want)
                err = r.stderr.decode()
                self.assertEqual(err.count("\n"), 1, err)
                self.assertIn("embedpe decode: using the model " + str(work / "m.model"), err)
                # diff names pieces with it too
                r = run("diff", "--format", "json", str(out), str(out))
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn("embedpe diff: using the model", r.stderr.decode())
        # a model changed at that path, or gone: refused, naming it
        shutil.copy(other, work / "m.model")
        err = self.fails(2, "was made with another model (m.model", "decode", str(work / "o.npz"))
        self.assertIn("its files unchanged, with --model", err)
        (work / "m.model").unlink()
        self.fails(2, "which is not there now", "decode", str(work / "o.safetensors"))
        # diff still compares, without pieces, and says why
        r = run("diff", str(work / "o.npz"), str(work / "o.npz"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("token pieces left out", r.stderr.decode())
        # the embedded default's outputs: found without a word
        out = self.tmp / "d.npz"
        self.ok("encode", *text_args(self.texts), "--d-model", "8", "-o", str(out))
        self.assertEqual(self.ok("decode", str(out)).stdout.decode().splitlines(), self.expected)

    def test_bad_input_names_the_line(self):
        f = self.tmp / "ids.txt"
        f.write_text("1 262 2\n1 99999 2\n")
        self.fails(1, "ids.txt:2: id 99999 is outside the vocabulary of model embedded default (0 to 7999)", "decode", str(f))
        f.write_text("1 262 2\n1 x 2\n")
        self.fails(1, "ids.txt:2: expected ids", "decode", str(f))  # bad data, not a bad command line
        self.fails(2, "--ids: expected ids", "decode", "--ids", "1", "--ids", "-3")
        self.fails(2, "--ids: expected ids", "decode", "--ids", "99999999999")
        out = self.tmp / "out.txt"
        self.fails(2, "--ids 2: id 8000 is outside the vocabulary", "decode", "--ids", "1,2", "--ids", "8000",
                   "-o", str(out), output=str(out))

    def test_corrupt_npz_is_an_error(self):
        good = self.tmp / "o.npz"
        self.ok("encode", "--text", "hello", "--d-model", "4", "-o", str(good))
        data = bytearray(good.read_bytes())
        with zipfile.ZipFile(good) as z:
            info = z.getinfo("input_ids.npy")
        data[info.header_offset + 30 + len(info.filename) + 130] ^= 0xFF  # inside input_ids' data
        bad = self.tmp / "bad.npz"
        bad.write_bytes(bytes(data))
        self.fails(1, "CRC-32 mismatch", "decode", str(bad))
        bad.write_bytes(bytes(data[:40]))
        self.fails(1, "not a valid .npz", "decode", str(bad))

    def test_round_trip_with_a_byte_fallback_model(self):
        # Mistral's model normalizes nothing and falls back to bytes: decode
        # gives back every text exactly, emoji and rare CJK included.
        model = pathlib.Path(__file__).resolve().parent / "models" / "mistral-v3-tokenizer.model"
        texts = ["Hello, world!", "東京は日本の首都です。", "Ünïcödé café 🤖🎉", "tabs\tand  two  spaces",
                 "𠮷野家の牛丼", "x" * 300, "Привет, мир"]
        src = self.tmp / "in.txt"
        src.write_text("\n".join(texts) + "\n")
        ids = self.ok("tokenize", "--model", str(model), "--format", "ids", "--input", str(src)).stdout
        back = self.ok("decode", "--model", str(model), stdin=ids).stdout.decode().splitlines()
        self.assertEqual(back, texts)


def run_on_terminal(*args):
    """Runs embedpe with a pty as standard input."""
    import pty
    leader, follower = pty.openpty()
    try:
        return subprocess.run([EMBEDPE, *args], stdin=follower, capture_output=True, timeout=60)
    finally:
        os.close(leader)
        os.close(follower)


class InputsTests(CliCase):
    def test_file_arguments_are_inputs(self):
        a, b = self.tmp / "a.txt", self.tmp / "b.txt"
        a.write_text("Hello world\nHi\n")
        b.write_text("third line\n")
        want = self.ok("tokenize", "--format", "ids", "--input", str(a), "--input", str(b)).stdout
        self.assertEqual(self.ok("tokenize", "--format", "ids", str(a), str(b)).stdout, want)
        out = self.tmp / "o.npy"
        self.ok("encode", str(a), "--d-model", "4", "--emit", "input_ids", "-o", str(out))
        ref = self.tmp / "r.npy"
        self.ok("encode", "--input", str(a), "--d-model", "4", "--emit", "input_ids", "-o", str(ref))
        self.assertEqual(out.read_bytes(), ref.read_bytes())

    def test_piped_standard_input_is_read(self):
        want = self.ok("tokenize", "--format", "ids", "--text", "hi", "--text", "there").stdout
        self.assertEqual(self.ok("tokenize", "--format", "ids", stdin=b"hi\nthere\n").stdout, want)
        enc = json.loads(self.ok("encode", "--d-model", "4", stdin=b"Hi\n").stdout)
        self.assertEqual(enc, json.loads(self.ok("encode", "--d-model", "4", "--text", "Hi").stdout))

    def test_nothing_to_read_on_a_terminal_says_what_to_pass(self):
        for cmd in ["encode", "tokenize"]:
            with self.subTest(cmd=cmd):
                r = run_on_terminal(cmd)
                self.assertEqual(r.returncode, 2)
                self.assertEqual(r.stderr.decode(), "embedpe: nothing to process: give --text TEXT, a FILE, or pipe "
                                                    "text into standard input\n")
        r = run_on_terminal("decode")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr.decode(),
                         "embedpe: nothing to decode: give --ids 1,262,2, a FILE, or pipe ids into standard input\n")

    def test_text_and_files_together_are_refused(self):
        a = self.tmp / "a.txt"
        a.write_text("x\n")
        self.fails(2, "embedpe tokenize: give --text or FILE, not both", "tokenize", "--text", "hi", str(a))
        self.fails(1, "cannot open input", "tokenize", str(self.tmp / "missing.txt"))  # as --input


def run_with_terminal_stdout(*args):
    """Runs embedpe with a pty as standard output; returns (status, text)."""
    import pty
    import threading
    leader, follower = pty.openpty()
    chunks = []

    def drain():
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain)
    reader.start()
    try:
        r = subprocess.run([EMBEDPE, *args], stdout=follower, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                           timeout=120)
    finally:
        os.close(follower)
        reader.join(timeout=30)
        os.close(leader)
    return r.returncode, b"".join(chunks).decode().replace("\r\n", "\n")


class TerminalViewTests(CliCase):
    TEXTS = ["Hello, this is machine translation", "Hi"]

    def test_a_terminal_gets_a_short_summary(self):
        status, text = run_with_terminal_stdout("encode", *text_args(self.TEXTS))
        self.assertEqual(status, 0)
        lines = text.splitlines()
        self.assertLessEqual(len(lines), 40, text)
        data = json.loads(self.ok("encode", *text_args(self.TEXTS)).stdout)
        self.assertTrue(lines[0].startswith("model   embedded default (unigram, 8000 pieces"), lines[0])
        layer = " ".join(text.split("tokens  ", 1)[0].splitlines()[1:])  # wrapped at 80 characters
        self.assertTrue(layer.startswith("layer   d_model 512 ·"), layer)
        self.assertIn("PE sinusoidal", layer)
        # Each token with its id.
        want = " ".join(f"{p}/{i}" for p, i in zip(data["tokens"][0], data["input_ids"][0]))
        self.assertIn("  [0] " + want, text)
        self.assertIn("output          (2, 9, 512) float32", text)
        # The first and last values of the first row, as NumPy abbreviates, to 4 decimals.
        first_row = next(l for l in lines if l.startswith("[[["))
        values = first_row.strip("[]").split()
        self.assertEqual(values[3], "...")
        row = data["output"][0][0]
        for got, want in zip(values[:3] + values[4:], row[:3] + row[-3:]):
            self.assertAlmostEqual(float(got), want, delta=5e-5)

    def test_a_long_corpus_stays_short(self):
        src = self.tmp / "c.txt"
        src.write_text("".join(f"line number {i} with some words\n" for i in range(500)))
        status, text = run_with_terminal_stdout("encode", str(src), "--d-model", "64", "--emit", "all")
        self.assertEqual(status, 0)
        # 40 lines, and the layer line wrapped at 80 characters (5 lines here).
        self.assertLessEqual(len(text.splitlines()), 50, text)
        self.assertIn("500 sequences", text)
        self.assertIn("  ...", text)

    def test_a_small_array_is_printed_in_full_and_lines_fit(self):
        # NumPy prints an array of up to 1000 values in full (its threshold),
        # wrapping rows at 75 characters; the model and layer lines wrap at 80.
        for d_model, seq_len in [(6, 6), (30, 3)]:
            with self.subTest(d_model=d_model):
                args = ["encode", "--text", "Hello world", "--d-model", str(d_model), "--seq-len", str(seq_len)]
                status, text = run_with_terminal_stdout(*args)
                self.assertEqual(status, 0)
                text = text.replace("\r\n", "\n")
                want = np.array(json.loads(self.ok(*args).stdout)["output"], dtype=np.float64).ravel()
                block = text.split("output =\n", 1)[1].split("\n\n", 1)[0]
                self.assertNotIn("...", block)
                got = np.array([float(v) for v in block.replace("[", " ").replace("]", " ").split()])
                self.assertEqual(got.shape, want.shape, block)
                np.testing.assert_allclose(got, want, atol=5e-5)
                for line in block.splitlines():
                    self.assertLessEqual(len(line), 75, line)
                for line in text.split("tokens  ", 1)[0].splitlines():
                    self.assertLessEqual(len(line), 80, line)

    def test_tokenize_on_a_terminal_gets_a_summary(self):
        status, text = run_with_terminal_stdout("tokenize", *text_args(self.TEXTS))
        self.assertEqual(status, 0)
        self.assertNotIn("{", text)
        data = json.loads(self.ok("tokenize", *text_args(self.TEXTS)).stdout)
        self.assertTrue(text.startswith("model   embedded default (unigram, 8000 pieces"), text)
        for row, (pieces, ids) in enumerate(zip(data["tokens"], data["input_ids"])):
            want = " ".join(f"{p}/{i}" for p, i in zip(pieces, ids))
            self.assertIn(f"  [{row}] " + want, text)
        self.assertIn("input_ids       (2, 9) int64", text)
        status, forced = run_with_terminal_stdout("tokenize", *text_args(self.TEXTS), "--format", "json")
        self.assertEqual(status, 0)
        self.assertEqual(json.loads(forced), data)

    def test_pipes_and_format_json_get_json(self):
        piped = self.ok("encode", *text_args(self.TEXTS)).stdout
        self.assertEqual(json.loads(piped)["shapes"]["output"], [2, 9, 512])
        status, forced = run_with_terminal_stdout("encode", *text_args(self.TEXTS), "--format", "json")
        self.assertEqual(status, 0)
        self.assertEqual(json.loads(forced), json.loads(piped))


class PrecisionTests(CliCase):
    def test_significant_digits_in_json_and_jsonl(self):
        args = ["encode", "--text", "Hello world", "--text", "Hi", "--d-model", "8", "--emit", "output"]
        full = json.loads(self.ok(*args).stdout)["output"]
        for n in [1, 3, 6]:
            with self.subTest(n=n):
                doc = json.loads(self.ok(*args, "--precision", str(n)).stdout)
                # The float32 value itself rounded (not its shortest decimal text, which would round twice).
                want = [[[float(f"{float(np.float32(v)):.{n}g}") for v in row] for row in seq] for seq in full]
                self.assertEqual(doc["output"], want)
                lines = self.ok(*args, "--precision", str(n), "--format", "jsonl").stdout.decode().splitlines()
                for rec, seq, m in zip(map(json.loads, lines), want, [5, 3]):
                    self.assertEqual(rec["output"], seq[:len(rec["output"])])
        # The default is the shortest text that reads back as the same float32.
        self.assertEqual(np.float32(full[0][0][0]), np.float32(repr(full[0][0][0])))
        self.fails(2, "--precision: expected a whole number from 1 to 9, not '0'", *args, "--precision", "0")


class UsageErrorsTests(CliCase):
    def one_line(self, status, expected, *args):
        r = run(*args)
        self.assertEqual(r.returncode, status, r.stderr)
        self.assertEqual(r.stderr.decode(), expected + "\n")
        self.assertEqual(r.stdout, b"")

    def test_unknown_option_suggests_the_nearest(self):
        self.one_line(2, "embedpe encode: unknown option '--txt'; did you mean '--text'? (see 'embedpe encode --help')",
                      "encode", "--txt", "hi")
        self.one_line(2, "embedpe encode: unknown option '--seq'; did you mean '--seq-len'? (see 'embedpe encode --help')",
                      "encode", "--text", "a", "--seq", "5")
        self.one_line(2, "embedpe pe: unknown option '--max-lne'; did you mean '--max-len'? (see 'embedpe pe --help')",
                      "pe", "--max-lne=4")
        self.one_line(2, "embedpe tokenize: unknown option '--zzzzzz' (see 'embedpe tokenize --help')",
                      "tokenize", "--text", "a", "--zzzzzz")

    def test_every_option_mistyped_gets_its_own_name(self):
        # The plausible slips of every option of every command (the option
        # lists are the completion script's, which the command definition
        # writes): a hyphen left out or written as '_', two letters swapped,
        # a letter dropped. Each must be answered with the option meant.
        script = run("completion", "bash").stdout.decode()
        options = {}
        for cmd, opts in re.findall(r"\n    ([a-z]+)\)\n      opts='([^']*)'", script):
            options[cmd] = [o for o in opts.split() if o.startswith("--") and o != "--help"]
        self.assertGreaterEqual(len(options), 9, script[:400])

        def slips(option, known):
            name = option[2:]
            out = set()
            for i, c in enumerate(name):
                if c == "-":
                    out.add("--" + name[:i] + name[i + 1:])
                    out.add("--" + name[:i] + "_" + name[i + 1:])
            mid = len(name) // 2
            if len(name) >= 5 and name[mid - 1] != name[mid] and "-" not in name[mid - 1:mid + 1]:
                out.add("--" + name[:mid - 1] + name[mid] + name[mid - 1] + name[mid + 1:])
            if len(name) >= 6 and name[mid] != "-":
                out.add("--" + name[:mid] + name[mid + 1:])
            return {t for t in out if t not in known}

        cases = []
        ambiguous = 0
        for cmd, opts in options.items():
            meant = {}  # slip -> the options it is a slip of
            for o in opts:
                for typo in slips(o, set(opts)):
                    meant.setdefault(typo, set()).add(o)
            for typo, of in sorted(meant.items()):
                if len(of) == 1:
                    cases.append((cmd, typo, of.pop()))
                else:
                    ambiguous += 1  # "--no-os": "--no-bos" or "--no-eos"; either answer is fair
        self.assertLess(ambiguous, 10)
        self.assertGreater(len(cases), 300)

        def answer(case):
            cmd, typo, _ = case
            return run(cmd, typo).stderr.decode()

        with concurrent.futures.ThreadPoolExecutor(max_workers=2 * (os.cpu_count() or 1)) as pool:
            answers = list(pool.map(answer, cases))
        wrong = []
        for (cmd, typo, meant), err in zip(cases, answers):
            m = re.search(r"did you mean '([^']*)'", err)
            if not m or m.group(1) != meant:
                wrong.append(f"{cmd} {typo}: {err.strip()}")
        self.assertEqual(wrong, [], f"{len(wrong)} of {len(cases)} slips not answered with the option meant")

    def test_unknown_command_suggests_the_nearest(self):
        self.one_line(2, "embedpe: unknown command 'encdoe'; did you mean 'encode'? (see 'embedpe --help')", "encdoe")
        self.one_line(2, "embedpe: unknown command 'tokenise'; did you mean 'tokenize'? (see 'embedpe --help')",
                      "tokenise", "--text", "x")
        self.one_line(2, "embedpe: unknown command 'frobnicate' (see 'embedpe --help')", "frobnicate")
        self.one_line(2, "embedpe: unknown option '--versoin'; did you mean '--version'? (see 'embedpe --help')",
                      "--versoin")
        self.one_line(2, "embedpe encode: --d-model: given more than once; give it once (see 'embedpe encode --help')",
                      "encode", "--d-model", "4", "--text", "hi", "--d-model", "8")
        self.one_line(2, "embedpe: unknown command 'encdoe'; did you mean 'encode'? (see 'embedpe --help')",
                      "help", "encdoe")

    def test_no_command(self):
        r = run()
        self.assertEqual(r.returncode, 2)
        self.assertTrue(r.stderr.decode().startswith("embedpe: give a command: encode, tokenize, decode"), r.stderr)

    def test_no_parser_internals_reach_the_user(self):
        cases = [
            ["encode", "--d-model", "abc", "--text", "a"],
            ["encode", "--format", "xyz", "--text", "a"],
            ["encode", "--text"],
            ["completion", "tcsh"],
            ["pe", "--kind", "nope"],
            ["encode", "--threads", "0", "--text", "a"],
            ["encode", "--text", "a", "stray"],
        ]
        for args in cases:
            with self.subTest(args=args):
                r = run(*args)
                err = r.stderr.decode()
                self.assertEqual(r.returncode, 2, err)
                self.assertEqual(err.count("\n"), 1, err)
                self.assertRegex(err, r"^embedpe [a-z]+: ")
                for internal in ["File does not exist", "not expected", "Could not convert", "required", "[", "{",
                                 "ValidationError", "FILE:", "NONNEGATIVE", "POSITIVE"]:
                    self.assertNotIn(internal, err)
                self.assertTrue(err.rstrip().endswith("--help')"), err)


class HelpVersionTests(CliCase):
    def test_help_command_equals_help_flag(self):
        self.assertEqual(run("help").stdout, run("--help").stdout)
        self.assertIn("Examples:\n  embedpe encode", run("--help").stdout.decode())
        for cmd in ["encode", "tokenize", "decode", "merge", "pe", "info", "lookup", "quantize", "diff", "completion"]:
            with self.subTest(cmd=cmd):
                a, b = run("help", cmd), run(cmd, "--help")
                self.assertEqual(a.returncode, 0)
                self.assertEqual(a.stdout, b.stdout)
                self.assertIn("Examples:\n  embedpe " + cmd, a.stdout.decode())
                # The command's name, not the path it was run by.
                self.assertIn("Usage: embedpe " + cmd + " ", a.stdout.decode())

    def test_a_failed_write_of_help_is_an_error(self):
        # Everything printed goes the way of every output: /dev/full is an error, never a silent exit 0.
        for args in (["--help"], ["--version"], ["help", "encode"], ["completion", "bash"], ["manpage"]):
            with self.subTest(args=args), open("/dev/full", "wb") as full:
                r = subprocess.run([EMBEDPE, *args], stdout=full, stderr=subprocess.PIPE, timeout=60)
                self.assertEqual(r.returncode, 1)
                self.assertEqual(r.stderr.decode(),
                                 "embedpe: cannot write output to standard output: No space left on device\n")

    def test_version_says_what_a_bug_report_needs(self):
        r = self.ok("--version")
        lines = r.stdout.decode().splitlines()
        self.assertRegex(lines[0], r"^embedpe \d+\.\d+\.\d+$")
        self.assertRegex(lines[1], r"^commit ([0-9a-f]{12}|unknown)$")
        self.assertEqual(lines[2], "sentencepiece " +
                         subprocess.run(["pkg-config", "--modversion", "sentencepiece"], capture_output=True,
                                        text=True).stdout.strip())
        self.assertRegex(lines[3], r"^compiler (GCC|clang) \d+")
        self.assertRegex(lines[4], r"^build \w+")
        with self.subTest("the commit is one of this repository's"):
            if not (shutil.which("git") and (pathlib.Path(__file__).resolve().parents[1] / ".git").exists()):
                self.skipTest("not a git checkout, or no git: the commit cannot be looked up")
            # A commit of this repository (HEAD when the binary is fresh).
            commit = lines[1].split()[1]
            r = subprocess.run(["git", "cat-file", "-e", commit + "^{commit}"], capture_output=True,
                               cwd=pathlib.Path(__file__).resolve().parent)
            self.assertEqual(r.returncode, 0, f"{commit} is not a commit here")


def bash_complete(script, words):
    """COMPREPLY for the line `words` (the last word is being completed)."""
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    prog = f"source '{script}'; COMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}; _embedpe; " \
           'printf "%s\\n" "${COMPREPLY[@]}"'
    r = subprocess.run(["bash", "--norc", "-c", prog], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise AssertionError(r.stderr)
    return [w for w in r.stdout.splitlines() if w]


class CompletionTests(CliCase):
    def setUp(self):
        super().setUp()
        self.scripts = {}
        for shell in ["bash", "zsh", "fish"]:
            path = self.tmp / f"embedpe.{shell}"
            path.write_bytes(self.ok("completion", shell).stdout)
            self.scripts[shell] = path
        help_text = self.ok("encode", "--help").stdout.decode()
        import re
        self.encode_options = sorted(set(re.findall(r"(--[a-z][a-z0-9-]*)", help_text)))

    def test_bash_commands_options_and_values(self):
        s = self.scripts["bash"]
        self.assertEqual(bash_complete(s, ["embedpe", "enc"]), ["encode"])
        self.assertEqual(sorted(bash_complete(s, ["embedpe", "encode", "--d"])),
                         sorted(o for o in self.encode_options if o.startswith("--d")))
        self.assertIn("--d-model", bash_complete(s, ["embedpe", "encode", "--d"]))
        self.assertEqual(bash_complete(s, ["embedpe", "encode", "--format", "n"]), ["npy", "npz"])
        self.assertEqual(bash_complete(s, ["embedpe", "completion", "z"]), ["zsh"])
        self.assertEqual(bash_complete(s, ["embedpe", "help", "tok"]), ["tokenize"])
        # After an option that takes a value: files, not options.
        (self.tmp / "corpus.txt").write_text("x\n")
        self.assertEqual(bash_complete(s, ["embedpe", "encode", "--input", str(self.tmp / "cor")]),
                         [str(self.tmp / "corpus.txt")])
        # Every option of encode's help is offered.
        self.assertEqual(set(bash_complete(s, ["embedpe", "encode", "--"])), set(self.encode_options))

    def test_fish(self):
        fish = shutil.which("fish")
        if not fish:
            self.fail("fish is not installed (tools/install_deps.sh installs it)")
        def complete(line):
            r = subprocess.run([fish, "--no-config", "-c", f"source {self.scripts['fish']}; complete -C '{line}'"],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            return [l.split("\t")[0] for l in r.stdout.splitlines()]
        self.assertEqual(complete("embedpe enc"), ["encode"])
        self.assertIn("--d-model", complete("embedpe encode --d"))
        self.assertEqual(sorted(complete("embedpe encode --format n")), ["npy", "npz"])

    def test_zsh(self):
        zsh = shutil.which("zsh")
        if not zsh:
            self.fail("zsh is not installed (tools/install_deps.sh installs it)")
        r = subprocess.run([zsh, "-n", str(self.scripts["zsh"])], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        # Load it through compinit as a user's fpath would, and list what it registered.
        fdir = self.tmp / "fpath"
        fdir.mkdir()
        shutil.copy(self.scripts["zsh"], fdir / "_embedpe")
        prog = f"fpath=({fdir} $fpath); autoload -Uz compinit; compinit -u -d {self.tmp}/zcompdump; " \
               "print -r -- ${_comps[embedpe]}"
        r = subprocess.run([zsh, "-f", "-c", prog], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "_embedpe")
        text = self.scripts["zsh"].read_text()
        for cmd in ["encode", "tokenize", "decode", "pe", "info", "lookup", "quantize", "diff"]:
            self.assertIn(f"    {cmd})\n", text)

    def test_scripts_are_generated_not_kept(self):
        # A built copy exists next to the binary and equals what the binary prints.
        built = pathlib.Path(EMBEDPE).parent
        for shell, name in [("bash", "embedpe.bash"), ("zsh", "_embedpe"), ("fish", "embedpe.fish")]:
            self.assertEqual((built / name).read_bytes(), self.scripts[shell].read_bytes())


class ManPageTests(CliCase):
    def test_man_renders_and_lists_every_command(self):
        page = pathlib.Path(EMBEDPE).parent / "embedpe.1"
        self.assertEqual(page.read_bytes(), self.ok("manpage").stdout)
        man = shutil.which("man")
        if not man:
            self.fail("man is not installed (tools/install_deps.sh installs man-db)")
        r = subprocess.run([man, "-l", str(page)], capture_output=True, text=True, timeout=60,
                           env={**os.environ, "MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "100"})
        self.assertEqual(r.returncode, 0, r.stderr)
        out = r.stdout
        for cmd in ["encode", "tokenize", "decode", "pe", "info", "lookup", "quantize", "diff", "completion", "help"]:
            self.assertIn("embedpe " + cmd, out)
        self.assertIn("--d-model", out.replace("‐", "-"))
        self.assertNotIn("manpage", out)  # hidden
        self.assertNotIn("\\-", out)  # no roff escape left raw


COMMANDS = ["encode", "tokenize", "decode", "pe", "info", "lookup", "quantize", "diff", "completion", "help"]


def option_lines(help_text):
    """The option lines of a help text (indented, starting with a dash)."""
    return [l for l in help_text.splitlines() if l.startswith("  -")]


def groups_of(help_text):
    """{group: [option names]} of a help text, in order."""
    import re
    groups, current = {}, None
    for line in help_text.splitlines():
        if re.fullmatch(r"[A-Z][A-Za-z ]*:", line):
            current = line[:-1]
            groups[current] = []
        elif current and line.startswith("  ") and not line.startswith("   "):
            groups[current].append(line.split()[0].split(",")[-1])
        elif not line.strip():
            current = None if current == "Examples" else current
    return groups


class HelpLayoutTests(CliCase):
    def test_options_grouped_per_command(self):
        encode = groups_of(self.ok("encode", "--help").stdout.decode())
        self.assertEqual([g for g in encode if g != "Examples"],
                         ["Input", "Tokenization", "Embedding", "Positional encoding", "RoPE", "Output", "Pipeline",
                          "Options"])
        for group, option in [("Input", "--text"), ("Input", "FILE..."), ("Tokenization", "--model"),
                              ("Tokenization", "--pad-id"), ("Embedding", "--d-model"), ("Embedding", "--scale"),
                              ("Positional encoding", "--max-len"), ("Positional encoding", "--convention"),
                              ("RoPE", "--rope-theta"), ("RoPE", "--rope-dim"), ("Output", "--emit"),
                              ("Output", "--precision"), ("Pipeline", "--threads"), ("Options", "--help")]:
            self.assertIn(option, encode[group], group)
        # Only the groups that apply.
        pe = groups_of(self.ok("pe", "--help").stdout.decode())
        self.assertEqual([g for g in pe if g != "Examples"], ["Positional encoding", "RoPE", "Output", "Options"])
        tokenize = groups_of(self.ok("tokenize", "--help").stdout.decode())
        self.assertEqual([g for g in tokenize if g != "Examples"], ["Input", "Tokenization", "Output", "Options"])

    def test_placeholders_read_as_values_and_defaults_one_way(self):
        import re
        encode = self.ok("encode", "--help").stdout.decode()
        for want in ["--model PATH ", "--pad-id N ", "--field NAME ", "--text TEXT ", "--scale sqrt|none|X "]:
            self.assertIn(want, encode)
        self.assertIn("(default: the embedded model)", encode)
        self.assertIn("--max-len N", encode)
        self.assertIn("(default: 5000)", encode)
        for cmd in COMMANDS:
            with self.subTest(cmd=cmd):
                text = self.ok(cmd, "--help").stdout.decode()
                for line in option_lines(text):
                    label = line.split("  ")[1] if "  " in line[2:] else line
                    # No validator tags (PATH:FILE, N:NONNEGATIVE, TEXT:{...}), no CLI11 type names.
                    self.assertNotRegex(line, r":(FILE|DIR|NONNEGATIVE|POSITIVE|UINT|INT|FLOAT)\b|:\{")
                    self.assertNotRegex(line, r" (UINT|INT|FLOAT|ENUM)\b")
                    self.assertNotIn(" REQUIRED", line)
                    self.assertNotIn("Excludes", line)
                    # Defaults never as "N=5000" next to the placeholder.
                    self.assertNotRegex(line.strip().split("  ")[0], r"=")
                    # Every default written "(default: X)".
                    self.assertNotRegex(line, r"\(default\)|\(default [^:]|; default|default [0-9]")
                self.assertNotIn("TEXT", text.replace("--text TEXT", "").replace("--text-pair TEXT", ""))

    def test_max_len_says_what_it_means(self):
        encode = [l for l in option_lines(self.ok("encode", "--help").stdout.decode()) if "--max-len" in l]
        self.assertIn("Size of the PE table", encode[0])
        pe = [l for l in option_lines(self.ok("pe", "--help").stdout.decode()) if "--max-len" in l]
        self.assertIn("Positions shown", pe[0])

    def test_no_background_documents_cited(self):
        texts = [self.ok(cmd, "--help").stdout.decode() for cmd in COMMANDS] + [self.ok("manpage").stdout.decode()]
        texts.append((pathlib.Path(__file__).resolve().parents[1] / "README.md").read_text())
        texts.append(self.ok("encode", "--text", "hi", "--d-model", "4", "--format", "json").stdout.decode())
        for t in texts:
            self.assertNotRegex(t.lower(), r"seed\s+00\d|seeds/")

    def test_help_takes_one_command(self):
        r = run("help", "encode", "extra")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr.decode(),
                         "embedpe: help: takes one COMMAND, not 'encode extra'; e.g. 'embedpe help encode'\n")
        self.assertEqual(r.stdout, b"")


class OptionSpellingTests(CliCase):
    """Arguments that look like options but name none are unknown options,
    never FILEs and never a guess at an empty name."""

    def usage_lines(self, cases):
        """Each (args, line): exit 2, exactly that line on stderr, nothing on stdout."""
        for args, line in cases:
            with self.subTest(args=args):
                r = run(*args, cwd=self.tmp)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertEqual(r.stderr.decode(), line + "\n")
                self.assertEqual(r.stdout, b"")

    def test_parser_words_never_reach_the_user(self):
        cases = [
            (["encode", "--text", "hi", "--no-bos=maybe"],
             "embedpe encode: --no-bos is a switch: give it without a value, not 'maybe' (see 'embedpe encode --help')"),
            (["tokenize", "--text", "hi", "-vv"], "embedpe tokenize: unknown option '-vv' (see 'embedpe tokenize --help')"),
            (["encode", "-text", "hi"],
             "embedpe encode: unknown option '-text'; did you mean '--text'? (see 'embedpe encode --help')"),
            (["encode", "--version"], "embedpe encode: unknown option '--version'; the version is 'embedpe --version'"),
            (["encode", "--text", "hi", "--layernorm-eps", "1e-5"],
             "embedpe encode: --layernorm-eps only applies with --layernorm: add it, or drop --layernorm-eps "
             "(see 'embedpe encode --help')"),
            (["decode", "x.txt", "--ids", "1"], "embedpe decode: give FILE or --ids, not both (see 'embedpe decode --help')"),
        ]
        self.usage_lines(cases)

    def test_options_that_would_do_nothing_are_refused(self):
        corpus = self.tmp / "c.txt"
        corpus.write_text("a\nb\n")
        for args, message in (
                (["encode", "--text", "hi", "--shard", "1/2"], "--shard splits an input file, and --text values"),
                (["tokenize", "--ids", "1,2", "--shard", "2/2"], "--shard splits an input file, and --ids values"),
                (["encode", "--text", "", "--skip-empty"], "--skip-empty drops empty lines of input files"),
                (["encode", str(corpus), "--field", "body"], "--field names the member of a JSON Lines input"),
                (["encode", "--text", "hi", "--precision", "3", "-o", str(self.tmp / "p.npz")],
                 "--precision rounds floats written as text (json, jsonl); .npz keeps them exact"),
                (["encode", str(corpus), "--precision", "3", "--output-dir", str(self.tmp / "pd")],
                 "--precision rounds floats written as text (json, jsonl); --output-dir's .npz parts keep them exact"),
                (["encode", "--text", "hi", "--d-model", "8", "--emit", "rope_cos", "--rope-dim", "16"],
                 "--rope-dim 16 is larger than --d-model 8"),
                (["encode", "--text", "hi", "--input-format", "jsonl"], "--input-format jsonl reads input files"),
                (["encode", "--text", "hi", "--d-model", "8", "--pe", "none", "--convention", "fairseq"],
                 "--convention applies to --pe sinusoidal, not none: it would be ignored, so drop --convention"),
                (["pe", "--max-len", "4", "--d-model", "8", "--head", "1"],
                 "--head applies to --kind alibi or t5, not sinusoidal")):
            with self.subTest(args=args):
                self.fails(2, message, *args, output=str(self.tmp / "p.npz"))

    def test_absurd_padding_is_refused_before_any_allocation(self):
        out = self.tmp / "pm.npy"
        self.fails(2, "--pad-to-multiple-of 2147483647 pads every sequence to at least that many positions, more "
                   "than the PE table (--max-len 5000)", "encode", "--text", "hi", "--pad-to-multiple-of", "2147483647",
                   "--d-model", "4", "-o", str(out), output=str(out))
        # No table to bound it: the memory estimate refuses it, whatever the machine.
        self.fails(2, "lower --pad-to-multiple-of", "encode", "--text", "hi", "--pe", "none", "--pad-to-multiple-of",
                   "2147483647", "--d-model", "4096", "-o", str(out), output=str(out))
        lines = self.tmp / "hi.txt"
        lines.write_text("hi\n" * 1024)
        for flag in ("--seq-len", "--pad-to-multiple-of"):  # 32 TiB: more than any machine this runs on
            with self.subTest(flag):
                self.fails(2, "padding 1024 sequences to 2147483647 tokens would need", "tokenize", str(lines),
                           flag, "2147483647", "--format", "ids")
        self.fails(2, "tokens long but the PE table has 1 position after --position-offset 4999; "
                   "raise --max-len, lower --position-offset, or truncate with --seq-len",
                   "encode", "--text", "hi", "--position-offset", "4999", "--d-model", "4")

    def test_malformed_options(self):
        cases = [
            (["encode", "--=x"], "embedpe encode: unknown option '--=x' (see 'embedpe encode --help')"),
            (["encode", "--text", "a", "--="], "embedpe encode: unknown option '--=' (see 'embedpe encode --help')"),
            (["encode", "---text", "hi"],
             "embedpe encode: unknown option '---text'; did you mean '--text'? (see 'embedpe encode --help')"),
            (["tokenize", "hi.txt", "-x"], "embedpe tokenize: unknown option '-x' (see 'embedpe tokenize --help')"),
            (["--=x"], "embedpe: unknown option '--=x' (see 'embedpe --help')"),
        ]
        self.usage_lines(cases)

    def test_values_and_files_that_start_with_a_dash(self):
        # A value after an option that takes one, and FILEs after "--", are not options.
        self.ok("encode", "--text", "-x", "--d-model", "4", "--format", "json")
        self.ok("encode", "--text", "hi", "--d-model", "4", "--scale", "-2", "--format", "json")
        (self.tmp / "-dash.txt").write_text("hello\n")
        r = self.ok("tokenize", "--format", "ids", "--", "-dash.txt", cwd=self.tmp)
        self.assertEqual(r.stdout, self.ok("tokenize", "--format", "ids", "--text", "hello").stdout)


class MissingFileStatusTests(CliCase):
    def test_a_missing_model_is_a_runtime_error_everywhere(self):
        # README and SPEC: a missing or corrupt model is a runtime error (1), like a missing --input.
        missing = str(self.tmp / "none.model")
        for args in [["encode", "--text", "a"], ["tokenize", "--text", "a"], ["info"], ["lookup", "--ids", "1"],
                     ["decode", "--ids", "1"]]:
            with self.subTest(args=args):
                err = self.fails(1, missing, *args, "--model", missing)
                self.assertNotIn("File does not exist", err)
        self.fails(1, str(self.tmp / "none.txt"), "encode", "--input", str(self.tmp / "none.txt"))


class TokenizeOutputTests(CliCase):
    texts = ["Hello world", "The quick brown fox", "", "你好，世界"]

    def test_binary_formats_hold_ids_and_mask(self):
        args = text_args(self.texts)
        doc = json.loads(self.ok("tokenize", *args).stdout)
        for ext in ["npz", "safetensors", "npy"]:
            with self.subTest(ext=ext):
                out = self.tmp / f"t.{ext}"
                self.ok("tokenize", *args, "-o", str(out))
                if ext == "npz":
                    z = np.load(out)
                    self.assertEqual(sorted(z.files), ["attention_mask", "config", "input_ids"])
                    self.assertEqual(json.loads(str(z["config"][()])),
                                     {k: v for k, v in doc["config"].items() if k not in ("sequences", "truncated")})
                    np.testing.assert_array_equal(z["input_ids"], doc["input_ids"])
                    np.testing.assert_array_equal(z["attention_mask"], doc["attention_mask"])
                    self.assertEqual(z["input_ids"].dtype, np.int64)
                elif ext == "npy":
                    np.testing.assert_array_equal(np.load(out), doc["input_ids"])
                else:
                    raw = out.read_bytes()
                    header = json.loads(raw[8:8 + int.from_bytes(raw[:8], "little")])
                    self.assertEqual(header["input_ids"]["shape"], list(np.array(doc["input_ids"]).shape))
                    self.assertIn("attention_mask", header)

    def test_a_format_the_file_name_contradicts_is_refused(self):
        out = self.tmp / "x.npz"
        self.fails(2, "--format ids is not what " + str(out) + " names (npz)", "tokenize", "--text", "hi",
                   "--format", "ids", "-o", str(out), output=out)
        out = self.tmp / "x.txt"
        self.fails(2, "cannot tell the format of " + str(out), "tokenize", "--text", "hi", "-o", str(out), output=out)
        self.ok("tokenize", "--text", "hi", "--format", "ids", "-o", str(out))
        self.assertEqual(out.read_bytes(), self.ok("tokenize", "--text", "hi", "--format", "ids").stdout)

    def test_ids_stream_in_bounded_memory(self):
        # One long line among many short ones: padded as one batch, the ids
        # would take 10001 x ~2000 x 16 bytes (320 MB); streamed, a batch of
        # 1024 rows takes a tenth of it.
        path = self.tmp / "corpus.txt"
        path.write_text("word " * 2000 + "\n" + "a short line\n" * 10000)
        prog = ("import resource, subprocess, sys; "
                "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL); "
                "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
        out = subprocess.run(["python3", "-c", prog, EMBEDPE, "tokenize", "--format", "ids", str(path)],
                             capture_output=True, text=True, timeout=120).stdout.split()
        self.assertEqual(out[0], "0")
        # 250 MB: release builds take ~43 MB, AddressSanitizer builds ~160 MB; held whole, 328 MB and more.
        self.assertLess(int(out[1]), 250 * 1024, "tokenize --format ids held more than 250 MB")

    def test_every_command_refuses_a_name_its_format_contradicts(self):
        cases = [
            (["encode", "--text", "hi", "--d-model", "2", "--format", "json"], "x.npz",
             "--format json is not what {out} names (npz); give --format npz or another file name"),
            (["pe", "--d-model", "4", "--max-len", "2", "--format", "csv"], "x.npy",
             "--format csv is not what {out} names (npy)"),
            (["decode", "--ids", "1,262,2"], "x.safetensors", "decode writes lines of text, not what {out} names (safetensors); give another file name"),
            (["tokenize", "--text", "hi", "--format", "pieces"], "x.json", "--format pieces is not what {out} names (json)"),
        ]
        for args, name, message in cases:
            with self.subTest(args=args):
                out = self.tmp / name
                self.fails(2, message.format(out=out), *args, "-o", str(out), output=out)
        # Names no format has are the user's choice.
        self.ok("pe", "--d-model", "4", "--max-len", "2", "--format", "csv", "-o", str(self.tmp / "pe.txt"))
        self.ok("decode", "--ids", "1,262,2", "-o", str(self.tmp / "text.txt"))

    def test_streamed_batches_equal_the_whole_input(self):
        # More lines than one batch (1024), of varying lengths: the streamed
        # formats give what the whole-input JSON holds, padding dropped.
        lines = [("word " * (i % 37)).strip() or "x" for i in range(2600)]
        path = self.tmp / "corpus.txt"
        path.write_text("\n".join(lines) + "\n")
        doc = json.loads(self.ok("tokenize", str(path)).stdout)
        want = [[i for i, m in zip(ids, mask) if m] for ids, mask in zip(doc["input_ids"], doc["attention_mask"])]
        got = [[int(x) for x in l.split()] for l in self.ok("tokenize", "--format", "ids", str(path)).stdout.decode().splitlines()]
        self.assertEqual(got, want)
        pieces = self.ok("tokenize", "--format", "pieces", str(path)).stdout.decode().splitlines()
        self.assertEqual([p.split() for p in pieces], doc["tokens"])
        records = [json.loads(l) for l in self.ok("tokenize", "--format", "jsonl", str(path)).stdout.splitlines()]
        self.assertEqual(len(records), len(lines))
        self.assertEqual([r["input_ids"] for r in records], want)


class CompletionValueTests(CliCase):
    def setUp(self):
        super().setUp()
        self.bash = self.tmp / "embedpe.bash"
        self.bash.write_bytes(self.ok("completion", "bash").stdout)
        (self.tmp / "corpus.txt").write_text("x\n")

    def complete(self, *words):
        cwd = os.getcwd()
        os.chdir(self.tmp)
        try:
            return sorted(bash_complete(self.bash, ["embedpe", *words]))
        finally:
            os.chdir(cwd)

    def test_bash_offers_choices_files_or_nothing(self):
        self.assertEqual(self.complete("encode", "--scale", ""), ["none", "sqrt"])
        self.assertEqual(self.complete("encode", "--emit", "input_ids,att"), ["input_ids,attention_mask"])
        self.assertIn("token_embeddings", self.complete("encode", "--emit", ""))
        self.assertEqual(self.complete("encode", "--dtype", "b"), ["bf16"])
        self.assertEqual(self.complete("pe", "--kind", "r"), ["rope"])
        self.assertEqual(self.complete("tokenize", "--format", "p"), ["pieces"])
        # A number or a text: no file names.
        for opt in ["--d-model", "--seed", "--text", "--pad-id", "--precision", "--field"]:
            self.assertEqual(self.complete("encode", opt, ""), [], opt)
        # A path: file names.
        self.assertEqual(self.complete("encode", "--model", "cor"), ["corpus.txt"])
        self.assertEqual(self.complete("encode", "-o", "cor"), ["corpus.txt"])
        self.assertEqual(self.complete("encode", "cor"), ["corpus.txt"])  # FILE...
        self.assertEqual(self.complete("lookup", "cor"), [])  # no FILE argument

    def test_fish_and_zsh_offer_choices_not_files(self):
        fish_script = self.ok("completion", "fish").stdout.decode()
        self.assertIn("-l scale -x -a 'sqrt none'", fish_script)
        self.assertRegex(fish_script, r"-l d-model -x -d")
        self.assertRegex(fish_script, r"-l model -r -F")
        zsh = self.ok("completion", "zsh").stdout.decode()
        self.assertRegex(zsh, r"'--scale\[[^\n]*:sqrt\|none\|X:\(sqrt none\)'")
        self.assertRegex(zsh, r"'--d-model\[[^\n]*:N: '")
        self.assertRegex(zsh, r"'--model\[[^\n]*:PATH:_files'")
        fish = shutil.which("fish")
        if fish:
            (self.tmp / "f.fish").write_text(fish_script)
            r = subprocess.run([fish, "--no-config", "-c", f"source {self.tmp}/f.fish; complete -C 'embedpe encode --scale '"],
                               capture_output=True, text=True, timeout=60, cwd=self.tmp)
            self.assertEqual(sorted(l.split("\t")[0] for l in r.stdout.splitlines()), ["none", "sqrt"])


class ManPageLayoutTests(CliCase):
    def test_groups_and_file_arguments(self):
        page = self.ok("manpage").stdout.decode()
        man = shutil.which("man")
        if not man:
            self.fail("man is not installed (tools/install_deps.sh installs man-db)")
        path = self.tmp / "embedpe.1"
        path.write_text(page)
        out = subprocess.run([man, "-l", str(path)], capture_output=True, text=True, timeout=60,
                             env={**os.environ, "MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "200"}).stdout
        out = out.replace("‐", "-")
        for group in ["Input:", "Tokenization:", "Positional encoding:", "RoPE:", "Output:", "Pipeline:"]:
            self.assertIn(group, out)
        self.assertIn("FILE...", out)
        self.assertIn("Input files, as --input", out)
        self.assertIn("(default: 5000)", out)


class PePrecisionTests(CliCase):
    def significant(self, text):
        mant = text.lstrip("-").split("e")[0].replace(".", "").lstrip("0")
        return len(mant)

    def test_csv_table_and_json(self):
        base = ["pe", "--d-model", "6", "--max-len", "5", "--base", "7.5"]
        exact = np.load(self.npy(base))
        # The default: the shortest text that reads back as the same float32.
        rows = self.ok(*base, "--format", "csv").stdout.decode().splitlines()[1:]
        np.testing.assert_array_equal(np.array([[np.float32(v) for v in r.split(",")[1:]] for r in rows]), exact)
        for n in [1, 3, 5]:
            with self.subTest(n=n):
                want = [[float(f"{float(v):.{n}g}") for v in row] for row in exact]
                rows = self.ok(*base, "--format", "csv", "--precision", str(n)).stdout.decode().splitlines()[1:]
                cells = [r.split(",")[1:] for r in rows]
                self.assertTrue(all(self.significant(c) <= n for r in cells for c in r), cells)
                self.assertEqual([[float(c) for c in r] for r in cells], want)
                table = self.ok(*base, "--precision", str(n)).stdout.decode().splitlines()[2:]
                cells = [l.split()[1:] for l in table]
                self.assertEqual([[float(c) for c in r] for r in cells], want)
                doc = json.loads(self.ok(*base, "--format", "json", "--precision", str(n)).stdout)
                self.assertEqual(doc["config"]["precision"], n)
                self.assertEqual(doc["positional_encoding"], want)
        doc = json.loads(self.ok(*base, "--format", "json").stdout)
        self.assertNotIn("precision", doc["config"])
        np.testing.assert_array_equal(np.array(doc["positional_encoding"], dtype=np.float32), exact)

    def npy(self, base):
        out = self.tmp / "pe.npy"
        self.ok(*base, "-o", str(out))
        return out

    def test_encode_config_records_precision(self):
        args = ["encode", "--text", "hi", "--d-model", "4"]
        self.assertNotIn("precision", json.loads(self.ok(*args, "--format", "json").stdout)["config"])
        self.assertEqual(json.loads(self.ok(*args, "--format", "json", "--precision", "4").stdout)["config"]["precision"], 4)


class LookupDimsTests(CliCase):
    def test_dims_range_and_pieces(self):
        args = ["lookup", "--ids", "1,262,2", "--d-model", "8"]
        full = json.loads(self.ok(*args, "--format", "json").stdout)
        # The default model is known: its pieces are shown, in the table and in JSON.
        self.assertEqual(full["pieces"][0], "<s>")
        self.assertEqual(full["pieces"][2], "</s>")
        part = json.loads(self.ok(*args, "--dims", "2:5", "--format", "json").stdout)
        self.assertEqual(part["dims"], {"first": 2, "count": 3})
        self.assertEqual(part["rows"], [r[2:5] for r in full["rows"]])
        table = self.ok(*args, "--dims", "2:5").stdout.decode().splitlines()
        self.assertIn("dims 2:5", table[0])
        for line, piece, row in zip(table[1:], full["pieces"], full["rows"]):
            cols = line.split("\t")
            self.assertEqual(cols[1], piece)
            self.assertEqual([float(c) for c in cols[2:]], row[2:5])
        self.fails(2, "--dims 6:9 goes beyond d_model 8", *args, "--dims", "6:9")
        self.fails(2, "--dims: expected A:B with whole numbers 0 <= A < B", *args, "--dims", "5:5")
        self.fails(2, "--dims: expected A:B", *args, "--dims", "2-5")


if __name__ == "__main__":
    unittest.main()
