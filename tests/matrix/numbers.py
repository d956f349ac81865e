"""Numbers in plain words: every numeric flag of every command refuses a
negative, overflowing, 309-digit, non-numeric, NaN/infinite or out-of-range
value with one line naming the flag and its range, exit 2, no output left.

The rows are generated from FLAGS, a table of (command, flag, kind, lo, hi):
add a numeric flag there and it is tested end to end. Every flag is parsed by
clikit::add_number, which tests/test_clikit.cpp drives in-process with every
bad value for every kind of range ("numbers: every numeric flag refuses...");
so here each flag gets one row, a value just above its range (its wiring and
its range, as the message states it), and the flags in FULL get every bad
value end to end, as the real program sees them.
"""
from matrix import ABSENT, Case, TESTS

TABLE = str(TESTS / "golden" / "weights" / "table_f32.npy")
POS = 2 ** 53                  # positions stay exact in float64
INT = 2 ** 31 - 1
U64 = 2 ** 64 - 1

# How each command is run around the flag under test, and the output that must
# not be left behind.
BASE = {
    "encode": (["encode", "--text", "hi", "-o", "{tmp}/out.npy"], "{tmp}/out.npy"),
    "tokenize": (["tokenize", "--text", "hi", "-o", "{tmp}/out.json"], "{tmp}/out.json"),
    "pe": (["pe", "--d-model", "8", "-o", "{tmp}/out.csv"], "{tmp}/out.csv"),
    "lookup": (["lookup", "--ids", "1"], None),
    "quantize": (["quantize", "--weights", TABLE, "-o", "{tmp}/q.safetensors"], "{tmp}/q.safetensors"),
}

# (command, flag, kind, lo, hi); kind: "int", "float", or "float<" (hi excluded).
ROPE = [("--rope-theta", "float", 1.001, 1e12), ("--rope-factor", "float", 1e-6, 1e6),
        ("--rope-original-max-positions", "int", 1, POS), ("--rope-beta-fast", "float", 1e-6, 1e6),
        ("--rope-beta-slow", "float", 1e-6, 1e6), ("--rope-low-freq-factor", "float", 1e-6, 1e6),
        ("--rope-high-freq-factor", "float", 1e-6, 1e6)]
SINUSOIDAL = [("--base", "float", 1.001, 1e12), ("--position-scale", "float", 1e-6, 1e6)]
TOKENIZE = [("--pad-id", "int", 0, INT), ("--seq-len", "int", 1, INT), ("--max-line-bytes", "int", 1, U64),
            ("--pad-to-multiple-of", "int", 1, INT)]
TABLE_FLAGS = [("--d-model", "int", 1, INT), ("--seed", "int", 0, U64), ("--padding-idx", "int", 0, INT),
               ("--init-range", "float", 1e-30, 1e6), ("--factorize", "int", 1, INT)]
FLAGS = (
    [("encode", *f) for f in TOKENIZE + TABLE_FLAGS + SINUSOIDAL + ROPE + [
        ("--max-len", "int", 1, POS), ("--position-offset", "int", 0, POS - 1),
        ("--pad-position", "int", 0, POS - 1), ("--layernorm-eps", "float", 1e-30, 1.0),
        ("--rope-dim", "int", 2, INT), ("--dropout", "float<", 0.0, 1.0), ("--batch-size", "int", 1, 2 ** 20),
        ("--threads", "int", 1, 1024), ("--shard-rows", "int", 1, 2 ** 20), ("--precision", "int", 1, 9)]]
    + [("tokenize", *f) for f in TOKENIZE]
    + [("pe", *f) for f in SINUSOIDAL + ROPE + [
        ("--d-model", "int", 1, INT), ("--max-len", "int", 1, POS), ("--position-offset", "int", 0, POS - 1),
        ("--padding-idx", "int", 0, POS - 1), ("--heads", "int", 1, 65536), ("--head", "int", 0, 65535),
        ("--precision", "int", 1, 9)]]
    + [("lookup", *f) for f in TABLE_FLAGS]
)

HUGE = "1" + "0" * 308  # 1e308: 309 digits


def echo(value):
    """What the message quotes: long values are cut (no 309-digit echo)."""
    return value if len(value) <= 24 else value[:24] + f"... ({len(value)} characters)"


def num(v):
    return "%g" % v if isinstance(v, float) else str(v)


def range_text(kind, lo, hi):
    what = "a whole number" if kind == "int" else "a number"
    return f"{what} from {num(lo)}" + (" up to (not including) " if kind == "float<" else " to ") + num(hi)


def bad_values(kind, lo, hi):
    values = {"non-numeric": "abc", "overflow": "99999999999999999999999", "309 digits": HUGE,
              "trailing junk": "5x", "space": " 5", "hex": "0x10",
              "empty argument": ""}
    if kind == "int":
        values.update({"negative": "-1", "above": str(hi + 1), "fraction": "1.5", "double sign": "+-1"})
        if lo > 0:
            values["below"] = str(lo - 1)
    else:
        values.update({"nan": "nan", "inf": "inf", "minus inf": "-inf", "negative": "-1",
                       "above": num(hi) if kind == "float<" else num(hi * 10), "1e999": "1e999",
                       "1e-400": "1e-400"})
        if lo > 0:
            values["below"] = num(lo / 10)
    return values


# The flags tested every way end to end: a whole number and a number.
FULL = {("encode", "--seq-len"), ("pe", "--rope-theta")}


def rows():
    out = []
    for command, flag, kind, lo, hi in FLAGS:
        args, output = BASE[command]
        args = list(args)
        if flag == "--d-model" and command == "pe":
            args = [a for a in args if a not in ("--d-model", "8")]
        values = bad_values(kind, lo, hi)
        if (command, flag) not in FULL:
            out.append(Case(
                name=f"{command} {flag} above", args=args + [f"{flag}={values['above']}"], exit=2,
                stderr=f"{flag}: expected {range_text(kind, lo, hi)}, not '{echo(values['above'])}'",
                files={output: ABSENT} if output else {}))
            continue
        for what, value in values.items():
            # A number that overflows or underflows a double says so (issue 28), with the range.
            reach = {"1e999": "overflows", "1e-400": "underflows"}.get(what)
            stderr = (f"{flag}: '{value}' {reach}" if reach else
                      f"{flag}: expected {range_text(kind, lo, hi)}, not '{echo(value)}'")
            out.append(Case(
                name=f"{command} {flag} {what}",
                # "--flag=" (no value at all) is CLI11's "1 required N missing";
                # an empty argument is a value, and refused like the others.
                args=args + ([flag, value] if what == "empty argument" else [f"{flag}={value}"]),
                exit=2,
                stderr=stderr,
                files={output: ABSENT} if output else {}))
        # The flag last, with no value at all.
        out.append(Case(name=f"{command} {flag} without a value", args=args + [flag], exit=2,
                        stderr=f"{flag}: needs a value", files={output: ABSENT} if output else {}))
        # The value in its own argument, as people type it: a negative number
        # is still a value, never an option or a wrapped-around size_t.
        out.append(Case(name=f"{command} {flag} negative separate", args=args + [flag, "-3"], exit=2,
                        stderr=f"{flag}: expected {range_text(kind, lo, hi)}, not '-3'",
                        files={output: ABSENT} if output else {}))
    return out


SPANS = [
    ("pe --positions reversed", ["pe", "--d-model", "8", "--positions", "10:5"], "--positions", "10:5", POS),
    ("pe --positions negative", ["pe", "--d-model", "8", "--positions=-5:10"], "--positions", "-5:10", POS),
    ("pe --positions beyond 2^53", ["pe", "--d-model", "8", "--positions", f"0:{POS + 1}"], "--positions",
     f"0:{POS + 1}", POS),
    ("pe --positions overflow", ["pe", "--d-model", "8", "--positions", "18446744073709551000:18446744073709551615"],
     "--positions", "18446744073709551000:18446744073709551615", POS),
    ("pe --positions junk", ["pe", "--d-model", "8", "--positions", "0:5x"], "--positions", "0:5x", POS),
    ("pe --positions no colon", ["pe", "--d-model", "8", "--positions", "5"], "--positions", "5", POS),
    ("pe --dims 309 digits", ["pe", "--d-model", "8", "--dims", "0:" + HUGE], "--dims", "0:" + HUGE, INT),
    ("pe --dims empty", ["pe", "--d-model", "8", "--dims", "3:3"], "--dims", "3:3", INT),
]


def span_rows():
    """Two rows end to end, one per flag; clikit::parse_span is tested in-process with the rest of SPANS
    (tests/test_clikit.cpp, "spans: ...")."""
    return [Case(name=name, args=args, exit=2,
                 stderr=f"{flag}: expected A:B with whole numbers 0 <= A < B <= {hi} (B excluded), not '{echo(v)}'")
            for name, args, flag, v, hi in SPANS if name in ("pe --positions reversed", "pe --dims 309 digits")]


def other_rows():
    ids = "expected ids (whole numbers from 0 to 2147483647, no sign) separated by spaces or commas, not"
    shard = "--shard: expected K/N with whole numbers 1 <= K <= N <= 1000000, not"
    scale = "--scale: expected sqrt, none or a number from -1e+06 to 1e+06, not"
    out = [
        Case("lookup --ids negative", ["lookup", "--ids=-1"], 2, f"--ids: {ids} '-1'"),
        Case("lookup --ids one bad", ["lookup", "--ids", "1,x,3"], 2, f"--ids: {ids} 'x'"),
        Case("lookup --ids empty item", ["lookup", "--ids", "1,,3"], 2, "--ids: an empty id between commas in '1,,3'"),
        Case("lookup --ids sign", ["lookup", "--ids", "+5"], 2, f"--ids: {ids} '+5'"),
        Case("lookup --ids empty", ["lookup", "--ids", ""], 2, "--ids: expected ids such as 1,262,2, not an empty value"),
        Case("lookup --ids overflow", ["lookup", "--ids", "99999999999999999999999"], 2,
             f"--ids: {ids} '99999999999999999999999'"),
        Case("lookup --ids 309 digits", ["lookup", "--ids", HUGE], 2, f"--ids: {ids} '{echo(HUGE)}'"),
    ]
    # --shard and --scale: clikit::parse_part and add_word_or_number are
    # tested in-process with every bad value (tests/test_clikit.cpp); here one
    # row per command, end to end.
    for command, (what, v) in (("encode", ("overflow", "1/99999999999999999999999")), ("tokenize", ("K above N", "3/2"))):
        args, output = BASE[command]
        out.append(Case(f"{command} --shard {what}", list(args) + [f"--shard={v}"], 2, f"{shard} '{echo(v)}'",
                        files={output: ABSENT}))
    for command, (what, v) in (("encode", ("nan", "nan")), ("quantize", ("309 digits", HUGE))):
        args, output = BASE[command]
        out.append(Case(f"{command} --scale {what}", list(args) + [f"--scale={v}"], 2, f"{scale} '{echo(v)}'",
                        files={output: ABSENT}))
    return out


CASES = rows() + span_rows() + other_rows()
