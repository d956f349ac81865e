"""Where outputs go: never over an input, only regular files replaced, modes kept.

Every row that writes a file checks afterwards that no temporary is left
(matrix_test does that for all rows).
"""
import json
import os
import shutil
import stat
import subprocess

import numpy as np

from cli_test import read_safetensors
from matrix import ABSENT, EMBEDPE, PRESENT, UNCHANGED, Case, TESTS

WEIGHTS = TESTS / "golden" / "weights"
MODEL = TESTS / "models" / "sp-test.model"
SMALL = ["--model", str(MODEL), "--d-model", "8"]


def files(tmp):
    shutil.copy(WEIGHTS / "table_f32.npy", tmp / "table.npy")
    shutil.copy(WEIGHTS / "llama_f32.safetensors", tmp / "t.safetensors")
    shutil.copy(MODEL, tmp / "m.model")
    (tmp / "corpus.txt").write_text("first line\nsecond line\n")
    os.link(tmp / "table.npy", tmp / "hard.npy")
    os.symlink("table.npy", tmp / "soft.npy")
    os.symlink("corpus.txt", tmp / "corpus-link.txt")
    (tmp / "sub").mkdir()


def t5_bias(tmp):
    """A T5 relative_attention_bias table (32 buckets, 2 heads), and a symlink to it."""
    np.save(tmp / "bias.npy", np.arange(64, dtype=np.float32).reshape(32, 2))
    (tmp / "bias-link.npy").symlink_to(tmp / "bias.npy")


def is_json(path):
    try:
        json.loads(path.read_bytes())
    except ValueError as e:
        return f"not JSON: {e}"
    return None


def is_npy(path):
    return None if path.read_bytes()[:6] == b"\x93NUMPY" else "not a .npy file"


def quantized_from(source):
    """The quantized file, read back by lookup, is the table in `source` (beside it; read with NumPy) within
    half an int8 step of each row (scale = max|row|/127): a quantized table, not merely a file of that name."""
    def check(path):
        name = [n for n in read_safetensors(path)[0] if not n.endswith(".scale")][0]
        original = read_safetensors(path.parent / source)[0][name].astype(np.float64)
        rows = [0, 1, original.shape[0] // 2, original.shape[0] - 1]
        r = subprocess.run([EMBEDPE, "lookup", "--weights", str(path), "--ids", ",".join(map(str, rows)),
                            "--format", "json"], capture_output=True)
        if r.returncode != 0:
            return "lookup failed: " + r.stderr.decode(errors="replace")
        got = np.array(json.loads(r.stdout)["rows"], dtype=np.float64)
        step = np.abs(original[rows]).max(axis=1, keepdims=True) / 127
        worst = float((np.abs(got - original[rows]) / step).max())
        return None if worst <= 0.5 + 1e-3 else f"rows differ from the table by {worst:.3f} int8 steps"
    return check


def same_as_stdout(name):
    """The file `name` holds what the same command prints without -o."""
    def check(result, tmp):
        args = list(result.args)
        i = args.index("-o")
        del args[i:i + 2]
        shown = subprocess.run(args, capture_output=True, check=True).stdout
        return None if (tmp / name).read_bytes() == shown else f"{name} is not what the command prints"
    return check


def mode_is(want):
    def check(path):
        got = stat.S_IMODE(path.stat().st_mode)
        return None if got == want else f"mode {got:o}, expected {want:o}"
    return check


def owner_is(uid, gid, mode):
    def check(path):
        st = path.stat()
        if (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) != (uid, gid, mode):
            return f"owner {st.st_uid}:{st.st_gid} mode {stat.S_IMODE(st.st_mode):o}"
        return is_json(path)
    return check


def still_symlink_to(target):
    def check(path):
        if not path.is_symlink() or os.readlink(path) != target:
            return "the symbolic link was replaced"
        return None
    return check


def existing(mode, uid=None, gid=None):
    def setup(tmp):
        files(tmp)
        p = tmp / "old.json"
        p.write_text("old\n")
        os.chmod(p, mode)
        if uid is not None:
            os.chown(p, uid, gid)
    return setup


def device_still(path):
    return None if stat.S_ISCHR(path.stat().st_mode) else "no longer a device"


CLOBBER = "writing it would destroy the input"

CASES = [
    # An output that is an input: refused before any work, the input untouched.
    Case("encode -o the --weights file", ["encode", *SMALL[:2], "--weights", "{tmp}/table.npy", "--text", "hi",
                                          "-o", "{tmp}/table.npy"],
         exit=2, stderr="--weights {tmp}/table.npy; " + CLOBBER, setup=files, files={"{tmp}/table.npy": UNCHANGED}),
    Case("encode -o a hard link to --weights", ["encode", *SMALL[:2], "--weights", "{tmp}/table.npy", "--text", "hi",
                                                "-o", "{tmp}/hard.npy"],
         exit=2, stderr=CLOBBER, setup=files, files={"{tmp}/table.npy": UNCHANGED, "{tmp}/hard.npy": UNCHANGED}),
    Case("encode -o a symlink to --weights", ["encode", *SMALL[:2], "--weights", "{tmp}/table.npy", "--text", "hi",
                                              "-o", "{tmp}/soft.npy"],
         exit=2, stderr=CLOBBER, setup=files, files={"{tmp}/table.npy": UNCHANGED, "{tmp}/soft.npy": UNCHANGED}),
    Case("encode -o --weights spelled with ./ and ..", ["encode", *SMALL[:2], "--weights", "{tmp}/table.npy",
                                                        "--text", "hi", "-o", "{tmp}/sub/.././table.npy"],
         exit=2, stderr=CLOBBER, setup=files, files={"{tmp}/table.npy": UNCHANGED}),
    Case("encode -o --weights:TENSOR's file", ["encode", *SMALL[:2], "--weights", "{tmp}/t.safetensors:model.embed",
                                               "--text", "hi", "-o", "{tmp}/t.safetensors", "--format", "npz"],
         exit=2, stderr=CLOBBER, setup=files, files={"{tmp}/t.safetensors": UNCHANGED}),
    Case("encode -o the --input", ["encode", *SMALL, "--input", "{tmp}/corpus.txt", "--format", "json",
                                   "-o", "{tmp}/corpus.txt"],
         exit=2, stderr="--input {tmp}/corpus.txt", setup=files, files={"{tmp}/corpus.txt": UNCHANGED}),
    Case("encode -o the second --input", ["encode", *SMALL, "--input", "{tmp}/m.model", "--input", "{tmp}/corpus.txt",
                                          "--format", "jsonl", "-o", "{tmp}/corpus-link.txt"],
         exit=2, stderr=CLOBBER, setup=files, files={"{tmp}/corpus.txt": UNCHANGED}),
    Case("encode -o the --model", ["encode", "--model", "{tmp}/m.model", "--text", "hi", "--format", "json",
                                   "-o", "{tmp}/m.model"],
         exit=2, stderr="--model {tmp}/m.model", setup=files, files={"{tmp}/m.model": UNCHANGED}),
    Case("encode -o the --pe-weights", ["encode", *SMALL, "--pe", "learned", "--pe-weights", "{tmp}/table.npy",
                                        "--text", "hi", "-o", "{tmp}/table.npy"],
         exit=2, stderr="--pe-weights", setup=files, files={"{tmp}/table.npy": UNCHANGED}),
    Case("encode -o the --layernorm-weight", ["encode", *SMALL, "--layernorm", "--layernorm-weight", "{tmp}/table.npy",
                                              "--text", "hi", "-o", "{tmp}/table.npy"],
         exit=2, stderr="--layernorm-weight", setup=files, files={"{tmp}/table.npy": UNCHANGED}),
    Case("encode -o the --layernorm-bias", ["encode", *SMALL, "--layernorm", "--layernorm-bias", "{tmp}/table.npy",
                                            "--text", "hi", "-o", "{tmp}/table.npy"],
         exit=2, stderr="--layernorm-bias", setup=files, files={"{tmp}/table.npy": UNCHANGED}),
    Case("encode --input - from a file, -o that file", ["encode", *SMALL, "--input", "-", "--format", "json",
                                                        "-o", "{tmp}/corpus.txt"],
         exit=2, stderr="--input <stdin>", setup=files, stdin_file="{tmp}/corpus.txt",
         files={"{tmp}/corpus.txt": UNCHANGED}),
    Case("encode to standard output appended to the --input", ["encode", *SMALL, "--input", "{tmp}/corpus.txt"],
         exit=2, stderr="standard output is the same file as --input", setup=files,
         stdout_file="{tmp}/corpus.txt", stdout_mode="ab", files={"{tmp}/corpus.txt": UNCHANGED}),
    Case("tokenize -o the --input", ["tokenize", "--input", "{tmp}/corpus.txt", "-o", "{tmp}/corpus.txt"],
         exit=2, stderr=CLOBBER, setup=files, files={"{tmp}/corpus.txt": UNCHANGED}),
    Case("tokenize -o the --model", ["tokenize", "--model", "{tmp}/m.model", "--text", "hi", "-o", "{tmp}/m.model"],
         exit=2, stderr=CLOBBER, setup=files, files={"{tmp}/m.model": UNCHANGED}),
    Case("pe -o T5's --weights", ["pe", "--kind", "t5", "--max-len", "4", "--weights", "{tmp}/bias.npy",
                                  "-o", "{tmp}/bias.npy"],
         exit=2, stderr="--weights {tmp}/bias.npy; " + CLOBBER, setup=t5_bias, files={"{tmp}/bias.npy": UNCHANGED}),
    Case("pe -o a symlink to T5's --weights", ["pe", "--kind", "t5", "--max-len", "4", "--weights", "{tmp}/bias.npy",
                                               "--format", "npy", "-o", "{tmp}/bias-link.npy"],
         exit=2, stderr=CLOBBER, setup=t5_bias, files={"{tmp}/bias.npy": UNCHANGED}),
    Case("pe to standard output appended to T5's --weights", ["pe", "--kind", "t5", "--max-len", "4", "--weights",
                                                              "{tmp}/bias.npy", "--format", "npy"],
         exit=2, stderr="standard output is the same file as --weights", setup=t5_bias,
         stdout_file="{tmp}/bias.npy", stdout_mode="ab", files={"{tmp}/bias.npy": UNCHANGED}),
    Case("quantize -o the --weights", ["quantize", "--weights", "{tmp}/t.safetensors", "-o", "{tmp}/t.safetensors"],
         exit=2, stderr=CLOBBER, setup=files, files={"{tmp}/t.safetensors": UNCHANGED}),
    Case("quantize's report appended to the --weights", ["quantize", "--weights", "{tmp}/t.safetensors",
                                                         "-o", "{tmp}/q.safetensors"],
         exit=2, stderr="standard output is the same file as --weights", setup=files,
         stdout_file="{tmp}/t.safetensors", stdout_mode="ab",
         files={"{tmp}/t.safetensors": UNCHANGED, "{tmp}/q.safetensors": ABSENT}),
    Case("lookup appended to its --weights", ["lookup", "--weights", "{tmp}/table.npy", "--ids", "1"],
         exit=2, stderr=CLOBBER, setup=files, stdout_file="{tmp}/table.npy", stdout_mode="ab",
         files={"{tmp}/table.npy": UNCHANGED}),

    # --output-dir: no input may be (or become) one of the files the run writes there.
    Case("--output-dir holding the --weights as a part name",
         ["encode", *SMALL[:2], "--weights", "{tmp}/out/part-00000.npz", "--input", "{tmp}/corpus.txt",
          "--output-dir", "{tmp}/out"],
         exit=2, stderr="--weights {tmp}/out/part-00000.npz is one of the files --output-dir", setup=lambda tmp: (
             files(tmp), (tmp / "out").mkdir(), shutil.copy(tmp / "table.npy", tmp / "out" / "part-00000.npz")),
         files={"{tmp}/out/part-00000.npz": UNCHANGED, "{tmp}/out/manifest.json": ABSENT}),
    Case("--output-dir holding the --model as manifest.json",
         ["encode", "--model", "{tmp}/out/manifest.json", "--input", "{tmp}/corpus.txt", "--output-dir", "{tmp}/out"],
         exit=2, stderr="--model {tmp}/out/manifest.json is one of the files", setup=lambda tmp: (
             files(tmp), (tmp / "out").mkdir(), shutil.copy(MODEL, tmp / "out" / "manifest.json")),
         files={"{tmp}/out/manifest.json": UNCHANGED}),
    Case("--output-dir whose future part is the --input",
         ["encode", *SMALL, "--input", "{tmp}/out/part-00001.npz", "--output-dir", "{tmp}/out"],
         exit=2, stderr="--input {tmp}/out/part-00001.npz is one of the files", setup=lambda tmp: (
             (tmp / "out").mkdir(), (tmp / "out" / "part-00001.npz").write_text("a\nb\n")),
         files={"{tmp}/out/part-00001.npz": UNCHANGED}),

    # Only regular files are replaced; everything else is written directly.
    Case("-o /dev/stdout redirected to a file", ["encode", *SMALL, "--text", "hi", "-o", "/dev/stdout"],
         exit=0, stdout_file="{tmp}/out.json", files={"{tmp}/out.json": is_json, "/dev/stdout": PRESENT}),
    Case("-o /dev/fd/1 redirected to a file", ["encode", *SMALL, "--text", "hi", "-o", "/dev/fd/1"],
         exit=0, stdout_file="{tmp}/out.json", files={"{tmp}/out.json": is_json}),
    Case("-o /proc/self/fd/1 appended", ["tokenize", "--text", "hi", "--format", "ids", "-o", "/proc/self/fd/1"],
         exit=0, setup=lambda tmp: (tmp / "log").write_text("kept\n"), stdout_file="{tmp}/log", stdout_mode="ab",
         files={"{tmp}/log": lambda p: None if p.read_text().startswith("kept\n1 ") else repr(p.read_text())}),
    Case("-o a symlink to /dev/stdout", ["encode", *SMALL, "--text", "hi", "-o", "{tmp}/out-link"],
         exit=0, setup=lambda tmp: os.symlink("/dev/stdout", tmp / "out-link"), stdout_file="{tmp}/out.json",
         files={"{tmp}/out.json": is_json, "{tmp}/out-link": still_symlink_to("/dev/stdout")}),
    Case("-o /dev/null", ["encode", *SMALL, "--text", "hi", "-o", "/dev/null"],
         exit=0, files={"/dev/null": device_still}),
    Case("-o a symlink to /dev/null", ["encode", *SMALL, "--text", "hi", "-o", "{tmp}/null.json"],
         exit=0, setup=lambda tmp: os.symlink("/dev/null", tmp / "null.json"),
         files={"{tmp}/null.json": still_symlink_to("/dev/null"), "/dev/null": device_still}),
    Case("a streamed .npy to /dev/stdout is refused", ["encode", *SMALL, "--input", "{tmp}/corpus.txt",
                                                       "--batch-size", "1", "--seq-len", "8", "--format", "npy",
                                                       "-o", "/dev/stdout"],
         exit=2, stderr="give --output FILE", setup=files, stdout_file="{tmp}/out.npy",
         files={"{tmp}/out.npy": lambda p: None if p.stat().st_size == 0 else "written to"}),
    Case("-o a symlink to a file replaces the file, keeps the link", ["encode", *SMALL, "--text", "hi",
                                                                      "-o", "{tmp}/link.json"],
         exit=0, setup=lambda tmp: ((tmp / "sub" ).mkdir(), (tmp / "sub" / "real.json").write_text("old"),
                                    os.symlink("sub/real.json", tmp / "link.json")),
         files={"{tmp}/link.json": still_symlink_to("sub/real.json"), "{tmp}/sub/real.json": is_json}),
    Case("-o a dangling symlink creates its target", ["encode", *SMALL, "--text", "hi", "-o", "{tmp}/link.json"],
         exit=0, setup=lambda tmp: os.symlink("made.json", tmp / "link.json"),
         files={"{tmp}/link.json": still_symlink_to("made.json"), "{tmp}/made.json": is_json}),
    Case("-o a symlink loop", ["encode", *SMALL, "--text", "hi", "-o", "{tmp}/a.json"],
         exit=1, stderr="Too many levels of symbolic links",
         setup=lambda tmp: (os.symlink("b.json", tmp / "a.json"), os.symlink("a.json", tmp / "b.json"))),
    Case("-o a directory", ["encode", *SMALL, "--text", "hi", "-o", "{tmp}"], exit=1, stderr="is a directory"),
    Case("-o a symlink to a directory", ["encode", *SMALL, "--text", "hi", "-o", "{tmp}/dir.json"],
         exit=1, stderr="is a directory", setup=lambda tmp: os.symlink(".", tmp / "dir.json")),

    # Overwriting keeps permissions (and the owner, as root); new files get 0666 & ~umask.
    Case("overwrite keeps mode 0600", ["encode", *SMALL, "--text", "hi", "-o", "{tmp}/old.json"],
         exit=0, setup=existing(0o600), files={"{tmp}/old.json": mode_is(0o600)}),
    Case("overwrite keeps mode 0755", ["encode", *SMALL, "--text", "hi", "-o", "{tmp}/old.json"],
         exit=0, setup=existing(0o755), files={"{tmp}/old.json": mode_is(0o755)}),
    Case("overwrite as root keeps the owner", ["encode", *SMALL, "--text", "hi", "-o", "{tmp}/old.json"],
         exit=0, setup=existing(0o640, 1234, 5678), files={"{tmp}/old.json": owner_is(1234, 5678, 0o640)},
         root_only=True),
    Case("a new file gets 0666 & ~umask 077", ["encode", *SMALL, "--text", "hi", "-o", "{tmp}/new.json"],
         exit=0, umask=0o077, files={"{tmp}/new.json": mode_is(0o600)}),
    Case("a new file gets 0666 & ~umask 022", ["encode", *SMALL, "--text", "hi", "-o", "{tmp}/new.json"],
         exit=0, umask=0o022, files={"{tmp}/new.json": mode_is(0o644)}),

    # Names and extensions.
    Case("a 250-character file name", ["encode", *SMALL, "--text", "hi", "-o", "{tmp}/" + "n" * 245 + ".json"],
         exit=0, files={"{tmp}/" + "n" * 245 + ".json": is_json}),
    Case("a 255-character file name", ["encode", *SMALL, "--text", "hi", "-o", "{tmp}/" + "n" * 250 + ".json"],
         exit=0, files={"{tmp}/" + "n" * 250 + ".json": is_json}),
    Case("a 256-character file name", ["encode", *SMALL, "--text", "hi", "-o", "{tmp}/" + "n" * 251 + ".json"],
         exit=1, stderr="File name too long"),
    Case("-o x.NPY is .npy", ["encode", *SMALL, "--text", "hi", "-o", "{tmp}/x.NPY"],
         exit=0, files={"{tmp}/x.NPY": is_npy}),
    Case("-o x.Json is JSON", ["encode", *SMALL, "--text", "hi", "-o", "{tmp}/x.Json"],
         exit=0, files={"{tmp}/x.Json": is_json}),
    Case("encode -o x.txt is refused", ["encode", *SMALL, "--text", "hi", "-o", "{tmp}/x.txt"],
         exit=2, stderr="cannot tell the format of {tmp}/x.txt from its extension '.txt'",
         files={"{tmp}/x.txt": ABSENT}),
    Case("encode -o x.npy.gz is refused", ["encode", *SMALL, "--text", "hi", "-o", "{tmp}/x.npy.gz"],
         exit=2, stderr="'.gz'", files={"{tmp}/x.npy.gz": ABSENT}),
    Case("pe -o x.bmp is refused", ["pe", "--d-model", "8", "-o", "{tmp}/x.bmp"],
         exit=2, stderr="cannot tell the format", files={"{tmp}/x.bmp": ABSENT}),
    Case("pe -o x.txt is the table", ["pe", "--d-model", "8", "-o", "{tmp}/x.txt"],
         exit=0, check=same_as_stdout("x.txt")),
    Case("quantize -o x.npy is refused", ["quantize", "--weights", "{tmp}/t.safetensors", "-o", "{tmp}/x.npy"],
         exit=2, stderr="quantize writes .safetensors", setup=files, files={"{tmp}/x.npy": ABSENT}),
    Case("quantize -o X.SAFETENSORS is fine", ["quantize", "--weights", "{tmp}/t.safetensors",
                                               "-o", "{tmp}/X.SAFETENSORS"],
         exit=0, setup=files, files={"{tmp}/X.SAFETENSORS": quantized_from("t.safetensors")}),

    # Faults while writing.
    Case("the file-size limit is 'file too large'", ["encode", *SMALL[:2], "--d-model", "64", "--text", "hi " * 200,
                                                     "-o", "{tmp}/big.json"],
         exit=1, stderr="file too large", limits={"FSIZE": 4096}, files={"{tmp}/big.json": ABSENT}),
    Case("/dev/full", ["encode", *SMALL, "--text", "hi", "-o", "/dev/full"], exit=1, stderr="No space left on device"),
]
