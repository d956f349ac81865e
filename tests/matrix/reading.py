"""Reading inputs: a read failure is never the end of the input; long lines and
deep JSON cost bounded memory; --model is a regular file of sane size; an
empty --shard is an empty output, not an error."""
import json
import os
import subprocess

from matrix import ABSENT, EMBEDPE, Case

BIG = 400 << 20          # a sparse file: one line of 400 MB of zeros, instant to create
AS_LIMIT = 256 << 20     # ulimit -v 262144


def sparse_line(tmp, name="corpus.txt", size=BIG):
    with open(tmp / name, "wb") as f:
        f.write(b"first line\n")
        f.truncate(size)


def write(name, data):
    def setup(tmp):
        (tmp / name).write_bytes(data)
    return setup


def numpy_check(fn):
    """check(result, tmp) that loads with numpy and returns a message or None."""
    def check(result, tmp):
        import numpy as np
        try:
            return fn(np, tmp)
        except Exception as e:  # a load failure is the message
            return f"{type(e).__name__}: {e}"
    return check


def npy_shape(shape):
    return numpy_check(lambda np, tmp: None if np.load(tmp / "out.npy").shape == shape
                       else f"shape {np.load(tmp / 'out.npy').shape}, want {shape}")


def npz_zero_rows(np, tmp):
    z = np.load(tmp / "out.npz")
    want = {"input_ids": (0, 0), "attention_mask": (0, 0), "output": (0, 0, 16)}
    # config and shard: the run's config and the shard's record, as JSON text
    got = {k: z[k].shape for k in z.files if z[k].dtype.kind != "U"}
    return None if got == want else f"tensors {got}, want {want}"


def json_zero(np, tmp):
    doc = json.loads((tmp / "out.json").read_text())
    if doc["config"]["sequences"] != 0 or doc["tokens"] != [] or doc["shapes"]["output"][0] != 0:
        return f"not an empty result: {doc['config'].get('sequences')}, {doc['shapes']}"
    return None


def empty_file(np, tmp):
    data = (tmp / "out.jsonl").read_bytes()
    return None if data == b"" else f"{len(data)} bytes"


def empty_manifest(np, tmp):
    m = json.loads((tmp / "dir" / "manifest.json").read_text())
    if not m["complete"] or m["parts"] != [] or m["rows"] != 0:
        return f"manifest not complete and empty: {m['complete']}, {m['parts']}, {m['rows']}"
    if sorted(os.listdir(tmp / "dir")) != [".lock", "manifest.json"]:
        return f"files {sorted(os.listdir(tmp / 'dir'))}"
    return None


def ids_of(*texts):
    """out.npz's input_ids are, row by row, the ids of `texts` as given with --text (padding dropped): the
    lines were read whole, their line ends (CRLF too) cut off and nothing else."""
    def check(np, tmp):
        r = subprocess.run([EMBEDPE, "tokenize", "--format", "ids", *[a for t in texts for a in ("--text", t)]],
                           capture_output=True, check=True)
        want = [[int(i) for i in line.split()] for line in r.stdout.decode().splitlines()]
        got = [[int(i) for i in row[:len(w)]] + [int(i) for i in row[len(w):] if i != 0]
               for row, w in zip(np.load(tmp / "out.npz")["input_ids"], want)]
        return None if got == want and len(want) == len(texts) else f"input_ids {got}, want {want}"
    return numpy_check(check)


ONE_LINE = write("one.txt", b"hello\n")   # 6 bytes: --shard 2/2 starts mid-line, so it holds nothing
SMALL = ["--d-model", "16"]

CASES = [
    # --max-line-bytes
    Case("a line over --max-line-bytes names file, line and flag",
         ["encode", "--input", "{tmp}/corpus.txt", "--max-line-bytes", "1000", "-o", "{tmp}/out.npz"], 1,
         "corpus.txt:2: line longer than --max-line-bytes 1000 bytes",
         files={"{tmp}/out.npz": ABSENT}, setup=write("corpus.txt", b"ok\n" + b"x" * 1001 + b"\nafter\n")),
    Case("a line of exactly --max-line-bytes (CRLF) is read",
         ["encode", "--input", "{tmp}/corpus.txt", "--max-line-bytes", "1000", "--emit", "input_ids",
          "-o", "{tmp}/out.npz"], 0, setup=write("corpus.txt", b"ok\r\n" + b"x" * 1000 + b"\r\n"),
         check=ids_of("ok", "x" * 1000)),
    Case("a 400 MB line stops at the default 4 MiB limit",
         ["encode", "--input", "{tmp}/corpus.txt", "-o", "{tmp}/out.npz"], 1,
         "corpus.txt:2: line longer than --max-line-bytes 4194304 bytes",
         files={"{tmp}/out.npz": ABSENT}, setup=sparse_line),
    Case("a huge line under ulimit -v is a clear error at the default limit, not an OOM kill",
         ["encode", "--input", "{tmp}/corpus.txt", "-o", "{tmp}/out.npz"], 1,
         "line longer than --max-line-bytes", files={"{tmp}/out.npz": ABSENT}, setup=sparse_line,
         # + 64 MiB: the tool maps ICU's data library (31 MB, for Hugging Face tokenizers).
         limits={"AS": AS_LIMIT + (64 << 20)}, address_space_guard=True),
    # Running out of memory under ulimit -v: matrix/address_space.py.
    # EIO for real: read(2) of /proc/self/mem at offset 0 (unmapped) fails with EIO.
    Case("EIO on the first of several inputs ends the run, no output",
         ["encode", "--input", "/proc/self/mem", "--input", "{tmp}/good.txt", "--format", "jsonl",
          "-o", "{tmp}/out.jsonl"], 1, "cannot read input /proc/self/mem: Input/output error",
         files={"{tmp}/out.jsonl": ABSENT}, setup=write("good.txt", b"fine\n")),
    Case("EIO in the first part with --output-dir leaves no directory",
         ["encode", "--input", "{tmp}/good.txt", "--input", "/proc/self/mem", "--output-dir", "{tmp}/dir"], 1,
         "Input/output error", setup=write("good.txt", b"fine\n"), files={"{tmp}/dir": ABSENT}),
    Case("EIO after the first part with --output-dir leaves an incomplete manifest",
         ["encode", "--input", "{tmp}/good.txt", "--input", "/proc/self/mem", "--shard-rows", "1",
          "--output-dir", "{tmp}/dir"], 1,
         "Input/output error", setup=write("good.txt", b"fine\n"),
         files={"{tmp}/dir/manifest.json": lambda p: None if '"complete": false' in p.read_text()
                else "manifest says complete"}),
    Case("a long line in the first of several inputs ends the run",
         ["encode", "--input", "{tmp}/a.txt", "--input", "{tmp}/b.txt", "--max-line-bytes", "10",
          "--output-dir", "{tmp}/dir"], 1, "a.txt:1: line longer than --max-line-bytes 10",
         files={"{tmp}/dir": ABSENT},
         setup=lambda tmp: ((tmp / "a.txt").write_text("x" * 11 + "\n"), (tmp / "b.txt").write_text("ok\n"))),
    Case("--max-line-bytes 0 is a usage error",
         ["encode", "--input", "{tmp}/a.txt", "--max-line-bytes", "0", "-o", "{tmp}/out.npz"], 2,
         "--max-line-bytes", setup=write("a.txt", b"a\n")),
    Case("a directory as --input", ["encode", "--input", "{tmp}", "-o", "{tmp}/out.npz"], 1, "is a directory",
         files={"{tmp}/out.npz": ABSENT}),
    Case("JSONL nested deeper than 512 levels names the limit",
         ["encode", "--input", "{tmp}/deep.jsonl", "--input-format", "jsonl", "-o", "{tmp}/out.npz"], 1,
         "deep.jsonl:1: JSON nested deeper than 512 levels", files={"{tmp}/out.npz": ABSENT},
         setup=write("deep.jsonl", b'{"text": "a", "x": ' + b"[" * 100000 + b"]" * 100000 + b"}\n")),
    Case("JSONL of 500 levels is read",
         ["encode", "--input", "{tmp}/deep.jsonl", "--input-format", "jsonl", "--emit", "input_ids",
          "-o", "{tmp}/out.npz"], 0,
         setup=write("deep.jsonl", b'{"text": "a", "x": ' + b"[" * 500 + b"]" * 500 + b"}\n"), check=ids_of("a")),

    # --model
    Case("/dev/urandom as --model is refused at once",
         ["encode", "--text", "hi", "--model", "/dev/urandom", "-o", "{tmp}/out.npz"], 1,
         "model /dev/urandom is not a regular file", files={"{tmp}/out.npz": ABSENT}, timeout=20),
    Case("a FIFO as --model is refused without waiting for a writer",
         ["encode", "--text", "hi", "--model", "{tmp}/fifo.model", "-o", "{tmp}/out.npz"], 1,
         "fifo.model is not a regular file", files={"{tmp}/out.npz": ABSENT},
         setup=lambda tmp: os.mkfifo(tmp / "fifo.model"), timeout=20),
    Case("a --model over 1 GiB is refused before reading",
         ["encode", "--text", "hi", "--model", "{tmp}/big.model", "-o", "{tmp}/out.npz"], 1,
         "more than a SentencePiece model can be", files={"{tmp}/out.npz": ABSENT},
         setup=lambda tmp: os.truncate(open(tmp / "big.model", "wb").name, (1 << 30) + 1), timeout=20),

    # empty shards
    Case("empty shard: npy with --seq-len has shape (0, L, D)",
         ["encode", "--input", "{tmp}/one.txt", "--shard", "2/2", "--seq-len", "8", *SMALL, "-o", "{tmp}/out.npy"],
         0, setup=ONE_LINE, check=npy_shape((0, 8, 16))),
    Case("empty shard: npy without --seq-len has shape (0, 0, D)",
         ["encode", "--input", "{tmp}/one.txt", "--shard", "2/2", *SMALL, "-o", "{tmp}/out.npy"],
         0, setup=ONE_LINE, check=npy_shape((0, 0, 16))),
    Case("empty shard: npz holds each tensor with zero rows",
         ["encode", "--input", "{tmp}/one.txt", "--shard", "2/2", *SMALL, "-o", "{tmp}/out.npz"],
         0, setup=ONE_LINE, check=numpy_check(npz_zero_rows)),
    Case("empty shard: json has zero sequences",
         ["encode", "--input", "{tmp}/one.txt", "--shard", "2/2", *SMALL, "-o", "{tmp}/out.json"],
         0, setup=ONE_LINE, check=numpy_check(json_zero)),
    Case("empty shard: jsonl is empty",
         ["encode", "--input", "{tmp}/one.txt", "--shard", "2/2", *SMALL, "-o", "{tmp}/out.jsonl"],
         0, setup=ONE_LINE, check=numpy_check(empty_file)),
    Case("empty shard: --output-dir has a complete manifest of zero parts",
         ["encode", "--input", "{tmp}/one.txt", "--shard", "2/2", *SMALL, "--output-dir", "{tmp}/dir"],
         0, setup=ONE_LINE, check=numpy_check(empty_manifest)),
    Case("empty shard of an empty file, --shard 1/1",
         ["encode", "--input", "{tmp}/empty.txt", "--shard", "1/1", *SMALL, "-o", "{tmp}/out.npz"],
         0, setup=write("empty.txt", b""), check=numpy_check(npz_zero_rows)),
    Case("empty shard with --skip-empty: only blank lines",
         ["encode", "--input", "{tmp}/blank.txt", "--shard", "1/2", "--skip-empty", *SMALL, "-o", "{tmp}/out.npz"],
         0, setup=write("blank.txt", b"\n \n\t\n\n"), check=numpy_check(npz_zero_rows)),
    Case("empty shard: tokenize json has zero sequences",
         ["tokenize", "--input", "{tmp}/one.txt", "--shard", "2/2", "-o", "{tmp}/out.json"], 0, setup=ONE_LINE,
         check=lambda r, tmp: None if json.loads((tmp / "out.json").read_text())["tokens"] == [] else "not empty"),
    Case("empty shard: tokenize ids is empty",
         ["tokenize", "--input", "{tmp}/one.txt", "--shard", "2/2", "--format", "ids", "-o", "{tmp}/out.txt"], 0,
         setup=ONE_LINE, check=lambda r, tmp: None if (tmp / "out.txt").read_bytes() == b"" else "not empty"),
    Case("an empty input without --shard stays an error",
         ["encode", "--input", "{tmp}/empty.txt", "-o", "{tmp}/out.npz"], 2, "has no text",
         files={"{tmp}/out.npz": ABSENT}, setup=write("empty.txt", b"")),
]
