#!/usr/bin/python3
"""embedpe's benchmark suite: every figure is a ratio against a reference
measured in the same run, on this machine. Prints a Markdown table.

    bench/run.py [--corpus PATH] [--quick] [--tokenize-only|--corpus-only|--latency-only|--diff-only|
                  --tokenizer-json-only]

Installs what it needs (tools/install_deps.sh: python3-torch, python3-sentencepiece), builds
Release into build-bench/ (tools/build.sh), then measures:
  kernel   fused E[ids]·scale + PE (64×512×512) into reused buffers vs memcpy of the same bytes,
           1 and 2 threads, for a dense table and the default N(0,1) table (warm: rows kept from
           an earlier pass; first pass: every distinct row generated), and vs the PyTorch
           TransformerInput (eval), timed in its own process
  corpus   encode botchan.txt (--seq-len 64 --d-model 128 --format npy, to /dev/shm) with the
           LLaMA-2 model and with the default model, each vs spm_encode --output_format=id with the
           same model, vs writing the same number of bytes to the same directory (the floor: no tool
           can produce that file faster), and vs a Python SentencePiece + PyTorch + np.save
           pipeline; then the corpus repeated 100 times (time per line, peak RSS)
  tokenize embedpe tokenize --format ids vs spm_encode --output_format=id, same model, same text,
           outputs checked byte for byte: LLaMA-2 on botchan (target <= 0.5x), Chinese-LLaMA-2 on
           wagahaiwa, the default model (target <= 0.6x), T5 and ALBERT on botchan (models from
           ../shared/corpora; rows skipped without them). The texts lose their BOM and CRLF first: spm_encode keeps both in its
           pieces, embedpe's line reader drops them. `--tokenize-only` runs just these rows.
  tokenizer.json  LLaMA-3's tokenizer.json vs spm_encode (LLaMA-2) and HF's Rust core on a 5 MB
           English + Japanese mix, 200 KB pathological lines, --threads scaling: bench/tokenizer_json.py
           (`--tokenizer-json-only` runs just these rows; SKIPPED without LLaMA-3's file)
  latency  one sentence, whole process, vs spm_encode
  tables   one sentence against a 2 GB .safetensors table vs a 2 MB one (`--latency-only` runs
           just these two)
  json     JSON and JSON Lines text written per second
  memory   peak RSS streaming a 200 MB corpus (jsonl, d_model 16, to /dev/null)
  diff     embedpe diff on two 256 MB float32 .npy files (64x1024x1024; 64 MB with --quick)
           vs bench/numpy_diff.py, the NumPy script computing the same figures on the same
           (memory-mapped) files; time and peak RSS (`--diff-only` runs just these rows)
Every corpus, tokenize and kernel row also counts minor page faults (fresh memory touched), the
process's own from wait4 (bench_kernel's per pass from getrusage), next to the reference's.
Timings are the best of several runs (wall clock); an output file is removed before each run
(untimed), so that no run pays for freeing the previous run's file.
"""
import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from tokenizer_json import tokenizer_json_rows

ROOT = pathlib.Path(__file__).resolve().parent.parent
BUILD = pathlib.Path(os.environ.get("EMBEDPE_BENCH_BUILD", ROOT / "build-bench"))
EMBEDPE = BUILD / "app" / "embedpe"
MODEL = ROOT / "data" / "default.model"
SHM = pathlib.Path("/dev/shm") if pathlib.Path("/dev/shm").is_dir() else pathlib.Path(tempfile.gettempdir())
SENTENCE = "Hello, this is machine translation"


def measure(cmd, repeats, stdin=None, stdout=subprocess.DEVNULL, remove=None):
    """(best wall time, minor page faults of that run): the faults are the child's own (wait4's rusage)."""
    runs = []
    for _ in range(repeats):
        if remove:
            pathlib.Path(remove).unlink(missing_ok=True)
        with open(stdin, "rb") if stdin else open(os.devnull, "rb") as inp, \
                open(stdout, "wb") if isinstance(stdout, pathlib.Path) else open(os.devnull, "rb") as out:
            t0 = time.perf_counter()
            p = subprocess.Popen(cmd, stdin=inp, stdout=out if isinstance(stdout, pathlib.Path) else stdout,
                                 stderr=subprocess.PIPE)
            err = p.stderr.read()
            _, status, usage = os.wait4(p.pid, 0)
            seconds = time.perf_counter() - t0
            p.returncode = os.waitstatus_to_exitcode(status)
            p.stderr.close()
            if p.returncode != 0:
                raise subprocess.CalledProcessError(p.returncode, cmd, stderr=err)
            runs.append((seconds, usage.ru_minflt))
    return min(runs)


def best(cmd, repeats, stdin=None, stdout=subprocess.DEVNULL, remove=None):
    return measure(cmd, repeats, stdin, stdout, remove)[0]


def faults(ours, reference, name):
    """The minor page faults column: ours, then the reference's."""
    return f"{ours} / {name} {reference}"


def peak_rss_kib(cmd, stdin=None, ok=(0,)):
    probe = ("import resource, subprocess, sys\n"
             "inp = open(sys.argv[1], 'rb') if sys.argv[1] != '-' else None\n"
             f"assert subprocess.run(sys.argv[2:], stdin=inp, stdout=subprocess.DEVNULL).returncode in {tuple(ok)!r}\n"
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run(["/usr/bin/python3", "-c", probe, stdin or "-", *map(str, cmd)], capture_output=True,
                         check=True)
    return int(out.stdout)


def write_floor(path, size, repeats):
    """Best time to write `size` bytes to `path` in 1 MiB writes (a new file each time)."""
    block = bytes(1 << 20)
    times = []
    for _ in range(repeats):
        path.unlink(missing_ok=True)
        t0 = time.perf_counter()
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        left = size
        while left > 0:
            left -= os.write(fd, block[:min(left, len(block))])
        os.close(fd)
        times.append(time.perf_counter() - t0)
    path.unlink(missing_ok=True)
    return min(times)


def machine():
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    mem = next((int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal")), 0)
    return f"{model}, {os.cpu_count()} cores, {mem / 2**20:.0f} GiB"


def have_torch():
    return subprocess.run(["/usr/bin/python3", "-c", "import torch, sentencepiece"], capture_output=True).returncode == 0


def sparse_safetensors(path, vocab, d):
    n = vocab * d * 4
    header = json.dumps({"model.embed_tokens.weight": {"dtype": "F32", "shape": [vocab, d],
                                                       "data_offsets": [0, n]}}).encode()
    header += b" " * ((8 - len(header) % 8) % 8)
    with open(path, "wb") as f:
        f.write(len(header).to_bytes(8, "little") + header)
        f.truncate(8 + len(header) + n)


def corpus_scaling(row, corpus, reps):
    """The default model on the corpus and on it repeated 100 times: wall time per line, peak RSS."""
    big = SHM / "embedpe-bench-100x.txt"
    data = corpus.read_bytes()
    with open(big, "wb") as f:
        for _ in range(100):
            f.write(data)
    lines = data.count(b"\n")
    out_npy = SHM / "embedpe-bench.npy"
    try:
        figures = {}
        for name, path, n in (("1x", corpus, lines), ("100x", big, 100 * lines)):
            cmd = [EMBEDPE, "encode", "--input", path, "--seq-len", "64", "--d-model", "128", "--format", "npy",
                   "-o", out_npy]
            t = best(cmd, reps, remove=out_npy)
            out_npy.unlink(missing_ok=True)
            rss = peak_rss_kib(cmd)
            out_npy.unlink(missing_ok=True)
            figures[name] = (t, n, rss)
        (t1, n1, r1), (t100, n100, r100) = figures["1x"], figures["100x"]
        row(f"corpus x100 ({n100} lines), default model", f"{t100:.2f} s, {t100 / n100 * 1e6:.1f} us/line",
            f"x1 {t1 * 1e3:.0f} ms, {t1 / n1 * 1e6:.1f} us/line", f"{t100 / t1:.0f}x the time for 100x the lines",
            "linear", f"peak RSS {r100 / 1024:.0f} MiB vs {r1 / 1024:.0f} MiB")
    finally:
        big.unlink(missing_ok=True)


def corpus_rows(row, args, reps, torch_ok):
    """The corpus rows: encode the corpus to .npy with the LLaMA-2 and the default model, each against
    spm_encode with the same model, the write floor and the Python pipeline; then scaling and JSON text."""
    corpus = pathlib.Path(args.corpus)
    if corpus.is_file():
        out_npy = SHM / "embedpe-bench.npy"
        llama = ROOT.parent / "shared" / "corpora" / "llama2-tokenizer.model"
        for name, model, target_spm, target_floor in (("LLaMA-2", llama, "<= 1.0x", ""),
                                                      ("default model", MODEL, "<= 1.2x", "")):
            if not model.is_file():
                print(f"(no {model}: corpus row skipped)", file=sys.stderr)
                continue
            encode = [EMBEDPE, "encode", "--model", model, "--input", corpus, "--seq-len", "64", "--d-model", "128",
                      "--format", "npy", "-o", out_npy]
            ours, ours_faults = measure(encode, reps, remove=out_npy)
            size = out_npy.stat().st_size
            spm, spm_faults = measure(["spm_encode", f"--model={model}", "--output_format=id"], reps, stdin=corpus)
            floor = write_floor(SHM / "embedpe-bench-floor.bin", size, reps)
            row(f"corpus, {name}, vs spm_encode", f"{ours * 1e3:.0f} ms", f"spm_encode {spm * 1e3:.0f} ms",
                f"{ours / spm:.2f}x spm_encode", target_spm, f"the write alone is {floor / spm:.2f}x spm_encode",
                faults(ours_faults, spm_faults, "spm_encode"))
            row(f"corpus, {name}, vs writing its output", f"{ours * 1e3:.0f} ms",
                f"write {size / 1e6:.0f} MB {floor * 1e3:.0f} ms", f"{ours / floor:.2f}x the write", target_floor,
                "", faults(ours_faults, spm_faults, "spm_encode"))
            if torch_ok:
                py_out = SHM / "py-bench.npy"
                py_cmd = ["/usr/bin/python3", ROOT / "bench" / "python_pipeline.py", model, corpus, py_out]
                py = best(py_cmd, max(2, reps // 3), remove=py_out)
                out_npy.unlink(missing_ok=True)
                rss_ours = peak_rss_kib(encode)
                rss_py = peak_rss_kib(py_cmd)
                py_out.unlink(missing_ok=True)
                # Whole processes, each with its imports (Python's includes `import torch`); the work
                # inside a process that has imported torch is bench/python_module.py's row.
                row(f"corpus, {name}, vs Python pipeline (whole processes, imports included)", f"{ours * 1e3:.0f} ms",
                    f"python {py * 1e3:.0f} ms", f"{py / ours:.1f}x faster", "report")
                row(f"corpus, {name}, peak memory", f"{rss_ours / 1024:.0f} MiB", f"python {rss_py / 1024:.0f} MiB",
                    f"{rss_ours / rss_py:.2f}x", "")
            out_npy.unlink(missing_ok=True)
        corpus_scaling(row, corpus, 1 if args.quick else 2)
        for fmt in ("json", "jsonl"):
            out_text = SHM / f"embedpe-bench.{fmt}"
            js = best([EMBEDPE, "encode", "--input", corpus, "--seq-len", "64", "--d-model", "128", "--format", fmt,
                       "-o", out_text], reps, remove=out_text)
            size = out_text.stat().st_size
            row(f"{fmt} text", f"{size / js / 1e6:.0f} MB/s", f"{size / 1e6:.0f} MB in {js:.2f} s", "",
                ">= 300 MB/s")
            out_text.unlink(missing_ok=True)
        out_npy.unlink(missing_ok=True)
    else:
        print(f"(no corpus at {corpus}: corpus, json and memory rows skipped)", file=sys.stderr)


def tokenize_rows(row, reps):
    """embedpe tokenize vs spm_encode on the same text and model; the outputs must be the same bytes."""
    corpora = ROOT.parent / "shared" / "corpora"
    cases = [("LLaMA-2", corpora / "llama2-tokenizer.model", corpora / "botchan.txt", "<= 0.5x"),
             ("Chinese-LLaMA-2", corpora / "chinese-llama2-tokenizer.model", corpora / "wagahaiwa_nekodearu.txt", ""),
             ("default model", MODEL, corpora / "botchan.txt", "<= 0.6x"),
             ("T5", corpora / "t5-spiece.model", corpora / "botchan.txt", ""),
             ("ALBERT", corpora / "albert-spiece.model", corpora / "botchan.txt", "")]
    for name, model, corpus, target in cases:
        if not (model.is_file() and corpus.is_file()):
            print(f"(no {model} or {corpus}: tokenize row skipped)", file=sys.stderr)
            continue
        text = SHM / f"embedpe-bench-{corpus.stem}.txt"
        data = corpus.read_bytes()
        text.write_bytes(data.removeprefix(b"\xef\xbb\xbf").replace(b"\r\n", b"\n"))
        ours_out, spm_out = SHM / "embedpe-bench-ids.txt", SHM / "spm-bench-ids.txt"
        ours, ours_faults = measure([EMBEDPE, "tokenize", "--model", model, "--input", text, "--format", "ids",
                                     "--no-bos", "--no-eos", "-o", ours_out], reps, remove=ours_out)
        spm, spm_faults = measure(["spm_encode", f"--model={model}", "--output_format=id"], reps, stdin=text,
                                  stdout=spm_out)
        same = ours_out.read_bytes() == spm_out.read_bytes()
        for f in (text, ours_out, spm_out):
            f.unlink(missing_ok=True)
        if not same:
            sys.exit(f"tokenize {name} on {corpus.name}: embedpe's ids differ from spm_encode's")
        row(f"tokenize ids, {name}, {corpus.name}", f"{ours * 1e3:.0f} ms", f"spm_encode {spm * 1e3:.0f} ms",
            f"{ours / spm:.2f}x spm_encode", target, "same bytes", faults(ours_faults, spm_faults, "spm_encode"))


def latency_rows(row, reps):
    """One sentence, whole process, vs spm_encode; and against a 2 GB weights table vs a 2 MB one."""
    sentence = SHM / "embedpe-sentence.txt"
    sentence.write_text(SENTENCE + "\n")
    tmp = pathlib.Path(tempfile.mkdtemp())
    try:
        ours = best([EMBEDPE, "encode", "--text", SENTENCE, "-o", SHM / "lat.npy"], reps * 3, remove=SHM / "lat.npy")
        spm = best(["spm_encode", f"--model={MODEL}", "--output_format=id"], reps * 3, stdin=sentence)
        row("latency, one sentence", f"{ours * 1e3:.1f} ms", f"spm_encode {spm * 1e3:.1f} ms", f"{ours / spm:.2f}x",
            "<= 1.3x")
        sparse_safetensors(tmp / "big.safetensors", 1_000_000, 512)   # 2.05 GB, sparse
        sparse_safetensors(tmp / "small.safetensors", 8_000, 64)      # 2 MB (the vocabulary needs 8000 rows)
        small = best([EMBEDPE, "encode", "--text", SENTENCE, "--weights", tmp / "small.safetensors", "-o",
                      SHM / "lat.npy"], reps * 3)
        big = best([EMBEDPE, "encode", "--text", SENTENCE, "--weights", tmp / "big.safetensors", "-o",
                    SHM / "lat.npy"], reps * 3)
        row("2 GB vs 2 MB table", f"{big * 1e3:.1f} ms", f"{small * 1e3:.1f} ms", f"+{(big - small) * 1e3:.1f} ms",
            "<= +10 ms")
    finally:
        shutil.rmtree(tmp)
        (SHM / "lat.npy").unlink(missing_ok=True)
        sentence.unlink(missing_ok=True)


def diff_rows(row, reps, quick):
    """embedpe diff vs the NumPy script it replaces, on the same two .npy files."""
    import numpy as np
    shape = (16, 1024, 1024) if quick else (64, 1024, 1024)
    a_path, b_path = SHM / "embedpe-bench-diff-a.npy", SHM / "embedpe-bench-diff-b.npy"
    try:
        rng = np.random.default_rng(0)
        a = np.lib.format.open_memmap(a_path, mode="w+", dtype=np.float32, shape=shape)
        b = np.lib.format.open_memmap(b_path, mode="w+", dtype=np.float32, shape=shape)
        for i in range(shape[0]):  # a batch at a time: the generator's memory stays small
            a[i] = rng.standard_normal(shape[1:], dtype=np.float32)
            b[i] = a[i] + rng.standard_normal(shape[1:], dtype=np.float32) * np.float32(1e-6)
        del a, b
        ours_cmd = [EMBEDPE, "diff", a_path, b_path, "--format", "json"]
        py_cmd = ["/usr/bin/python3", ROOT / "bench" / "numpy_diff.py", a_path, b_path]
        ours_out = json.loads(subprocess.run(ours_cmd, capture_output=True).stdout)["tensors"][0]
        py_out = json.loads(subprocess.run(py_cmd, capture_output=True, check=True).stdout)
        if ours_out["beyond"] != py_out["beyond"] or ours_out["max_abs"] != py_out["max_abs"]:
            sys.exit(f"diff: embedpe and NumPy disagree: {ours_out} vs {py_out}")
        ours = best_status(ours_cmd, reps)
        py = best(py_cmd, max(2, reps // 2))
        size = a_path.stat().st_size
        row(f"diff two {size / 1e6:.0f} MB .npy", f"{ours * 1e3:.0f} ms", f"numpy {py * 1e3:.0f} ms",
            f"{py / ours:.1f}x faster", ">= 1x", "same figures")
        rss_ours, rss_py = peak_rss_kib(ours_cmd, ok=(0, 1)), peak_rss_kib(py_cmd)
        row("diff peak memory", f"{rss_ours / 1024:.0f} MiB", f"numpy {rss_py / 1024:.0f} MiB",
            f"{rss_ours / rss_py:.2f}x", "bounded", f"inputs {2 * size / 2**20:.0f} MiB, mapped")
    finally:
        a_path.unlink(missing_ok=True)
        b_path.unlink(missing_ok=True)


def best_status(cmd, repeats):
    """best() for a command whose exit status 1 is an answer (diff's "different")."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - t0)
        if r.returncode not in (0, 1):
            sys.exit(f"{cmd}: {r.stderr.decode()}")
    return min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpora" / "botchan.txt"))
    ap.add_argument("--quick", action="store_true", help="fewer repeats, 50 MB memory corpus")
    ap.add_argument("--tokenize-only", action="store_true", help="only the tokenize rows")
    ap.add_argument("--latency-only", action="store_true", help="only the latency and 2 GB table rows")
    ap.add_argument("--diff-only", action="store_true", help="only the diff rows")
    ap.add_argument("--corpus-only", action="store_true", help="only the corpus rows (no Python pipeline)")
    ap.add_argument("--tokenizer-json-only", action="store_true", help="only the tokenizer.json rows")
    args = ap.parse_args()
    if not (args.tokenize_only or args.latency_only or args.diff_only or args.corpus_only or args.tokenizer_json_only):
        subprocess.run([str(ROOT / "tools" / "install_deps.sh"), "python3-torch", "python3-sentencepiece"], check=True)
    subprocess.run([str(ROOT / "tools" / "build.sh"), str(BUILD), "-DEMBEDPE_BUILD_BENCH=ON"], check=True,
                   stdout=subprocess.DEVNULL, env=dict(os.environ, EMBEDPE_BUILD_TARGET="all"))
    reps = 3 if args.quick else 7
    rows = []

    def row(name, ours, reference, ratio, target, note="", minflt=""):
        rows.append((name, ours, reference, ratio, target, note, minflt))

    if args.tokenizer_json_only:
        tokenizer_json_rows(row, reps, EMBEDPE)
        print_rows(rows, args)
        return
    if args.corpus_only:
        corpus_rows(row, args, reps, torch_ok=False)
        print_rows(rows, args)
        return
    if args.diff_only:
        diff_rows(row, reps, args.quick)
        print_rows(rows, args)
        return
    if args.tokenize_only or args.latency_only:
        (tokenize_rows if args.tokenize_only else latency_rows)(row, reps)
        print_rows(rows, args)
        return

    # kernel
    torch_ok = have_torch()
    for threads in (1, 2):
        k = json.loads(subprocess.run([str(BUILD / "bench" / "bench_kernel"), "64", "512", "512", str(threads)],
                                      capture_output=True, check=True, text=True).stdout)
        target = "<= 1.2x" if threads == 1 else "scales"
        row(f"kernel dense table, {threads} thread(s)", f"{k['dense_s'] * 1e3:.1f} ms", f"memcpy {k['memcpy_s'] * 1e3:.1f} ms",
            f"{k['dense_s'] / k['memcpy_s']:.2f}x memcpy", target, "",
            faults(k["dense_minflt"], k["memcpy_minflt"], "memcpy"))
        row(f"kernel N(0,1) table, {threads} thread(s)", f"{k['random_s'] * 1e3:.1f} ms",
            f"memcpy {k['memcpy_s'] * 1e3:.1f} ms", f"{k['random_s'] / k['memcpy_s']:.2f}x memcpy", "",
            "rows kept from an earlier pass", faults(k["random_minflt"], k["memcpy_minflt"], "memcpy"))
        row(f"kernel N(0,1) first pass, {threads} thread(s)", f"{k['random_cold_s'] * 1e3:.1f} ms",
            f"memcpy {k['memcpy_s'] * 1e3:.1f} ms", f"{k['random_cold_s'] / k['memcpy_s']:.2f}x memcpy",
            "<= 3x" if threads == 2 else "", "8000 distinct rows generated",
            faults(k["random_cold_minflt"], k["memcpy_minflt"], "memcpy"))
        if torch_ok:
            t = float(subprocess.run(["/usr/bin/python3", str(ROOT / "bench" / "torch_layer.py"), "64", "512", "512",
                                      str(threads)], capture_output=True, check=True, text=True).stdout)
            row(f"kernel vs PyTorch, {threads} thread(s)", f"{k['dense_s'] * 1e3:.1f} ms", f"torch {t * 1e3:.1f} ms",
                f"{t / k['dense_s']:.1f}x faster", ">= 12x" if threads == 1 else "")

    corpus_rows(row, args, reps, torch_ok)
    corpus = pathlib.Path(args.corpus)

    tokenize_rows(row, reps)

    tokenizer_json_rows(row, reps, EMBEDPE)

    latency_rows(row, reps)

    diff_rows(row, reps, args.quick)

    # memory while streaming a large corpus
    if corpus.is_file():
        tmp = pathlib.Path(tempfile.mkdtemp())
        try:
            target = (50 if args.quick else 200) * 1_000_000
            big_corpus = tmp / "corpus.txt"
            data = corpus.read_bytes()
            with open(big_corpus, "wb") as f:
                for _ in range(target // len(data) + 1):
                    f.write(data)
            rss = peak_rss_kib([EMBEDPE, "encode", "--input", big_corpus, "--format", "jsonl", "--d-model", "16",
                                "-o", "/dev/null"])
            row(f"streaming {big_corpus.stat().st_size / 1e6:.0f} MB corpus", f"{rss / 1024:.0f} MiB peak RSS", "", "",
                "<= 64 MiB", "jsonl, d_model 16, to /dev/null")
        finally:
            shutil.rmtree(tmp)

    print_rows(rows, args)


def print_rows(rows, args):
    flags = ((" --quick" if args.quick else "") + (" --tokenize-only" if args.tokenize_only else "") +
             (" --latency-only" if args.latency_only else "") + (" --diff-only" if args.diff_only else "") +
             (" --corpus-only" if args.corpus_only else "") +
             (" --tokenizer-json-only" if args.tokenizer_json_only else ""))
    print(f"{machine()}; {time.strftime('%Y-%m-%d')}; bench/run.py{flags}\n")
    print(f"| benchmark | embedpe | reference | ratio | target | note | minor faults (embedpe / reference) |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
