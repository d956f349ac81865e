"""NumPy reference implementations of embedpe's documented formulas.

Independent of the C++ code: written from the formulas in
lib/include/embedpe/embedding.h (the default N(0,1) table) and
lib/include/embedpe/positional_encoding.h (sinusoidal PE). Used by
tools/make_goldens.py and by the CLI tests; needs only NumPy.
"""
import numpy as np

_M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def splitmix64(x):
    """The splitmix64 finaliser of x + golden gamma, on uint64 arrays (wrapping)."""
    with np.errstate(over="ignore"):
        z = np.asarray(x, dtype=np.uint64) + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def random_normal_rows(ids, d_model, seed):
    """Rows E[ids] of the default table: float32 array (len(ids), d_model)."""
    ids = np.asarray(ids, dtype=np.uint64).reshape(-1, 1)
    key = splitmix64(splitmix64(np.uint64(seed)) ^ ids)           # (n, 1)
    pairs = (d_model + 1) // 2
    j = np.arange(pairs, dtype=np.uint64) * np.uint64(2)          # (pairs,)
    with np.errstate(over="ignore"):
        a = splitmix64(key + j)
        b = splitmix64(key + j + np.uint64(1))
    u1 = ((a >> np.uint64(11)) + np.uint64(1)).astype(np.float64) / 2.0**53
    u2 = (b >> np.uint64(11)).astype(np.float64) / 2.0**53
    r = np.sqrt(-2.0 * np.log(u1))
    theta = 2.0 * np.pi * u2
    out = np.empty((ids.shape[0], 2 * pairs), dtype=np.float64)
    out[:, 0::2] = r * np.cos(theta)
    out[:, 1::2] = r * np.sin(theta)
    return out[:, :d_model].astype(np.float32)


def sinusoidal_pe64(positions, d_model, base=10000.0):
    """Interleaved sinusoidal PE in float64: (len(positions), d_model)."""
    pos = np.asarray(positions, dtype=np.float64).reshape(-1, 1)
    i = np.arange((d_model + 1) // 2, dtype=np.float64)
    angle = pos / np.power(base, 2.0 * i / d_model)
    out = np.empty((pos.shape[0], 2 * i.size), dtype=np.float64)
    out[:, 0::2] = np.sin(angle)
    out[:, 1::2] = np.cos(angle)
    return out[:, :d_model]


def input_layer(ids, d_model, seed, scale=None):
    """E[ids] * scale + PE with the default table, as float32 arithmetic.

    ids: int array (batch, seq_len). scale: None for sqrt(d_model), else a number.
    """
    ids = np.asarray(ids)
    factor = np.float32(np.sqrt(d_model) if scale is None else scale)
    e = random_normal_rows(ids.reshape(-1), d_model, seed).reshape(ids.shape + (d_model,))
    pe = sinusoidal_pe64(np.arange(ids.shape[1]), d_model).astype(np.float32)
    return (e * factor).astype(np.float32) + pe
