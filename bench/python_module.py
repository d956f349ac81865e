"""`import embedpe` against the CLI and against the Python pipeline, in one process (issue 48).

    PYTHONPATH=build/python /usr/bin/python3 bench/python_module.py [--corpus F] [--model M]... [--reps N]

Rows (best of --reps, interleaved; the corpus encoded at --seq-len 64 --d-model 128 as bench/run.py's
corpus rows, with the LLaMA-2 model of shared/corpora and data/default.model):
- the CLI's whole process writing .npy to /dev/shm, and enc.encode(lines) in this process (target <= 1.2x);
- the Python pipeline's in-process work, torch already imported: SentencePiece in Python + the
  Annotated Transformer layer in PyTorch to a NumPy array (bench/python_pipeline.py without its
  imports and np.save), against embedpe.Encoder(...) + enc.encode(lines) (target <= 1/3);
- two Python threads encoding at once against one (the GIL is released: well under 2x);
- the peak RSS of a ~400 MB output (the arrays hold the computed buffer: near 1x, not 2x);
- torch.from_numpy on the output shares its memory.
"""
import argparse
import os
import pathlib
import subprocess
import sys
import threading
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT / "build" / "python"))  # after PYTHONPATH: a module given there comes first
import embedpe  # noqa: E402

SHM = pathlib.Path("/dev/shm")


def best(f, reps):
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def row(*cells):
    print("| " + " | ".join(cells) + " |", flush=True)


def pipeline_in_process(model, lines, threads):
    """bench/python_pipeline.py's work without its imports and np.save: SentencePiece in Python, the
    Annotated Transformer layer in PyTorch, to a NumPy array; None without sentencepiece or torch."""
    try:
        import sentencepiece as spm
        import torch
        sys.path.insert(0, str(ROOT / "tools"))
        from make_goldens import TransformerInput
    except ImportError as e:
        print(f"(no {e.name}: the in-process Python pipeline row is skipped)", file=sys.stderr)
        return None
    torch.set_num_threads(threads)

    def run():
        sp = spm.SentencePieceProcessor(model_file=str(model))
        pad = sp.pad_id() if sp.pad_id() >= 0 else 0
        ids = []
        for line in lines:
            t = [sp.bos_id()] + sp.encode(line)[: 64 - 2] + [sp.eos_id()]
            ids.append(t + [pad] * (64 - len(t)))
        layer = TransformerInput(sp.vocab_size(), 128).eval()
        with torch.no_grad():
            return layer(torch.tensor(ids)).numpy()

    return run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpora" / "botchan.txt"))
    ap.add_argument("--model", action="append",
                    help="SentencePiece model (repeat); default: the LLaMA-2 one of shared/corpora and data/default.model")
    ap.add_argument("--embedpe", default=str(ROOT / "build" / "app" / "embedpe"))
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()
    models = args.model or [m for m in (ROOT.parent / "shared" / "corpora" / "llama2-tokenizer.model",
                                         ROOT / "data" / "default.model") if pathlib.Path(m).is_file()]
    lines = open(args.corpus, encoding="utf-8-sig").read().splitlines()
    threads = len(os.sched_getaffinity(0))
    out = SHM / "embedpe-pybench.npy"
    print(f"embedpe {embedpe.__version__} ({embedpe.__file__}); {len(lines)} lines of {args.corpus}; "
          f"{threads} threads; best of {args.reps}; load average {os.getloadavg()[0]:.1f}", flush=True)
    row("benchmark", "embedpe module", "reference", "ratio", "target")
    row("---", "---", "---", "---", "---")

    for model in map(str, models):
        name = pathlib.Path(model).name
        options = dict(model=model, seq_len=64, d_model=128, threads=threads)
        cli = [args.embedpe, "encode", "--model", model, "--input", args.corpus, "--seq-len", "64", "--d-model",
               "128", "--threads", str(threads), "--format", "npy", "-o", str(out)]

        def cli_run():
            out.unlink(missing_ok=True)  # untimed in the CLI's rows of bench/run.py; here a few ms
            subprocess.run(cli, check=True)

        enc = embedpe.Encoder(**options)
        t_cli, t_enc = [], []
        for _ in range(args.reps):  # interleaved, so that the machine's load weighs on both alike
            t_cli.append(best(cli_run, 1))
            t_enc.append(best(lambda: enc.encode(lines, emit="output"), 1))
        t_cli, t_enc = min(t_cli), min(t_enc)
        want = np.load(out)
        out.unlink(missing_ok=True)
        same = enc.encode(lines, emit="output")["output"].tobytes() == want.tobytes()
        del want
        row(f"{name}: enc.encode(corpus) vs the CLI process writing .npy to /dev/shm", f"{t_enc * 1e3:.0f} ms",
            f"CLI {t_cli * 1e3:.0f} ms", f"{t_enc / t_cli:.2f}x",
            f"<= 1.2x ({'same bytes' if same else 'DIFFERENT BYTES'})")

        pipeline = pipeline_in_process(model, lines, threads)
        if pipeline:
            def ours():
                return embedpe.Encoder(**options).encode(lines, emit="output")["output"]

            t_py, t_ours = [], []
            for _ in range(max(3, args.reps // 2)):
                t_py.append(best(pipeline, 1))
                t_ours.append(best(ours, 1))
            t_py, t_ours = min(t_py), min(t_ours)
            row(f"{name}: Encoder + encode vs SentencePiece in Python + the PyTorch layer, torch imported",
                f"{t_ours * 1e3:.0f} ms", f"python {t_py * 1e3:.0f} ms",
                f"{t_ours / t_py:.2f}x ({t_py / t_ours:.1f}x faster)", "<= 0.33x")

    enc = embedpe.Encoder(model=str(models[-1]), seq_len=64, d_model=128, threads=threads)
    try:
        import torch
    except ImportError:
        pass
    else:
        a = enc.encode(lines[:8])["output"]
        t = torch.from_numpy(a)
        shared = t.data_ptr() == a.__array_interface__["data"][0]
        row("torch.from_numpy(out['output'])", "shares the buffer" if shared else "COPIES", "", "", "no copy")

    def two_threads(e):
        ts = [threading.Thread(target=e.encode, args=(lines,), kwargs={"emit": "output"}) for _ in range(2)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    for n in sorted({1, threads}):
        e = embedpe.Encoder(model=str(models[-1]), seq_len=64, d_model=128, threads=n)
        t_one = best(lambda: e.encode(lines, emit="output"), 3)
        t_two = best(lambda: two_threads(e), 3)
        row(f"two Python threads at once vs one (threads={n} each, {threads} cores)", f"{t_two * 1e3:.0f} ms",
            f"one {t_one * 1e3:.0f} ms", f"{t_two / t_one:.2f}x",
            "< 2x" if n * 2 <= threads else "~1x the cores' work: 2x")

    # ~400 MB of output: 4 * 64 * 1024 bytes a line at d_model 1024, seq_len 64. The peak is VmHWM, the
    # high-water mark of this process's memory: ru_maxrss would start at this (large) parent's RSS, which
    # Linux carries over the child's exec.
    n = 400 * 1000 * 1000 // (64 * 1024 * 4)
    code = ("import sys; sys.path.insert(0, %r); import embedpe\n"
            "def hwm():\n"
            "    return int(open('/proc/self/status').read().split('VmHWM:')[1].split()[0]) * 1024\n"
            "lines = open(%r, encoding='utf-8-sig').read().splitlines(); lines = (lines * 100)[:%d]\n"
            "enc = embedpe.Encoder(model=%r, seq_len=64, d_model=1024); enc.encode(lines[:2])\n"
            "r0 = hwm(); out = enc.encode(lines, emit='output')['output']; r1 = hwm()\n"
            "print(out.nbytes, r0, r1)"
            % (str(pathlib.Path(embedpe.__file__).parent), args.corpus, n, str(models[-1])))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    nbytes, r0, r1 = map(int, r.stdout.split())
    row("peak RSS growth of one encode (d_model 1024, VmHWM)", f"{(r1 - r0) / 1e6:.0f} MB",
        f"output {nbytes / 1e6:.0f} MB", f"{(r1 - r0) / nbytes:.2f}x the output", "near 1x, not 2x")

    # The GIL released, measured so that a loaded machine does not hide it: how far a pure-Python loop in
    # the main thread gets while another thread is inside enc.encode, against the same loop alone for as
    # long. Held for the call, the loop would stop (0x); released, it runs as if alone (1x).
    e = embedpe.Encoder(model=str(models[-1]), seq_len=64, d_model=128, threads=1)
    done = threading.Event()

    def spin(until):
        count = 0
        while not until():
            count += 1
        return count

    def work():
        e.encode(lines * 3, emit="output")
        done.set()

    fractions = []
    for _ in range(3):
        done.clear()
        t = threading.Thread(target=work)
        start = time.perf_counter()
        t.start()
        during = spin(lambda: time.perf_counter() > 0 and done.is_set())  # the same work a turn as alone
        elapsed = time.perf_counter() - start
        t.join()
        stop_at = time.perf_counter() + elapsed
        alone = spin(lambda: time.perf_counter() >= stop_at and done.is_set())  # set: it has ended
        fractions.append(during / alone)
    row("a Python thread's progress while another encodes (threads=1)", f"{max(fractions):.2f}x",
        "the same loop alone", "", "~1x (0x: the GIL held)")


if __name__ == "__main__":
    main()
