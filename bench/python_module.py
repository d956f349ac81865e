"""`import embedpe` against the CLI and against the Python pipeline, in one process (issue 48).

    PYTHONPATH=build/python /usr/bin/python3 bench/python_module.py [--corpus F] [--model M] [--reps N]

Rows (best of --reps, the corpus encoded at --seq-len 64 --d-model 128 as bench/run.py's corpus rows):
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
import resource
import subprocess
import sys
import threading
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "build" / "python"))
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpora" / "botchan.txt"))
    ap.add_argument("--model", default=str(ROOT / "data" / "default.model"))
    ap.add_argument("--embedpe", default=str(ROOT / "build" / "app" / "embedpe"))
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()
    lines = open(args.corpus, encoding="utf-8-sig").read().splitlines()
    threads = len(os.sched_getaffinity(0))
    options = dict(model=args.model, seq_len=64, d_model=128, threads=threads)
    out = SHM / "embedpe-pybench.npy"
    cli = [args.embedpe, "encode", "--model", args.model, "--input", args.corpus, "--seq-len", "64", "--d-model",
           "128", "--threads", str(threads), "--format", "npy", "-o", str(out)]
    print(f"embedpe {embedpe.__version__}; {len(lines)} lines of {args.corpus}; model {args.model}; "
          f"{threads} threads; best of {args.reps}", flush=True)
    row("benchmark", "embedpe module", "reference", "ratio", "target")
    row("---", "---", "---", "---", "---")

    t_cli = best(lambda: subprocess.run(cli, check=True), args.reps)
    out.unlink(missing_ok=True)
    enc = embedpe.Encoder(**options)
    t_enc = best(lambda: enc.encode(lines, emit="output"), args.reps)
    want = None
    subprocess.run(cli, check=True)
    want = np.load(out)
    out.unlink(missing_ok=True)
    same = enc.encode(lines, emit="output")["output"].tobytes() == want.tobytes()
    row("enc.encode(corpus) vs the CLI writing .npy to /dev/shm", f"{t_enc * 1e3:.0f} ms",
        f"CLI process {t_cli * 1e3:.0f} ms", f"{t_enc / t_cli:.2f}x", f"<= 1.2x ({'same bytes' if same else 'DIFFERENT BYTES'})")

    try:
        import sentencepiece as spm
        import torch
        sys.path.insert(0, str(ROOT / "tools"))
        from make_goldens import TransformerInput
    except ImportError as e:
        print(f"(no {e.name}: the in-process Python pipeline row is skipped)", file=sys.stderr)
    else:
        torch.set_num_threads(threads)

        def pipeline():
            sp = spm.SentencePieceProcessor(model_file=args.model)
            pad = sp.pad_id() if sp.pad_id() >= 0 else 0
            ids = []
            for line in lines:
                t = [sp.bos_id()] + sp.encode(line)[: 64 - 2] + [sp.eos_id()]
                ids.append(t + [pad] * (64 - len(t)))
            layer = TransformerInput(sp.vocab_size(), 128).eval()
            with torch.no_grad():
                return layer(torch.tensor(ids)).numpy()

        def ours():
            return embedpe.Encoder(**options).encode(lines, emit="output")["output"]

        t_py = best(pipeline, max(3, args.reps // 2))
        t_ours = best(ours, args.reps)
        row("Encoder + encode vs SentencePiece-in-Python + PyTorch layer, torch imported", f"{t_ours * 1e3:.0f} ms",
            f"python {t_py * 1e3:.0f} ms", f"{t_ours / t_py:.2f}x ({t_py / t_ours:.1f}x faster)", "<= 0.33x")
        a = enc.encode(lines[:8])["output"]
        shared = torch.from_numpy(a).data_ptr() == a.__array_interface__["data"][0]
        row("torch.from_numpy(out['output'])", "shares the buffer" if shared else "COPIES", "", "", "no copy")

    big = lines * 1
    t_one = best(lambda: enc.encode(big, emit="output"), 3)

    def two():
        ts = [threading.Thread(target=enc.encode, args=(big,), kwargs={"emit": "output"}) for _ in range(2)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    t_two = best(two, 3)
    row("two Python threads at once vs one (threads=%d each)" % threads, f"{t_two * 1e3:.0f} ms",
        f"one {t_one * 1e3:.0f} ms", f"{t_two / t_one:.2f}x", "< 2x")
    one_thread = embedpe.Encoder(**dict(options, threads=1))
    t_one1 = best(lambda: one_thread.encode(big, emit="output"), 3)

    def two1():
        ts = [threading.Thread(target=one_thread.encode, args=(big,), kwargs={"emit": "output"}) for _ in range(2)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    t_two1 = best(two1, 3)
    row("two Python threads at once vs one (threads=1 each)", f"{t_two1 * 1e3:.0f} ms", f"one {t_one1 * 1e3:.0f} ms",
        f"{t_two1 / t_one1:.2f}x", "< 2x")

    # ~400 MB of output: 4 * 64 * 1024 floats a line at d_model 1024, seq_len 64.
    n = 400 * 1000 * 1000 // (64 * 1024 * 4)
    code = ("import resource, sys; sys.path.insert(0, %r); import embedpe; "
            "lines = open(%r, encoding='utf-8-sig').read().splitlines(); lines = (lines * 100)[:%d]; "
            "enc = embedpe.Encoder(model=%r, seq_len=64, d_model=1024); enc.encode(lines[:2]); "
            "r0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss; "
            "out = enc.encode(lines, emit='output')['output']; "
            "r1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss; print(out.nbytes, r0 * 1024, r1 * 1024)"
            % (str(ROOT / "build" / "python"), args.corpus, n, args.model))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    nbytes, r0, r1 = map(int, r.stdout.split())
    row("peak RSS growth of one encode", f"{(r1 - r0) / 1e6:.0f} MB", f"output {nbytes / 1e6:.0f} MB",
        f"{(r1 - r0) / nbytes:.2f}x the output", "near 1x, not 2x")


if __name__ == "__main__":
    main()
