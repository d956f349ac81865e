"""Limits: threads that cannot start, absurd sizes refused up front, position
arithmetic that cannot overflow, JSON without NaN, tensor names with ':' and
safetensors headers past their limits."""
import json
import struct
import subprocess

import numpy as np

from matrix import ABSENT, EMBEDPE, Case


# Thread stacks are sized from RLIMIT_STACK: with a 256 TiB stack limit, more
# than the whole user address space, the first pthread_create fails (EAGAIN:
# its stack cannot be mapped) while the process itself runs normally. No
# address-space limit is needed, so these rows run under AddressSanitizer too
# (which reserves terabytes of shadow memory and cannot start under ulimit -v).
NO_THREADS = {"STACK": 1 << 48}
BIG = "2000000000"


def same_as_unlimited(name):
    """The output `name` is byte for byte what the same run writes with no limit."""
    def check(result, tmp):
        args = [a.replace("{tmp}", str(tmp)) for a in result.args[1:]]
        unlimited = [a if a != str(tmp / name) else str(tmp / ("unlimited-" + name)) for a in args]
        subprocess.run([result.args[0], *unlimited], check=True, capture_output=True)
        if (tmp / name).read_bytes() != (tmp / ("unlimited-" + name)).read_bytes():
            return f"{name} differs from the run without limits"
        return None
    return check


def four_lines(tmp):
    (tmp / "in.txt").write_text("one\ntwo\nthree\nfour\n")


def write_safetensors(path, tensors, header_extra=None):
    header, blobs, offset = {}, [], 0
    for name, array in tensors.items():
        data = np.ascontiguousarray(array, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    if header_extra:
        header.update(header_extra)
    text = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def colon_tensors(tmp):
    table = np.arange(12, dtype=np.float32).reshape(4, 3)
    write_safetensors(tmp / "w.safetensors", {"enc:emb": table, "other": table * 2})
    write_safetensors(tmp / "a:b.safetensors", {"enc:emb": table})


def nan_table(tmp):
    table = np.zeros((4, 3), dtype=np.float32)
    table[1, 2] = np.nan
    table[2, 0] = np.inf
    np.save(tmp / "nan.npy", table)


def huge_rows(tmp):
    """Row 1 holds the float32 maximum (huge.npy), or a tenth of it (large.npy)."""
    for name, value in (("huge.npy", np.finfo(np.float32).max), ("large.npy", np.finfo(np.float32).max / 10)):
        table = np.ones((4, 3), dtype=np.float32)
        table[1, 1] = -value
        np.save(tmp / name, table)


def finite_lookup(row):
    """The quantized table's `row`, read back by lookup, is finite."""
    def check(path):
        r = subprocess.run([EMBEDPE, "lookup", "--weights", str(path), "--ids", str(row), "--format", "json"],
                           capture_output=True)
        if r.returncode != 0:
            return "lookup failed: " + r.stderr.decode(errors="replace")
        values = json.loads(r.stdout)["rows"][0]
        return None if all(np.isfinite(values)) else f"row {row} reads back as {values}"
    return check


def nan_vocab_table(tmp):
    """The default model's 8000 rows, row 1 holding a NaN and row 2 an infinity; lines of ids."""
    table = np.zeros((8000, 3), dtype=np.float32)
    table[1, 2] = np.nan
    table[2, 0] = np.inf
    np.save(tmp / "nan8000.npy", table)
    (tmp / "a.txt").write_text("0 0\n0 3\n0 1\n")
    (tmp / "b.txt").write_text("0 0\n0 3\n")
    (tmp / "c.txt").write_text("3\n0 2\n")


def huge_header(tmp):
    (tmp / "huge.safetensors").write_bytes(struct.pack("<Q", 200 << 20) + b"{" + b" " * 1024)


def deep_header(tmp):
    text = b'{"a": ' + b"[" * 100000 + b"]" * 100000 + b"}"
    (tmp / "deep.safetensors").write_bytes(struct.pack("<Q", len(text)) + text)


def expect_stdout(fragment):
    def check(result, tmp):
        out = result.stdout.decode(errors="replace")
        return None if fragment in out else f"stdout lacks {fragment!r}: {out[:300]!r}"
    return check


def pe_columns(name, d_model, dims, positions):
    """The CSV `name` holds, for `positions`, the sinusoidal PE's columns `dims` of a d_model-wide table,
    computed here from the formula in float64 (no table of d_model columns is ever made)."""
    def check(result, tmp):
        lines = (tmp / name).read_text().splitlines()
        if lines[0].split(",") != ["position"] + [f"dim{k}" for k in dims]:
            return f"header {lines[0]!r}"
        rows = [line.split(",") for line in lines[1:]]
        if [int(r[0]) for r in rows] != list(positions):
            return f"positions {[r[0] for r in rows]}"
        k = np.array(dims, dtype=np.float64)
        angle = np.array(positions, dtype=np.float64)[:, None] / np.power(10000.0, 2 * (k // 2) / d_model)
        want = np.where(k % 2 == 0, np.sin(angle), np.cos(angle))
        got = np.array([r[1:] for r in rows], dtype=np.float64)
        worst = float(np.abs(got - want).max())
        return None if worst <= 1e-7 else f"values differ from the formula by {worst}"
    return check


def audit_covers(first, end):
    """pe --audit's table covers positions first..end-1 in contiguous bands, every position sampled, and its
    f16/bf16 storage errors stay within half an ulp at 1 (the values are in [-1, 1])."""
    def check(result, tmp):
        lines = result.stdout.decode().splitlines()
        header = lines[1].split()
        rows = [dict(zip(header, line.split())) for line in lines[2:]]
        spans = [(int(r["first"]), int(r["last"])) for r in rows]
        if not rows or spans[0][0] != first or spans[-1][1] != end - 1 or \
                any(b[0] != a[1] + 1 for a, b in zip(spans, spans[1:])):
            return f"bands {spans} do not cover {first}..{end - 1}"
        if sum(int(r["sampled"]) for r in rows) != end - first:
            return "not every position was sampled"
        for r in rows:
            if not (float(r["f16_stored_max"]) <= (2.0 ** -12 + 2.0 ** -24) * (1 + 1e-6)
                    and float(r["bf16_stored_max"]) <= (2.0 ** -9 + 2.0 ** -24) * (1 + 1e-6)):
                return f"storage error beyond half an ulp in {r}"
        return None
    return check


CASES = [
    # ---- B: a thread that cannot start is an error, and the output is removed
    Case("threads cannot start in parallel_for",
         ["encode", "--text", "a", "--text", "b", "--text", "c", "--text", "d", "--threads", "4", "-o",
          "{tmp}/out.npy"],
         1, "cannot start a thread: Resource temporarily unavailable; lower --threads",
         files={"{tmp}/out.npy": ABSENT}, limits=NO_THREADS),
    # --threads 1 asks for no thread beside the caller's: where none can
    # start, each streamed batch is written before the next is computed.
    Case("--threads 1 streams without a writer thread where none can start",
         ["encode", "--input", "{tmp}/in.txt", "--threads", "1", "--batch-size", "2", "--format", "jsonl", "-o",
          "{tmp}/out.jsonl"],
         0, setup=four_lines, limits=NO_THREADS, check=same_as_unlimited("out.jsonl")),
    Case("the default threads stream without a writer thread where none can start",
         ["encode", "--input", "{tmp}/in.txt", "--batch-size", "1", "--seq-len", "4", "-o", "{tmp}/out.npy"],
         0, setup=four_lines, limits=NO_THREADS, check=same_as_unlimited("out.npy")),
    Case("threads cannot start for a JSON batch",
         ["encode", "--text", "a", "--text", "b", "--threads", "2", "--seq-len", "4000", "--d-model", "64",
          "-o", "{tmp}/out.json"],
         1, "cannot start a thread", files={"{tmp}/out.json": ABSENT}, limits=NO_THREADS),

    # Building a BPE model's segment tables on a second core only speeds the
    # load: where no thread can start, it is done on the one there is.
    Case("a BPE model loads where no thread can start",
         ["tokenize", "--model", "{models}/mistral-v3-tokenizer.model", "--text", "Hello world", "--format", "ids"],
         0, check=expect_stdout("1 "), limits=NO_THREADS),
    Case("a BPE model encodes given texts with --threads 1 where no thread can start",
         ["encode", "--model", "{models}/mistral-v3-tokenizer.model", "--text", "a", "--text", "b", "--threads", "1",
          "--d-model", "8", "-o", "{tmp}/out.npz"],
         0, limits=NO_THREADS, check=same_as_unlimited("out.npz")),

    # Work whose thread count nobody chose runs on the threads that can start.
    Case("tokenize (no --threads) of a file where no thread can start",
         ["tokenize", "--input", "{tmp}/in.txt", "-o", "{tmp}/out.npz"],
         0, setup=four_lines, limits=NO_THREADS, check=same_as_unlimited("out.npz")),
    Case("pe (no --threads) to JSON where no thread can start",
         ["pe", "--d-model", "64", "--max-len", "3000", "-o", "{tmp}/pe.json"],
         0, limits=NO_THREADS, check=same_as_unlimited("pe.json")),
    Case("encode with the default threads, one output, where no thread can start",
         ["encode", "--input", "{tmp}/in.txt", "--d-model", "8", "-o", "{tmp}/out.npz"],
         0, setup=four_lines, limits=NO_THREADS, check=same_as_unlimited("out.npz")),

    # ---- C: absurd sizes are refused up front, saying how much and what to lower
    *[Case(f"encode d_model 2e9 {fmt}", ["encode", "--text", "hi", "--d-model", BIG, "-o", f"{{tmp}}/x.{fmt}"],
           2, "GiB", files={f"{{tmp}}/x.{fmt}": ABSENT}, timeout=30)
      for fmt in ("npy", "npz", "json", "jsonl")],
    Case("encode d_model 2e9 says what to lower", ["encode", "--text", "hi", "--d-model", BIG, "-o", "{tmp}/x.npy"],
         2, "lower --d-model", files={"{tmp}/x.npy": ABSENT}, timeout=30),
    *[Case(f"pe d_model 2e9 {fmt}", ["pe", "--d-model", BIG, "-o", f"{{tmp}}/x.{fmt}"], 2,
           "lower --d-model, show fewer positions (--max-len, --positions) or fewer --dims",
           files={f"{{tmp}}/x.{fmt}": ABSENT}, timeout=30)
      for fmt in ("npy", "npz", "json", "csv", "png")],
    *[Case(f"pe rope d_model 2e9 {fmt}", ["pe", "--kind", "rope", "--d-model", BIG, "-o", f"{{tmp}}/x.{fmt}"], 2,
           "GiB", files={f"{{tmp}}/x.{fmt}": ABSENT}, timeout=30)
      for fmt in ("npy", "json")],
    Case("pe stats d_model 2e9", ["pe", "--d-model", BIG, "--stats"], 2, "--stats of 1000000001 dimension pairs would need",
         timeout=30),
    Case("pe audit d_model 1e9", ["pe", "--d-model", "1000000000", "--audit"], 2,
         "--audit takes --d-model up to 65536, not 1000000000; lower --d-model", timeout=30),
    Case("pe d_model 2e9 table shows its 8 dims at once", ["pe", "--d-model", BIG], 0,
         check=expect_stdout("dims 0:8 of 2000000000"), timeout=30),
    Case("pe d_model 2e9 table of chosen dims", ["pe", "--d-model", BIG, "--dims", "1999999990:2000000000",
                                                  "--max-len", "3", "-o", "{tmp}/t.csv"], 0,
         check=pe_columns("t.csv", 2000000000, range(1999999990, 2000000000), range(3)), timeout=30),
    Case("pe --dims beyond d_model", ["pe", "--d-model", "8", "--dims", "4:9", "-o", "{tmp}/t.csv"], 2,
         "--dims 4:9 goes beyond d_model 8", files={"{tmp}/t.csv": ABSENT}),
    Case("pe max_len 2^53 table", ["pe", "--d-model", "8", "--max-len", str(2 ** 53), "-o", "{tmp}/t.csv"], 2,
         "GiB", files={"{tmp}/t.csv": ABSENT}, timeout=30),
    *[Case(f"lookup d_model 2e9 {fmt}", ["lookup", "--ids", "1", "--d-model", BIG, "--format", fmt], 2,
           "lower --d-model or look up fewer --ids", timeout=30)
      for fmt in ("table", "json")],
    Case("encode seq_len beyond max_len refused before padding",
         ["encode", "--text", "hi", "--seq-len", "60000000", "-o", "{tmp}/x.npz"], 2,
         "--seq-len 60000000 is longer than the PE table (--max-len 5000)", files={"{tmp}/x.npz": ABSENT},
         limits={"AS": 256 << 20}, address_space_guard=True),
    # Sizes checked against ulimit -v: matrix/address_space.py.

    # ---- C: positions stay below 2^53; no overflow, no endless loop
    Case("pe positions plus offset beyond 2^53",
         ["pe", "--d-model", "8", "--positions", f"{2 ** 53 - 10}:{2 ** 53}", "--position-offset", "1000",
          "-o", "{tmp}/t.csv"], 2, f"go beyond {2 ** 53} (2^53", files={"{tmp}/t.csv": ABSENT}),
    Case("pe audit overflowing positions refused at once",
         ["pe", "--d-model", "8", "--positions", "18446744073709551000:18446744073709551615", "--audit"], 2,
         "--positions: expected A:B", timeout=10),
    Case("pe audit at the last exact positions ends",
         ["pe", "--d-model", "8", "--positions", f"{2 ** 53 - 1000}:{2 ** 53}", "--audit"], 0,
         check=audit_covers(2 ** 53 - 1000, 2 ** 53), timeout=60),
    Case("encode position offset at 2^53 is refused by the table",
         ["encode", "--text", "hi", "--position-offset", str(2 ** 53 - 1), "--max-len", str(2 ** 53),
          "-o", "{tmp}/x.npy"], 2, "PE table", files={"{tmp}/x.npy": ABSENT}),

    # ---- D: lookup's JSON refuses NaN/Inf as encode's does
    Case("lookup json NaN", ["lookup", "--weights", "{tmp}/nan.npy", "--ids", "1", "--format", "json"], 1,
         "holds NaN in the rows asked for, which JSON cannot represent; use --format table", setup=nan_table),
    Case("lookup json Inf", ["lookup", "--weights", "{tmp}/nan.npy", "--ids", "0,2", "--format", "json"], 1,
         "holds an infinity", setup=nan_table),
    Case("lookup table NaN is fine", ["lookup", "--weights", "{tmp}/nan.npy", "--ids", "1"], 0,
         check=expect_stdout("nan"), setup=nan_table),

    # ---- D: quantize refuses a row whose int8 form would read back as infinity
    Case("quantize a row at the float32 maximum", ["quantize", "--weights", "{tmp}/huge.npy", "-o", "{tmp}/q.safetensors"],
         1, "so close to the float32 maximum that its int8 form would read back as infinity",
         files={"{tmp}/q.safetensors": ABSENT}, setup=huge_rows),
    Case("quantize a row at a tenth of the float32 maximum reads back finite",
         ["quantize", "--weights", "{tmp}/large.npy", "-o", "{tmp}/q.safetensors"], 0,
         files={"{tmp}/q.safetensors": finite_lookup(1)}, setup=huge_rows),

    # ---- D: encode's JSON Lines refusal of NaN/Inf names the record's line (and source)
    Case("encode jsonl NaN names the line",
         ["encode", "--input-format", "ids", "--input", "{tmp}/a.txt", "--weights", "{tmp}/nan8000.npy",
          "--format", "jsonl", "-o", "{tmp}/out.jsonl"], 1,
         "line 3: tensor output holds NaN, which JSON cannot represent; use --format npy",
         files={"{tmp}/out.jsonl": ABSENT}, setup=nan_vocab_table),
    Case("encode jsonl Inf names the source and line",
         ["encode", "--input-format", "ids", "--input", "{tmp}/b.txt", "--input", "{tmp}/c.txt", "--weights",
          "{tmp}/nan8000.npy", "--format", "jsonl", "--batch-size", "1", "-o", "{tmp}/out.jsonl"], 1,
         "c.txt line 2: tensor output holds an infinity", files={"{tmp}/out.jsonl": ABSENT}, setup=nan_vocab_table),

    # ---- D: tensor names (and paths) with ':'
    Case("tensor name with colons", ["lookup", "--weights", "{tmp}/w.safetensors:enc:emb", "--ids", "1"], 0,
         check=expect_stdout("3\t4\t5"), setup=colon_tensors),
    Case("path and tensor name with colons", ["lookup", "--weights", "{tmp}/a:b.safetensors:enc:emb", "--ids", "2"],
         0, check=expect_stdout("6\t7\t8"), setup=colon_tensors),
    Case("missing tensor name with colons", ["lookup", "--weights", "{tmp}/w.safetensors:no:such", "--ids", "1"], 1,
         "has no tensor 'no:such'", setup=colon_tensors),
    Case("missing file with a tensor name with colons",
         ["lookup", "--weights", "{tmp}/none.safetensors:enc:emb", "--ids", "1"], 1, "none.safetensors"),

    # ---- C: safetensors header limits are named
    Case("safetensors header over 100 MiB", ["info", "--weights", "{tmp}/huge.safetensors"], 1,
         "over the 100 MiB (104857600-byte) limit", setup=huge_header),
    Case("safetensors header nesting", ["info", "--weights", "{tmp}/deep.safetensors"], 1,
         "nests deeper than 64 levels, the limit", setup=deep_header),
]
