"""NumPy reference implementations of embedpe's documented formulas.

Independent of the C++ code: written from the formulas in
lib/include/embedpe/embedding.h (the default N(0,1) table) and
lib/include/embedpe/positional_encoding.h (sinusoidal PE). Used by
tools/make_goldens.py and by the CLI tests; needs only NumPy.

random_normal_rows() is NOT an independent reference for the default table:
it is our own NumPy port of our own generator ("splitmix64+box-muller-f32/3"),
so agreeing with it shows only that the C++ code and the port compute the
same bits. What anchors the generator to N(0,1) is a statistical check
against the normal distribution itself (cli_test.py,
DefaultTableTests.test_the_table_is_standard_normal) and the comparison with
Box-Muller in float64 (test_recipe_values_are_box_muller_within_4_ulps).
"""
import math

import numpy as np

_M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def splitmix64(x):
    """The splitmix64 finaliser of x + golden gamma, on uint64 arrays (wrapping)."""
    with np.errstate(over="ignore"):
        z = np.asarray(x, dtype=np.uint64) + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


# The polynomials of the generator "splitmix64+box-muller-f32/3": each
# coefficient is the float64 quotient rounded to float32, as in
# lib/src/layer/embedding.cpp.
_F32 = np.float32
_LOG = [_F32(2.0 / (2 * k + 1)) for k in range(5)]
_SIN = [_F32((-1.0) ** k / math.factorial(2 * k + 1)) for k in range(5)]
_COS = [_F32((-1.0) ** k / math.factorial(2 * k)) for k in range(6)]
_LN2_HI, _LN2_LO = _F32(float.fromhex("0x1.62e4p-1")), _F32(float.fromhex("0x1.7f7d1cp-20"))
_ANGLE_STEP = _F32(2 * math.pi * 2.0**-24)


def _horner(coefficients, y):
    p = np.full_like(y, coefficients[-1])
    for c in reversed(coefficients[:-1]):
        p = p * y + c
    return p


def normal_uniforms(ids, d_model, seed):
    """The uniforms (u1, u2) of each pair of the default table's rows, in float64: (len(ids), pairs)."""
    ids = np.asarray(ids, dtype=np.uint64).reshape(-1, 1)
    key = splitmix64(splitmix64(np.uint64(seed)) ^ ids)
    with np.errstate(over="ignore"):
        a = splitmix64(key + np.arange((d_model + 1) // 2, dtype=np.uint64))
    return ((a >> np.uint64(40)) + np.uint64(1)).astype(np.float64) * 2.0**-24, \
        (a & np.uint64(0xFFFFFF)).astype(np.float64) * 2.0**-24


def random_normal_rows(ids, d_model, seed):
    """Rows E[ids] of the default table: float32 array (len(ids), d_model).

    Generator "splitmix64+box-muller-f32/3", every float32 operation in the
    C++ code's order, so the bits are the same. Our own port of our own
    generator (see the module's docstring): a test that compares the program
    with it checks that the two agree, not that the values are N(0,1).
    """
    ids = np.asarray(ids, dtype=np.uint64).reshape(-1, 1)
    key = splitmix64(splitmix64(np.uint64(seed)) ^ ids)           # (n, 1)
    with np.errstate(over="ignore"):
        a = splitmix64(key + np.arange((d_model + 1) // 2, dtype=np.uint64))  # one draw per pair
    # r = sqrt(-2 ln u1), u1 = m / 2^24, m = 2^e f with f in (sqrt(1/2), sqrt(2)]; m <= 2^24 is exact
    m = ((a >> np.uint64(40)) + np.uint64(1)).astype(np.float32)
    bits = m.view(np.uint32)
    mantissa = bits & np.uint32(0x7FFFFF)
    halve = (mantissa > np.uint32(0x3504F3)).astype(np.uint32)    # f > sqrt(2)
    f = (mantissa | ((np.uint32(127) - halve) << np.uint32(23))).view(np.float32)
    e = ((bits >> np.uint32(23)).astype(np.int32) + halve.astype(np.int32) - 151).astype(np.float32)
    s = (f - _F32(1)) / (f + _F32(1))
    r = np.sqrt(_F32(-2) * ((e * _LN2_LO + s * _horner(_LOG, s * s)) + e * _LN2_HI))
    # 2π u2 = q π/2 + x, x in [-π/4, π/4), u2 = (a & (2^24 - 1)) / 2^24
    t = (a & np.uint64(0xFFFFFF)).astype(np.uint32) + np.uint32(1 << 21)
    q = (t >> np.uint32(22)) & np.uint32(3)
    x = ((t & np.uint32((1 << 22) - 1)).astype(np.int32) - (1 << 21)).astype(np.float32) * _ANGLE_STEP
    sin_x, cos_x = x * _horner(_SIN, x * x), _horner(_COS, x * x)
    odd = (q & np.uint32(1)) == 1
    cos_t = np.where(odd, sin_x, cos_x) * np.where((q == 1) | (q == 2), _F32(-1), _F32(1))
    sin_t = np.where(odd, cos_x, sin_x) * np.where(q >= 2, _F32(-1), _F32(1))
    out = np.empty((ids.shape[0], 2 * a.shape[1]), dtype=np.float32)
    out[:, 0::2] = r * cos_t
    out[:, 1::2] = r * sin_t
    return out[:, :d_model]


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


def integer_table(rows, cols, salt):
    """A (rows, cols) float32 table made from integers, in [-1, 1]: the same bits everywhere (no random
    generator whose stream could change between versions)."""
    i = np.arange(rows, dtype=np.int64).reshape(-1, 1)
    j = np.arange(cols, dtype=np.int64).reshape(1, -1)
    return (((i * 7919 + j * 104729 + salt * 15485863) % 2001) / 1000.0 - 1.0).astype(np.float32)


def bert_like_weights(vocab, d_model, max_positions, types):
    """A BERT embedding checkpoint's tensors, made from integers (integer_table): {name: array}."""
    def table(rows, salt):
        return integer_table(rows, d_model, salt)
    return {
        "embeddings.word_embeddings.weight": table(vocab, 1),
        "embeddings.position_embeddings.weight": table(max_positions, 2) * np.float32(0.5),
        "embeddings.token_type_embeddings.weight": table(types, 3) * np.float32(0.25),
        "embeddings.LayerNorm.weight": (1.0 + table(1, 4)[0] * np.float32(0.5)).astype(np.float32),
        "embeddings.LayerNorm.bias": table(1, 5)[0] * np.float32(0.1),
    }


def albert_like_weights(vocab, embedding_size, hidden_size, max_positions, types):
    """An ALBERT checkpoint's input tensors under Hugging Face's AlbertForMaskedLM names: BERT's
    embeddings at embedding_size E, and the projection to hidden_size, nn.Linear(E, hidden_size)
    (encoder.embedding_hidden_mapping_in), made from integers: {name: array}."""
    w = {"albert." + k: v for k, v in bert_like_weights(vocab, embedding_size, max_positions, types).items()}
    w["albert.encoder.embedding_hidden_mapping_in.weight"] = integer_table(hidden_size, embedding_size, 6) * \
        np.float32(0.5)
    w["albert.encoder.embedding_hidden_mapping_in.bias"] = integer_table(1, hidden_size, 7)[0] * np.float32(0.1)
    return w
