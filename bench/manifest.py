#!/usr/bin/python3
"""What --output-dir's bookkeeping costs: 10,000 parts of one row each.

    bench/manifest.py [--embedpe build/app/embedpe] [--parts 10000] [--runs 3]

Runs `embedpe encode --output-dir DIR --shard-rows 1 --emit input_ids --summary`
over N short lines (in /dev/shm when it exists) and reports the wall time of
the run and the share spent on
  manifest  writing manifest.json (twice: at the start and at the end),
            appending one journal line per part, lstat() of each part path,
            removing parts beyond the end;
  hashes    reading each part back for its SHA-256 (recorded so that
            --resume can tell an intact part from a damaged one).
embedpe measures both itself, with a steady clock around exactly those steps,
and prints them with --summary ("--output-dir: N parts; manifest and journal
X s, part hashes Y s"). Hashing the input bytes per line is in neither (one
SHA-256 update per line).
Best of --runs runs.
"""
import argparse
import pathlib
import re
import shutil
import subprocess
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHM = pathlib.Path("/dev/shm") if pathlib.Path("/dev/shm").is_dir() else pathlib.Path(tempfile.gettempdir())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--embedpe", default=str(ROOT / "build" / "app" / "embedpe"))
    ap.add_argument("--parts", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(dir=SHM) as d:
        tmp = pathlib.Path(d)
        corpus = tmp / "corpus.txt"
        corpus.write_text("".join(f"short line {i}\n" for i in range(args.parts)))
        best = None
        for _ in range(args.runs):
            out = tmp / "dir"
            shutil.rmtree(out, ignore_errors=True)
            start = time.monotonic()
            r = subprocess.run([args.embedpe, "encode", "--input", str(corpus), "--output-dir", str(out),
                                "--shard-rows", "1", "--emit", "input_ids", "--summary"],
                               capture_output=True, text=True, check=True)
            wall = time.monotonic() - start
            m = re.search(r"(\d+) parts; manifest and journal ([0-9.]+) s, part hashes ([0-9.]+) s", r.stderr)
            assert m and int(m.group(1)) == args.parts, r.stderr
            book, hashes = float(m.group(2)), float(m.group(3))
            if best is None or wall < best[0]:
                best = (wall, book, hashes)
        wall, book, hashes = best
        print(f"{args.parts} parts of 1 row: run {wall:.2f} s; manifest and journal {book:.3f} s = "
              f"{100 * book / wall:.1f}% ({1e6 * book / args.parts:.1f} us per part); part hashes {hashes:.3f} s = "
              f"{100 * hashes / wall:.1f}% ({1e6 * hashes / args.parts:.1f} us per part)")


if __name__ == "__main__":
    main()
