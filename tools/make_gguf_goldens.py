#!/usr/bin/python3
"""ggml's own quantizers and dequantizers, run on fixed rows: the goldens of
lib/src/core/ggml_types.cpp (tests/test_ggml_types.cpp, tests/cli_test.py).

    /usr/bin/python3 tools/make_gguf_goldens.py --ggml PATH [--out tests/golden/gguf]

PATH is a copy of github.com/ggml-org/ggml: a work tree, or a bare git
directory (its HEAD is exported). The script compiles upstream's
src/ggml-quants.c, with a small shim of our own for the few ggml.c functions
it links against and for ggml.c's f16/bf16 row conversions (written with
ggml-impl.h's own conversion functions), into a temporary shared library with
`gcc -O2 -DNDEBUG -fPIC` and no -march (x86-64's baseline: SSE, no FMA),
as a release build of ggml compiles it. Then through ctypes, for every type
embedpe quantizes (F32 F16 BF16 Q8_0 Q4_0 Q4_1 Q5_0 Q5_1 Q2_K..Q6_K):

  inputs.npy                 (rows, 256) float32: the rows ROWS describes
  TYPE.blocks.npy            (rows, row_bytes) uint8: quantize_row_TYPE_ref(row)
                             (F16/BF16: ggml_fp32_to_fp16_row, ggml_fp32_to_bf16_row_ref)
  TYPE.dequantized.npy       (rows, 256) float32: dequantize_row_TYPE(blocks)
  TYPE.random_blocks.npy     (8, row_bytes of 256) uint8: random bytes, every bit pattern
                             dequantize_row must read (NaN and infinite scales included);
                             F16: all 65536 values, (256, 256)
  TYPE.random_dequantized.npy  dequantize_row_TYPE of those
  manifest.json              the ggml commit, compiler and flags, rows, types and sizes

The test suite reads only these files; it never needs ggml. The script also
checks, when given --check-half, that ggml_compute_fp32_to_fp16 equals
embedpe's float_to_half (lib/src/core/half.h) for all 2^32 floats (in C).
"""
import argparse
import ctypes
import json
import os
import pathlib
import platform
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ROW = 256
SHIM = r"""
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "ggml-impl.h"

/* What ggml-quants.c links against from ggml.c; the *_ref quantizers and the
   dequantizers of the types above never call them. */
void ggml_abort(const char * file, int line, const char * fmt, ...) {
    fprintf(stderr, "ggml_abort %s:%d\n", file, line);
    abort();
}
size_t ggml_row_size(enum ggml_type type, int64_t ne) { (void) type; (void) ne; abort(); }
const char * ggml_type_name(enum ggml_type type) { (void) type; return "?"; }
size_t ggml_type_size(enum ggml_type type) { (void) type; abort(); }

/* ggml.c's row conversions, with ggml-impl.h's conversions. */
void shim_fp16_to_fp32_row(const ggml_fp16_t * x, float * y, int64_t n) {
    for (int64_t i = 0; i < n; i++) y[i] = GGML_FP16_TO_FP32(x[i]);
}
void shim_fp32_to_fp16_row(const float * x, ggml_fp16_t * y, int64_t n) {
    for (int64_t i = 0; i < n; i++) y[i] = GGML_FP32_TO_FP16(x[i]);
}
void shim_bf16_to_fp32_row(const ggml_bf16_t * x, float * y, int64_t n) {
    for (int64_t i = 0; i < n; i++) y[i] = GGML_BF16_TO_FP32(x[i]);
}
void shim_fp32_to_bf16_row_ref(const float * x, ggml_bf16_t * y, int64_t n) {
    for (int64_t i = 0; i < n; i++) y[i] = ggml_compute_fp32_to_bf16(x[i]);
}
"""

HALF_CHECK_C = r"""
#include "ggml-impl.h"
uint16_t ggml_f2h(float f) { return ggml_compute_fp32_to_fp16(f); }
"""
HALF_CHECK_CPP = r"""
#include <cstdio>
#include "half.h"
extern "C" uint16_t ggml_f2h(float);
int main() {
  unsigned long long bad = 0;
  for (unsigned long long i = 0; i < (1ull << 32); ++i) {
    const float f = embedpe::bits_to_float(static_cast<std::uint32_t>(i));
    if (ggml_f2h(f) != embedpe::float_to_half(f)) ++bad;
  }
  std::printf("%llu\n", bad);
  return bad != 0;
}
"""

# name, ggml's number, block elements, block bytes
TYPES = [
    ("f32", 0, 1, 4), ("f16", 1, 1, 2), ("bf16", 30, 1, 2),
    ("q8_0", 8, 32, 34), ("q4_0", 2, 32, 18), ("q4_1", 3, 32, 20), ("q5_0", 6, 32, 22), ("q5_1", 7, 32, 24),
    ("q2_K", 10, 256, 84), ("q3_K", 11, 256, 110), ("q4_K", 12, 256, 144), ("q5_K", 13, 256, 176),
    ("q6_K", 14, 256, 210),
]


def rows():
    """(description, row) pairs: typical, then adversarial rows."""
    rng = np.random.RandomState(20260806)
    g = lambda: rng.standard_normal(ROW)
    out = []
    add = lambda what, r: out.append((what, np.asarray(r, dtype=np.float64).astype(np.float32)))
    add("normal, sigma 1", g())
    add("normal, sigma 0.02 (an embedding's scale)", 0.02 * g())
    add("uniform [-1, 1)", rng.uniform(-1, 1, ROW))
    add("all zeros", np.zeros(ROW))
    add("constant 0.5", np.full(ROW, 0.5))
    add("constant -3", np.full(ROW, -3.0))
    add("negative only: -|normal|", -np.abs(g()))
    add("positive only: |normal| + 1", np.abs(g()) + 1)
    r = 0.01 * g()
    r[37] = 100.0
    r[200] = -250.0
    add("sigma 0.01 with two outliers (100 at 37, -250 at 200)", r)
    add("huge: normal x 1e30 (scales overflow float16)", 1e30 * g())
    add("near float32's max: normal x 1e37, one -3e38", np.concatenate([1e37 * g()[:ROW - 1], [-3e38]]))
    add("small: normal x 1e-6 (float16 subnormal scales)", 1e-6 * g())
    add("float32 subnormals: normal x 1e-40", 1e-40 * g())
    add("tiny: normal x 1e-20 (float16 scales flush to 0)", 1e-20 * g())
    add("ties: multiples of 1/8 in [-4, 4]", rng.randint(-32, 33, ROW) / 8.0)
    add("integers in [-8, 7] (q4_0's exact grid)", rng.randint(-8, 8, ROW))
    r = g()
    for b in range(ROW // 32):
        r[32 * b:32 * b + 32] *= 10.0 ** (3 * b % 8 - 4)
    add("block magnitudes 1e-4 .. 1e3 in turn", r)
    r = np.zeros(ROW)
    r[rng.choice(ROW, 12, replace=False)] = 5 * g()[:12]
    add("sparse: 12 nonzeros", r)
    add("beyond float16: normal x 1e5", 1e5 * g())
    r = 0.1 * g()
    r[::7] = -0.0
    add("negative zeros every 7th, sigma 0.1", r)
    r = g()
    r[5], r[40], r[41], r[130] = np.inf, -np.inf, np.nan, np.nan
    add("non-finite: +inf at 5, -inf at 40, NaN at 41 and 130 (embedpe quantize refuses these; the port need not)", r)
    return out


def export_tree(path, tmp):
    """A bare git directory's HEAD → a tree under tmp; (tree, commit)."""
    p = pathlib.Path(path)
    if (p / "src" / "ggml-quants.c").exists():
        try:
            commit = subprocess.check_output(["git", "-C", str(p), "rev-parse", "HEAD"], text=True).strip()
        except (subprocess.CalledProcessError, FileNotFoundError):
            commit = "unknown (not a git tree)"
        return p, commit
    commit = subprocess.check_output(["git", "--git-dir", str(p), "rev-parse", "HEAD"], text=True).strip()
    tree = pathlib.Path(tmp) / "ggml"
    tree.mkdir()
    archive = subprocess.run(["git", "--git-dir", str(p), "archive", "HEAD", "src", "include"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "x", "-C", str(tree)], input=archive, check=True)
    return tree, commit


FLAGS = ["-O2", "-DNDEBUG", "-fPIC", "-std=gnu11"]


def build(tree, tmp):
    shim = pathlib.Path(tmp) / "shim.c"
    shim.write_text(SHIM)
    lib = pathlib.Path(tmp) / "libggmlref.so"
    inc = ["-I", str(tree / "include"), "-I", str(tree / "src"), "-I", str(tree / "src" / "ggml-cpu")]
    subprocess.run(["gcc", *FLAGS, "-shared", *inc, str(tree / "src" / "ggml-quants.c"), str(shim), "-o", str(lib),
                    "-lm"], check=True)
    return ctypes.CDLL(str(lib)), inc


def functions(lib, name):
    q = {"f32": None, "f16": "shim_fp32_to_fp16_row", "bf16": "shim_fp32_to_bf16_row_ref"}.get(name,
                                                                                               f"quantize_row_{name}_ref")
    d = {"f32": None, "f16": "shim_fp16_to_fp32_row", "bf16": "shim_bf16_to_fp32_row"}.get(name,
                                                                                          f"dequantize_row_{name}")
    fq = getattr(lib, q) if q else None
    fd = getattr(lib, d) if d else None
    for f in (fq, fd):
        if f is not None:
            f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
            f.restype = None
    return fq, fd


def quantize(fq, row, nbytes):
    out = np.zeros(nbytes, dtype=np.uint8)
    if fq is None:
        return np.frombuffer(row.tobytes(), dtype=np.uint8).copy()
    fq(row.ctypes.data, out.ctypes.data, row.size)
    return out


def dequantize(fd, blocks, n):
    blocks = np.ascontiguousarray(blocks)
    if fd is None:
        return np.frombuffer(blocks.tobytes(), dtype=np.float32).copy()
    out = np.zeros(n, dtype=np.float32)
    fd(blocks.ctypes.data, out.ctypes.data, n)
    return out


def check_half(tree, tmp, inc):
    c = pathlib.Path(tmp) / "half_ggml.c"
    c.write_text(HALF_CHECK_C)
    cpp = pathlib.Path(tmp) / "half_check.cpp"
    cpp.write_text(HALF_CHECK_CPP)
    here = pathlib.Path(__file__).resolve().parent.parent
    obj = pathlib.Path(tmp) / "half_ggml.o"
    exe = pathlib.Path(tmp) / "half_check"
    subprocess.run(["gcc", *FLAGS, *inc, "-c", str(c), "-o", str(obj)], check=True)
    subprocess.run(["g++", "-O2", "-std=c++20", "-I", str(here / "lib/src/core"), str(cpp), str(obj), "-o", str(exe)],
                   check=True)
    bad = subprocess.run([str(exe)], capture_output=True, text=True)
    print(f"float_to_half vs ggml_compute_fp32_to_fp16, all 2^32 floats: {bad.stdout.strip()} differ")
    return bad.returncode == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ggml", required=True, help="ggml-org/ggml: a work tree or a bare git directory")
    ap.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parent.parent / "tests/golden/gguf"))
    ap.add_argument("--check-half", action="store_true", help="also compare float_to_half with ggml for all floats")
    args = ap.parse_args()
    if platform.machine() not in ("x86_64", "AMD64"):
        sys.exit("the goldens are ggml's results on x86-64; run this on an x86-64 machine")
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cases = rows()
    inputs = np.stack([r for _, r in cases])  # (rows, ROW)
    with tempfile.TemporaryDirectory() as tmp:
        tree, commit = export_tree(args.ggml, tmp)
        lib, inc = build(tree, tmp)
        if args.check_half and not check_half(tree, tmp, inc):
            sys.exit("float_to_half differs from ggml's fp32 → fp16")
        np.save(out / "inputs.npy", inputs)
        rng = np.random.RandomState(33)
        manifest_types = []
        for name, number, qk, bs in TYPES:
            fq, fd = functions(lib, name)
            nbytes = ROW // qk * bs
            blocks = np.stack([quantize(fq, r, nbytes) for r in inputs])  # (rows, nbytes)
            deq = np.stack([dequantize(fd, b, ROW) for b in blocks])  # (rows, ROW)
            np.save(out / f"{name}.blocks.npy", blocks)
            np.save(out / f"{name}.dequantized.npy", deq)
            if name == "f16":
                rblocks = np.arange(65536, dtype="<u2").view(np.uint8).reshape(256, 512)
                rn = 256
            else:
                rn = 256
                rblocks = rng.randint(0, 256, (8, rn // qk * bs)).astype(np.uint8)
            rdeq = np.stack([dequantize(fd, b, rn) for b in rblocks])
            np.save(out / f"{name}.random_blocks.npy", rblocks)
            np.save(out / f"{name}.random_dequantized.npy", rdeq)
            manifest_types.append({"name": name, "ggml_type": number, "block_elems": qk, "block_bytes": bs,
                                   "quantize": {"f32": "memcpy", "f16": "ggml_fp32_to_fp16_row",
                                                "bf16": "ggml_fp32_to_bf16_row_ref"}.get(name,
                                                                                         f"quantize_row_{name}_ref"),
                                   "dequantize": {"f32": "memcpy", "f16": "ggml_fp16_to_fp32_row",
                                                  "bf16": "ggml_bf16_to_fp32_row"}.get(name,
                                                                                       f"dequantize_row_{name}"),
                                   "random_rows": int(rblocks.shape[0])})
        gcc = subprocess.check_output(["gcc", "--version"], text=True).splitlines()[0]
    manifest = {
        "ggml": {"repository": "https://github.com/ggml-org/ggml", "commit": commit,
                 "files": ["src/ggml-quants.c", "src/ggml-impl.h", "src/ggml-common.h", "include/ggml.h"]},
        "compiler": gcc, "flags": FLAGS + ["-shared"], "machine": platform.machine(),
        "row_length": ROW, "rows": [what for what, _ in cases], "types": manifest_types,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"wrote {out}: {len(cases)} rows x {len(TYPES)} types, ggml {commit}")


if __name__ == "__main__":
    main()
