"""Holes an adversarial review found after the first round of fixes (issue 11):
each row pins one, in the class it belongs to."""
import os
import shutil

import numpy as np

from matrix import ABSENT, UNCHANGED, Case, TESTS

MODEL = TESTS / "models" / "sp-test.model"
TABLE = TESTS / "golden" / "weights" / "table_f32.npy"
SMALL = ["--model", str(MODEL), "--d-model", "8"]


def copies(tmp):
    shutil.copy(MODEL, tmp / "m.model")
    shutil.copy(TABLE, tmp / "w.npy")
    (tmp / "corpus.txt").write_text("".join(f"line {i}\n" for i in range(300)))


def huge_f64(tmp):
    np.save(tmp / "f64.npy", np.full((1000, 8), 1e300))


def fifo(tmp):
    copies(tmp)
    os.mkfifo(tmp / "f.npy")


NO_FILE = "needs a path, not an empty value"

CASES = [
    # info writes standard output: appended to its own input, it would corrupt it.
    Case("info appended to its --model", ["info", "--model", "{tmp}/m.model"], exit=2,
         stderr="standard output is the same file as --model", setup=copies, stdout_file="{tmp}/m.model",
         stdout_mode="ab", files={"{tmp}/m.model": UNCHANGED}),
    Case("info appended to its --weights", ["info", "--weights", "{tmp}/w.npy"], exit=2,
         stderr="standard output is the same file as --weights", setup=copies, stdout_file="{tmp}/w.npy",
         stdout_mode="ab", files={"{tmp}/w.npy": UNCHANGED}),
    # A streamed .npy is refused before its FIFO is opened (opening blocks until a reader comes).
    Case("a streamed .npy into a FIFO with no reader", ["encode", *SMALL, "--input", "{tmp}/corpus.txt",
                                                        "--seq-len", "8", "-o", "{tmp}/f.npy"],
         exit=2, stderr="cannot do: give --output FILE", setup=fifo, timeout=30),
    # An empty value for a file option is an error, never the default.
    *[Case(f"encode {flag} ''", ["encode", *SMALL, "--text", "hi", flag, "", "-o", "{tmp}/o.json"], exit=2,
           stderr=f"{flag}: {NO_FILE}", files={"{tmp}/o.json": ABSENT})
      for flag in ("--weights", "--pe-weights", "--layernorm-weight", "--layernorm-bias", "--model")],
    Case("encode --output-dir ''", ["encode", *SMALL, "--input", "{tmp}/corpus.txt", "--output-dir", ""], exit=2,
         stderr=f"--output-dir: {NO_FILE}", setup=copies),
    Case("encode --input ''", ["encode", *SMALL, "--input", ""], exit=2, stderr=f"--input: {NO_FILE}"),
    Case("info --weights ''", ["info", "--weights", ""], exit=2, stderr=f"--weights: {NO_FILE}"),
    Case("quantize --weights ''", ["quantize", "--weights", "", "-o", "{tmp}/q.safetensors"], exit=2,
         stderr=f"--weights: {NO_FILE}", files={"{tmp}/q.safetensors": ABSENT}),
    Case("encode --weights= (empty after =)", ["encode", *SMALL, "--text", "hi", "--weights=", "-o", "{tmp}/o.json"],
         exit=2, stderr=f"--weights: {NO_FILE}", files={"{tmp}/o.json": ABSENT}),
    # "--flag=" never takes the next argument as its value.
    Case("--output= --quiet", ["encode", *SMALL, "--output=", "--quiet", "--text", "hi"], exit=2,
         stderr="--output must not be empty", files={"{tmp}/--quiet": ABSENT}),
    Case("--text= is an empty text", ["encode", *SMALL, "--text=", "--quiet", "-o", "{tmp}/o.json"], exit=0,
         check=lambda r, tmp: None if '"tokens": [["<s>","</s>"]]' in (tmp / "o.json").read_text()
         else (tmp / "o.json").read_text()[:300]),
    Case("--seq-len= before -o", ["encode", *SMALL, "--text", "hi", "--seq-len=", "-o", "{tmp}/o.json"], exit=2,
         stderr="--seq-len: expected a whole number from 1 to 2147483647, not ''", files={"{tmp}/o.json": ABSENT}),
    # Finite float64 weights beyond float32 are an error, not infinities.
    Case("encode with float64 weights beyond float32", ["encode", *SMALL[:2], "--weights", "{tmp}/f64.npy",
                                                        "--text", "hello", "-o", "{tmp}/o.npy"],
         exit=1, stderr="holds 1e+300, beyond float32's range", setup=huge_f64, files={"{tmp}/o.npy": ABSENT}),
    Case("lookup with float64 weights beyond float32", ["lookup", "--weights", "{tmp}/f64.npy", "--ids", "1"],
         exit=1, stderr="row 1 holds 1e+300, beyond float32's range", setup=huge_f64),
    Case("quantize float64 weights beyond float32", ["quantize", "--weights", "{tmp}/f64.npy",
                                                     "-o", "{tmp}/q.safetensors"],
         exit=1, stderr="beyond float32's range", setup=huge_f64, files={"{tmp}/q.safetensors": ABSENT}),
    # quantize: a report that cannot be written fails the run before the file is in place.
    Case("quantize with standard output on /dev/full", ["quantize", "--weights", str(TABLE),
                                                         "-o", "{tmp}/q.safetensors"],
         exit=1, stderr="No space left on device", stdout_file="/dev/full", files={"{tmp}/q.safetensors": ABSENT}),
    # An empty input is an error without --shard, for --output-dir too; nothing is created.
    Case("an empty input into --output-dir", ["encode", *SMALL, "--input", "{tmp}/empty.txt", "--output-dir",
                                              "{tmp}/od"],
         exit=2, stderr="has no text", setup=lambda tmp: (tmp / "empty.txt").write_text(""), files={"{tmp}/od": ABSENT}),
    Case("blank lines with --skip-empty into --output-dir", ["encode", *SMALL, "--input", "{tmp}/blank.txt",
                                                             "--skip-empty", "--output-dir", "{tmp}/od"],
         exit=2, stderr="has no text", setup=lambda tmp: (tmp / "blank.txt").write_text("\n  \n\n"),
         files={"{tmp}/od": ABSENT}),
    # Messages stay one line whatever they quote.
    Case("a file name with a newline in a message", ["encode", *SMALL, "--input", "{tmp}/bad\nname.txt"], exit=1,
         stderr="bad\\nname.txt:1: invalid UTF-8",
         setup=lambda tmp: (tmp / "bad\nname.txt").write_bytes(b"hi\xff\n")),
    # Options that would do nothing are refused, never ignored (a second hostile pass, 2026-12-02).
    Case("pe --rope-factor without a scaling that reads it",
         ["pe", "--kind", "rope", "--d-model", "8", "--rope-factor", "4", "-o", "{tmp}/r.json"], 2,
         "--rope-factor applies to --rope-scaling linear, dynamic, yarn or llama3, not none: it would be ignored, so "
         "drop --rope-factor", files={"{tmp}/r.json": ABSENT}),
    Case("pe --rope-beta-fast with linear scaling",
         ["pe", "--kind", "rope", "--d-model", "8", "--rope-scaling", "linear", "--rope-beta-fast", "16"], 2,
         "--rope-beta-fast applies to --rope-scaling yarn, not linear"),
    Case("encode --emit rope_cos --rope-low-freq-factor with yarn",
         ["encode", *SMALL, "--text", "hi", "--emit", "rope_cos", "--rope-scaling", "yarn", "--rope-low-freq-factor",
          "2", "-o", "{tmp}/r.npy"], 2, "--rope-low-freq-factor applies to --rope-scaling llama3, not yarn",
         files={"{tmp}/r.npy": ABSENT}),
    Case("pe --kind t5 --d-model", ["pe", "--kind", "t5", "--d-model", "8", "--max-len", "4"], 2,
         "--d-model sets the width of a table, and --kind t5 has none: it would be ignored, so drop --d-model"),
    Case("pe --kind alibi --dims", ["pe", "--kind", "alibi", "--heads", "2", "--dims", "0:2"], 2,
         "--dims chooses columns of a table d_model wide; --kind alibi has no such width: drop --dims"),
    Case("pe --precision with .npy", ["pe", "--d-model", "8", "--precision", "3", "-o", "{tmp}/p.npy"], 2,
         "--precision sets the digits of text (table, csv, json); .npy keeps floats exact: drop --precision",
         files={"{tmp}/p.npy": ABSENT}),
    Case("pe --precision with PNG", ["pe", "--d-model", "8", "--precision", "3", "-o", "{tmp}/p.png"], 2,
         "PNG keeps floats exact", files={"{tmp}/p.png": ABSENT}),
]
