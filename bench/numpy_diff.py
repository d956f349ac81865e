#!/usr/bin/python3
"""The throwaway script `embedpe diff` replaces, for bench/run.py: two .npy
files compared with NumPy, the same figures as `embedpe diff --format json`
(max abs, max rel and max ulp error, mean abs error, cosine overall and of the
worst row, count beyond numpy.allclose's tolerance, first and worst index).
Arrays are memory-mapped, as embedpe maps them; NumPy's temporaries are
whole-array.

    numpy_diff.py A.npy B.npy
"""
import json
import sys

import numpy as np


def main(a_path, b_path, atol=1e-8, rtol=1e-5):
    a = np.load(a_path, mmap_mode="r").astype(np.float64)
    b = np.load(b_path, mmap_mode="r").astype(np.float64)
    err = np.abs(a - b)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(err == 0, 0.0, err / np.abs(b))
    close = np.isclose(a, b, rtol=rtol, atol=atol)
    ka = np.load(a_path, mmap_mode="r").view(np.int32).astype(np.int64)
    kb = np.load(b_path, mmap_mode="r").view(np.int32).astype(np.int64)
    ka = np.where(ka < 0, -(ka & 0x7FFFFFFF), ka)
    kb = np.where(kb < 0, -(kb & 0x7FFFFFFF), kb)
    dot, na, nb = (a * b).sum(-1), (a * a).sum(-1), (b * b).sum(-1)
    rows = dot / np.sqrt(na * nb)
    bad = ~close
    print(json.dumps({
        "max_abs": float(err.max()), "max_rel": float(rel.max()), "max_ulp": int(np.abs(ka - kb).max()),
        "mean_abs": float(err.mean()), "cosine": float(dot.sum() / np.sqrt(na.sum() * nb.sum())),
        "worst_row_cosine": float(rows.min()), "beyond": int(bad.sum()),
        "first": [int(i) for i in np.unravel_index(int(np.argmax(bad)), a.shape)] if bad.any() else None,
        "worst": [int(i) for i in np.unravel_index(int(np.argmax(err)), a.shape)]}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
