"""Scale-out: embedpe merge, and the README's recipes on the real engines.

    EMBEDPE=build/app/embedpe EMBEDPE_TEST_TMPDIR=/tmp python3 -m unittest -v scale_test

- MergeTests: merge joins .npy, .npz, .jsonl, .safetensors and --output-dir shards into what
  one run writes, byte for byte (empty shards included), and refuses missing,
  duplicated, foreign, incomplete and corrupt shards with one line naming them.
- RecipeTests: the README's local GNU parallel recipe, extracted from README.md.
- SlurmTests: a single-node Slurm cluster (Debian's slurm-wlm and munge) started
  here as root with a generated slurm.conf; the README's job script submitted
  with sbatch --wait --array=1-4, one task killed mid-run and run again with
  --resume, the parts merged and compared with a single run.
- SshTests: sshd on 127.0.0.2 and 127.0.0.3 with generated keys and config; the
  README's multi-host GNU parallel recipe, merged and compared.

The engine tests fail (they never skip) when the daemons cannot start:
tools/install_deps.sh installs them. Every wait has a timeout, and every
daemon started is stopped by its PID in a finally block.
"""
import hashlib
import json
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest

import numpy

HERE = pathlib.Path(__file__).resolve().parent
README = HERE.parent / "README.md"
EMBEDPE = os.path.abspath(os.environ.get("EMBEDPE", str(HERE.parent / "build" / "app" / "embedpe")))
TMP = os.environ.get("EMBEDPE_TEST_TMPDIR", tempfile.gettempdir())



def safetensors_header(path):
    """The JSON header of a .safetensors file, as the format specifies it: an 8-byte little-endian
    length, then that many bytes of JSON."""
    data = pathlib.Path(path).read_bytes()
    n = int.from_bytes(data[:8], "little")
    return json.loads(data[8:8 + n])


def record_of(shard):
    """A shard output's record: inside an .npz (its "shard" member, a 0-d unicode array that
    numpy.load reads without allow_pickle) or a .safetensors (its "shard" metadata string), beside
    any other file (FILE.shard.json)."""
    shard = str(shard)
    if shard.endswith(".npz"):
        with numpy.load(shard) as z:  # allow_pickle is False by default
            return json.loads(str(z["shard"][()]))
    if shard.endswith(".safetensors"):
        return json.loads(safetensors_header(shard)["__metadata__"]["shard"])
    return json.loads(pathlib.Path(shard + ".shard.json").read_text())


def corpus_lines():
    """Real English text: the default model's training corpus if present, else generated sentences."""
    lines = [f"sentence number {i}: " + "the boy went to the country " * (i % 5) for i in range(400)]
    lines += ["", "  ", "你好，世界", "Hello, this is machine translation"]
    return lines


def recipe(name):
    """The indented block after `<!-- recipe: NAME -->` in README.md, dedented."""
    text = README.read_text()
    m = re.search(r"<!-- recipe: " + re.escape(name) + r" -->\n\n((?:    .*\n|\n)+)", text)
    assert m, f"README.md has no recipe {name!r}"
    return "\n".join(line[4:] for line in m.group(1).rstrip("\n").split("\n")) + "\n"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ScaleCase(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory(dir=TMP)
        self.tmp = pathlib.Path(self.dir.name)
        # embedpe on PATH, as the recipes call it
        self.bin = self.tmp / "bin"
        self.bin.mkdir()
        (self.bin / "embedpe").symlink_to(os.path.abspath(EMBEDPE))
        # GNU parallel's citation notice is acknowledged for the tests, as a user does once
        self.env = dict(os.environ, PATH=f"{self.bin}:{os.environ['PATH']}:/usr/sbin:/sbin", PARALLEL="--will-cite")

    def tearDown(self):
        self.dir.cleanup()

    def run_embedpe(self, *args, cwd=None):
        return subprocess.run([EMBEDPE, *args], stdin=subprocess.DEVNULL, capture_output=True, cwd=cwd or self.tmp,
                              timeout=120)

    def ok(self, *args, cwd=None):
        r = self.run_embedpe(*args, cwd=cwd)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        return r

    def fails(self, message, *args, output=None):
        r = self.run_embedpe(*args)
        err = r.stderr.decode()
        self.assertEqual(r.returncode, 1, err)
        self.assertEqual(err.count("\n"), 1, f"expected one line on stderr, got {err!r}")
        self.assertTrue(err.startswith("embedpe: "), err)
        self.assertIn(message, err)
        if output is not None:
            self.assertFalse(pathlib.Path(output).exists(), f"{output} was left behind")
            self.assertEqual([p for p in pathlib.Path(output).parent.iterdir() if ".embedpe-" in p.name], [])
        return err

    def shell(self, script, cwd, timeout, env=None):
        r = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=cwd, capture_output=True,
                           env=env or self.env, timeout=timeout)
        self.assertEqual(r.returncode, 0, f"{script}\nstdout: {r.stdout.decode()}\nstderr: {r.stderr.decode()}")
        return r

    def corpus(self, lines, name="corpus.txt", where=None):
        path = (where or self.tmp) / name
        path.write_text("\n".join(lines) + "\n")
        return path

    def same_bytes(self, a, b):
        a, b = pathlib.Path(a).read_bytes(), pathlib.Path(b).read_bytes()
        self.assertTrue(len(a) > 0)
        self.assertEqual(len(a), len(b))
        self.assertTrue(a == b, "the merged output differs from the single run's")


LAYER = ["--d-model", "16", "--seq-len", "24"]
ALL = ("--emit", "input_ids,attention_mask,positional_encoding,output")


class MergeTests(ScaleCase):
    def shards(self, src, n, ext, extra=None, seek=False):
        extra = extra if extra is not None else (("--emit", "output") if ext == "npy" else ALL)
        out = []
        for k in range(1, n + 1):
            path = self.tmp / f"shard-{k}.{ext}"
            self.ok("encode", "--input", str(src), *LAYER, *extra, "--shard", f"{k}/{n}", "-o", str(path),
                    *(("--shard-seek",) if seek else ()))
            self.assertEqual(record_of(path)["shard"], f"{k}/{n}")
            # an .npz or a .safetensors carries its record: nothing beside it
            self.assertEqual(pathlib.Path(str(path) + ".shard.json").exists(), ext not in ("npz", "safetensors"))
            out.append(str(path))
        return out

    def test_npy_npz_jsonl_safetensors_shards_merge_to_the_single_run(self):
        src = self.corpus(corpus_lines())
        for ext in ("npy", "npz", "jsonl", "safetensors"):
            with self.subTest(ext=ext):
                extra = ("--emit", "output") if ext == "npy" else ALL
                single = self.tmp / f"single.{ext}"
                self.ok("encode", "--input", str(src), *LAYER, *extra, "--batch-size", "50", "-o", str(single))
                shards = self.shards(src, 5, ext, extra)
                merged = self.tmp / f"merged.{ext}"
                self.ok("merge", "-o", str(merged), *reversed(shards))  # any order
                self.same_bytes(merged, single)
                self.assertFalse(pathlib.Path(str(single) + ".shard.json").exists(), "a run without shard has no record")

    def test_shard_seek_shards_merge_to_the_single_run(self):
        """--shard-seek shards number their lines from their own start; merge renumbers JSON Lines to the file's."""
        lines = corpus_lines() + ["ünïcödé line", "", "last"]
        # 25 shards of 20 lines: empty shards too (a process a shard: 25, not the 500 it once took).
        inputs = {"all": (self.corpus(lines), len(lines)), "few": (self.corpus(lines[-20:], "few.txt"), 20)}
        for ext in ("npy", "npz", "jsonl", "safetensors"):
            extra = ("--emit", "output") if ext == "npy" else ALL
            for which, n in (("all", 3), ("all", 7), ("few", 25)):
                src, count = inputs[which]
                single = self.tmp / f"single-{which}.{ext}"
                if not single.exists():
                    self.ok("encode", "--input", str(src), *LAYER, *extra, "-o", str(single))
                with self.subTest(ext=ext, n=n, lines=count):
                    shards = self.shards(src, n, ext, extra, seek=True)
                    records = [record_of(s) for s in shards]
                    self.assertTrue(all(r["reading"]["shard_seek"] for r in records))
                    self.assertEqual(sum(r["input"]["lines"] for r in records), count)
                    if n > count:
                        self.assertTrue(any(r["input"]["lines"] == 0 for r in records), "no empty shard")
                    if ext == "jsonl":  # a shard's own numbering: its first record is line 1
                        second = next(s for s, r in zip(shards[1:], records[1:]) if r["input"]["lines"])
                        self.assertEqual(json.loads(pathlib.Path(second).read_text().split("\n")[0])["line"], 1)
                    merged = self.tmp / f"merged.{ext}"
                    self.ok("merge", "-o", str(merged), *reversed(shards))
                    self.same_bytes(merged, single)
        src = inputs["all"][0]
        # counted and seeking shards are not one run's
        c1, s2, out = self.tmp / "c1.jsonl", self.tmp / "s2.jsonl", self.tmp / "m.jsonl"
        self.ok("encode", "--input", str(src), *LAYER, *ALL, "--shard", "1/2", "-o", str(c1))
        self.ok("encode", "--input", str(src), *LAYER, *ALL, "--shard", "2/2", "--shard-seek", "-o", str(s2))
        err = self.fails("read differently", "merge", "-o", str(out), str(c1), str(s2), output=out)
        self.assertIn("shard_seek", err)

    def test_shard_seek_does_not_read_before_its_range(self):
        """Shard 1000000/1000000 of a 1 TiB file (a sparse hole, then text) reads ~1 MiB, not the terabyte
        before it: counting its lines would read 1 TiB of zeros."""
        text = "\n".join(corpus_lines() * 40).encode() + b"\n"  # ~1.8 MB: the last shard starts inside it
        big = self.tmp / "huge.txt"
        hole = 1 << 40
        with open(big, "wb") as f:
            f.seek(hole)
            f.write(b"\n" + text)
        size = hole + 1 + len(text)
        n = 1000000
        begin = size // n * (n - 1) + min(size % n, n - 1)
        self.assertGreater(begin, hole + 1, "the test's last shard must start inside the text")
        with open(big, "rb") as f:
            f.seek(begin - 1)
            tail = f.read()
        # the first line starting at or after begin: the one straddling it is shard n-1's
        start = begin if tail[:1] == b"\n" else begin - 1 + tail.index(b"\n") + 1
        expected = tail[start - (begin - 1):].decode().split("\n")[:-1]
        out = self.tmp / "last.jsonl"
        self.ok("encode", "--input", str(big), "--emit", "input_ids", "--shard", f"{n}/{n}", "--shard-seek", "-o", str(out))
        records = [json.loads(line) for line in out.read_text().splitlines()]
        self.assertEqual([r["line"] for r in records], list(range(1, len(expected) + 1)))
        rec = json.loads(pathlib.Path(str(out) + ".shard.json").read_text())
        self.assertEqual(rec["input"]["range"], [start, size])
        self.assertEqual(rec["input"]["lines"], len(expected))
        # the same lines as a plain run over just those bytes
        plain = self.tmp / "tail.txt"
        plain.write_text("\n".join(expected) + "\n")
        ids = self.ok("encode", "--input", str(plain), "--emit", "input_ids", "--format", "jsonl").stdout.decode()
        self.assertEqual([json.loads(l)["input_ids"] for l in ids.splitlines()], [r["input_ids"] for r in records])
        big.unlink()

    def test_output_dirs_with_weights_merge_into_the_single_runs_file(self):
        """A parts directory's manifest records the weight files' SHA-256 (weight_files), which resume and
        merge check; a file merged from such directories holds one run's config, without it."""
        src = self.corpus(corpus_lines()[:60])
        weights = self.tmp / "w.npy"
        numpy.save(weights, numpy.random.default_rng(5).standard_normal((32000, 16)).astype(numpy.float32))
        args = ["encode", "--input", str(src), *LAYER, "--weights", str(weights)]
        dirs = []
        for k in (1, 2):
            dirs.append(str(self.tmp / f"parts-{k}"))
            self.ok(*args, "--shard", f"{k}/2", "--output-dir", dirs[-1], "--shard-rows", "7")
            self.assertIn("weight_files", json.loads((pathlib.Path(dirs[-1]) / "manifest.json").read_text())["config"])
        single, merged = self.tmp / "single.npz", self.tmp / "merged.npz"
        self.ok(*args, "-o", str(single))
        self.ok("merge", "-o", str(merged), *dirs)
        self.same_bytes(merged, single)

    def test_output_dirs_merge_into_one_directory(self):
        """merge --output-dir: the shards' parts in order, renumbered, one manifest in the file's lines; it
        merges on into the single run's .npz and .npy."""
        src = self.corpus(corpus_lines())
        single = self.tmp / "single"
        self.ok("encode", "--input", str(src), *LAYER, *ALL, "--output-dir", str(single), "--shard-rows", "37")

        def lines(manifest):
            return [n for p in manifest["parts"] for r in p["lines"] for n in range(r["first_line"], r["last_line"] + 1)]
        for seek in (False, True):
            with self.subTest(seek=seek):
                dirs = []
                for k in range(1, 5):
                    d = self.tmp / f"parts-{seek}-{k}"
                    self.ok("encode", "--input", str(src), *LAYER, *ALL, "--shard", f"{k}/4", "--output-dir", str(d),
                            "--shard-rows", "37", *(("--shard-seek",) if seek else ()))
                    dirs.append(str(d))
                joined = self.tmp / f"joined-{seek}"
                self.ok("merge", "--output-dir", str(joined), *reversed(dirs))
                m = json.loads((joined / "manifest.json").read_text())
                s = json.loads((single / "manifest.json").read_text())
                self.assertTrue(m["complete"])
                self.assertEqual(m["reading"]["shard"], "1/1")
                self.assertNotIn("shard_seek", m["reading"])
                self.assertEqual(m["config"], s["config"])
                self.assertEqual(lines(m), lines(s))
                self.assertEqual(sum(p["rows"] for p in m["parts"]), sum(p["rows"] for p in s["parts"]))
                self.assertEqual([p["file"] for p in m["parts"]], [f"part-{i:05d}.npz" for i in range(len(m["parts"]))])
                for p in m["parts"]:
                    self.assertEqual(hashlib.sha256((joined / p["file"]).read_bytes()).hexdigest(), p["sha256"])
                for ext in ("npz", "npy"):
                    a, b = self.tmp / f"a.{ext}", self.tmp / f"b.{ext}"
                    self.ok("merge", "-o", str(a), str(joined))
                    self.ok("merge", "-o", str(b), str(single))
                    self.same_bytes(a, b)
                # into a directory that holds something, or that is a shard: refused, nothing changed
                before = sorted(p.name for p in joined.iterdir())
                r = self.run_embedpe("merge", "--output-dir", str(joined), *dirs)
                self.assertEqual(r.returncode, 2, r.stderr.decode())
                self.assertIn("is not empty", r.stderr.decode())
                self.assertEqual(sorted(p.name for p in joined.iterdir()), before)
                r = self.run_embedpe("merge", "--output-dir", dirs[0], *dirs)
                self.assertEqual(r.returncode, 2, r.stderr.decode())
                self.assertIn("itself", r.stderr.decode())
        # a corrupt part is refused before the directory is made
        part = pathlib.Path(dirs[2]) / "part-00000.npz"
        data = bytearray(part.read_bytes())
        data[-10] ^= 1
        part.write_bytes(bytes(data))
        self.fails("SHA-256", "merge", "--output-dir", str(self.tmp / "never"), *dirs, output=self.tmp / "never")
        # file shards, and both outputs
        files = self.shards(src, 2, "npz")
        r = self.run_embedpe("merge", "--output-dir", str(self.tmp / "never"), *files)
        self.assertEqual(r.returncode, 2, r.stderr.decode())
        self.assertIn("--output-dir takes --output-dir shards", r.stderr.decode())
        r = self.run_embedpe("merge", "--output-dir", str(self.tmp / "never"), "-o", "x.npz", *dirs)
        self.assertEqual(r.returncode, 2, r.stderr.decode())
        self.assertFalse((self.tmp / "never").exists())

    def test_damaged_directories_and_inputs_are_refused(self):
        """What a hostile pass found: FIFOs waited on, symlinked parts linked, edited manifests and records
        trusted, an input edited in the middle between shards, a merged directory resumed."""
        src = self.corpus(corpus_lines())
        flags = [*LAYER, "--emit", "input_ids,output", "--shard-seek"]

        def shard_dirs(prefix, rows="40"):
            dirs = []
            for k in range(1, 4):
                d = self.tmp / f"{prefix}-{k}"
                self.ok("encode", "--input", str(src), *flags, "--shard-rows", rows, "--shard", f"{k}/3", "--output-dir",
                        str(d))
                dirs.append(d)
            return dirs
        dirs = shard_dirs("p")
        out = self.tmp / "m.npz"

        def refused(message, *args, status=1):
            r = subprocess.run([EMBEDPE, *args], stdin=subprocess.DEVNULL, capture_output=True, cwd=self.tmp, timeout=60)
            err = r.stderr.decode()
            self.assertEqual(r.returncode, status, err)
            self.assertEqual(err.count("\n"), 1, err)
            self.assertIn(message, err)
            self.assertFalse(out.exists())
            self.assertFalse((self.tmp / "joined").exists())
            return err

        def damaged(change):
            d = self.tmp / "damaged"
            if d.exists():
                shutil.rmtree(d)
            shutil.copytree(dirs[1], d)
            change(d)
            return [str(dirs[0]), str(d), str(dirs[2])]
        # a FIFO where a part or the manifest is: refused at once, never opened for reading
        for name in ("part-00001.npz", "manifest.json"):
            shards = damaged(lambda d: ((d / name).unlink(), os.mkfifo(d / name)))
            refused("not a regular file", "merge", "-o", str(out), *shards)
            refused("not a regular file", "merge", "--output-dir", str(self.tmp / "joined"), *shards)
        # a part that is a symlink (to an intact copy) is not followed
        shards = damaged(lambda d: ((d / "part-00001.npz").rename(d / "real.npz"), (d / "part-00001.npz").symlink_to("real.npz")))
        refused("symbolic link", "merge", "--output-dir", str(self.tmp / "joined"), *shards)

        def edit(d, f):
            m = json.loads((d / "manifest.json").read_text())
            f(m)
            (d / "manifest.json").write_text(json.dumps(m))
        # a part dropped from the manifest, a part's rows edited
        shards = damaged(lambda d: edit(d, lambda m: m["parts"].pop()))
        refused("a part missing", "merge", "-o", str(out), *shards)
        shards = damaged(lambda d: edit(d, lambda m: m["parts"][0].update(rows=m["parts"][0]["rows"] - 1)))
        refused("rows but", "merge", "-o", str(out), *shards)
        # an edited line count in a JSON Lines record
        files = self.shards(src, 3, "jsonl", seek=True)
        rec = pathlib.Path(files[2] + ".shard.json")
        r = json.loads(rec.read_text())
        r["input"]["lines"] += 1
        rec.write_text(json.dumps(r))
        refused("lines its record says it read", "merge", "-o", str(self.tmp / "m.jsonl"), *files)
        self.assertFalse((self.tmp / "m.jsonl").exists())
        # a record or a manifest that gives a key twice (the same value, so that the last one is what embedpe
        # wrote) is not JSON embedpe wrote: read through the one JSON reader, never the last key taken on trust
        r["input"]["lines"] -= 1
        rec.write_text(json.dumps(r).replace("{", '{"shard": ' + json.dumps(r["shard"]) + ", ", 1))
        refused("is not valid JSON", "merge", "-o", str(self.tmp / "m.jsonl"), *files)
        self.assertFalse((self.tmp / "m.jsonl").exists())

        def key_twice(d):
            text = (d / "manifest.json").read_text()
            first = next(iter(json.loads(text)))
            (d / "manifest.json").write_text(
                text.replace("{", "{" + json.dumps(first) + ": " + json.dumps(json.loads(text)[first]) + ", ", 1))
        refused("not JSON", "merge", "-o", str(out), *damaged(key_twice))
        # an input edited in the middle (same size, ends untouched) between the shards' runs: the fingerprint
        # cannot see it, merge --input can
        big = self.corpus(corpus_lines() * 12, name="big.txt")
        first, second = self.tmp / "b1.npz", self.tmp / "b2.npz"
        self.ok("encode", "--input", str(big), *LAYER, "--shard", "2/2", "--shard-seek", "-o", str(second))
        data = big.read_bytes()
        middle = data.index(b"boy", len(data) * 3 // 4 - 20000)  # in shard 2, outside the first and last 64 KiB
        self.assertTrue(len(data) // 2 < middle < len(data) - 65536 - 3)
        big.write_bytes(data[:middle] + b"BOY" + data[middle + 3:])
        self.ok("encode", "--input", str(big), *LAYER, "--shard", "1/2", "--shard-seek", "-o", str(first))
        self.ok("merge", "-o", str(self.tmp / "unchecked.npz"), str(first), str(second))  # the records alone agree
        err = refused("read other bytes than", "merge", "--input", str(big), "-o", str(out), str(first), str(second))
        self.assertIn("b2.npz", err)
        # merge --input on an intact run: the merged directory records the whole input's SHA-256
        joined = self.tmp / "joined"
        self.ok("merge", "--input", str(src), "--output-dir", str(joined), *map(str, dirs))
        m = json.loads((joined / "manifest.json").read_text())
        self.assertEqual(m["inputs"][0]["sha256"], hashlib.sha256(src.read_bytes()).hexdigest())
        self.assertEqual(m["merged_shards"], 3)
        # a merged directory is not resumed: its parts end where the shards did
        r = self.run_embedpe("encode", "--input", str(src), *LAYER, "--emit", "input_ids,output", "--shard-rows", "40",
                             "--output-dir", str(joined), "--resume")
        self.assertEqual(r.returncode, 2, r.stderr.decode())
        self.assertIn("was joined by embedpe merge from 3 shards", r.stderr.decode())
        shutil.rmtree(joined)
        # shards cut into parts of different sizes do not make one directory (they do make one .npz)
        other = shard_dirs("q", rows="7")
        refused("a merged directory has one shard_rows", "merge", "--output-dir", str(joined), str(dirs[0]), str(other[1]),
                str(dirs[2]))
        self.assertEqual([p.name for p in self.tmp.iterdir() if p.name.startswith(".joined")], [])
        # an output_dir that is a symbolic link, even a dangling one
        (self.tmp / "link").symlink_to(self.tmp / "nowhere")
        refused("is a symbolic link", "merge", "--output-dir", str(self.tmp / "link"), *map(str, dirs), status=2)
        # an input with no text: as a single run, merge refuses rather than write nothing
        empty = self.corpus(["", " "], name="blank.txt")
        blank = []
        for k in (1, 2):
            b = self.tmp / f"blank-{k}.npy"
            self.ok("encode", "--input", str(empty), *LAYER, "--emit", "output", "--skip-empty", "--shard", f"{k}/2",
                    "-o", str(b))
            blank.append(str(b))
        refused("no shard holds a row", "merge", "-o", str(self.tmp / "blank.npy"), *blank)
        self.assertFalse((self.tmp / "blank.npy").exists())

    def test_second_hostile_pass(self):
        """--skip-empty directories merge; shard 1's line count is checked too, and against --input; --precision
        must agree; non-UTF-8 names; one model at two paths; a stale record beside the output; another file
        system (copies, not links)."""
        src = self.corpus(["a", "", "b", "  ", "", "c", "d", "", "e"] * 30)
        args = [*LAYER, "--emit", "input_ids,output", "--skip-empty", "--shard-rows", "7"]
        single_npz, single_dir = self.tmp / "single.npz", self.tmp / "single-dir"
        self.ok("encode", "--input", str(src), *args, "-o", str(single_npz))
        self.ok("encode", "--input", str(src), *args, "--output-dir", str(single_dir))

        def numbers(d):
            m = json.loads((d / "manifest.json").read_text())
            return sum(p["rows"] for p in m["parts"]), m["parts"][0]["lines"][0]["first_line"], m["parts"][-1]["lines"][-1]["last_line"]
        for seek in (False, True):
            with self.subTest(seek=seek):
                dirs = []
                for k in range(1, 4):
                    d = self.tmp / f"skip-{seek}-{k}"
                    self.ok("encode", "--input", str(src), *args, "--shard", f"{k}/3", "--output-dir", str(d),
                            *(("--shard-seek",) if seek else ()))
                    dirs.append(str(d))
                merged = self.tmp / f"skip-{seek}.npz"
                self.ok("merge", "--input", str(src), "-o", str(merged), *dirs)
                self.same_bytes(merged, single_npz)
                joined = self.tmp / f"skip-{seek}-joined"
                self.ok("merge", "--input", str(src), "--output-dir", str(joined), *dirs)
                self.assertEqual(numbers(joined), numbers(single_dir))
        # shard 1's record: its line count is used (the offset of the shards after it) and checked
        files = self.shards(self.corpus(corpus_lines(), name="plain.txt"), 2, "jsonl", seek=True)
        rec = pathlib.Path(files[0] + ".shard.json")
        r = json.loads(rec.read_text())
        r["input"]["lines"] += 1
        rec.write_text(json.dumps(r))
        out = self.tmp / "m.jsonl"
        self.fails("lines its record says it read", "merge", "-o", str(out), *files, output=out)
        self.fails("(corrupt record?)", "merge", "--input", str(self.tmp / "plain.txt"), "-o", str(out), *files, output=out)
        # --precision differs: not one run's JSON Lines
        a, b = self.tmp / "p1.jsonl", self.tmp / "p2.jsonl"
        self.ok("encode", "--input", str(src), *LAYER, "--precision", "3", "--shard", "1/2", "-o", str(a))
        self.ok("encode", "--input", str(src), *LAYER, "--shard", "2/2", "-o", str(b))
        err = self.fails("config differs", "merge", "-o", str(out), str(a), str(b), output=out)
        self.assertIn("precision", err)
        # names that are not UTF-8
        odd = self.tmp / "in\udcff.txt"
        shutil.copy(src, odd)
        pieces = []
        for k in (1, 2):
            piece = self.tmp / f"o\udcfe{k}.npz"
            self.ok("encode", "--input", str(odd), *args, "--shard", f"{k}/2", "-o", str(piece))
            self.assertEqual(record_of(piece)["input"]["path"], str(odd).encode("utf-8", "surrogateescape").decode(
                "utf-8", "replace"))
            pieces.append(str(piece))
        self.ok("merge", "-o", str(self.tmp / "odd.npz"), *pieces)
        self.same_bytes(self.tmp / "odd.npz", single_npz)
        # the same model file at two paths (hosts differ): one run
        model = next(HERE.glob("models/*.model"))
        other = self.tmp / "elsewhere.model"
        shutil.copy(model, other)
        m1, m2 = self.tmp / "m1.npy", self.tmp / "m2.npy"
        self.ok("encode", "--input", str(src), *LAYER, "--model", str(model), "--shard", "1/2", "-o", str(m1))
        self.ok("encode", "--input", str(src), *LAYER, "--model", str(other), "--shard", "2/2", "-o", str(m2))
        self.ok("merge", "-o", str(self.tmp / "mm.npy"), str(m1), str(m2))
        # merge -o over a file that had a record: the stale record goes
        target = self.tmp / "target.npy"
        shutil.copy(m1, target)
        shutil.copy(str(m1) + ".shard.json", str(target) + ".shard.json")
        self.ok("merge", "-o", str(target), str(m1), str(m2))
        self.assertFalse(pathlib.Path(str(target) + ".shard.json").exists())
        # into another file system: copies (no hard links), byte for byte
        if os.geteuid() == 0:
            mnt = self.tmp / "mnt"
            mnt.mkdir()
            subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(mnt)], check=True)
            try:
                dirs = [str(self.tmp / f"skip-True-{k}") for k in range(1, 4)]
                self.ok("merge", "--output-dir", str(mnt / "joined"), *dirs)
                self.assertEqual(os.stat(mnt / "joined" / "part-00000.npz").st_nlink, 1)
                self.ok("merge", "-o", str(self.tmp / "copied.npz"), str(mnt / "joined"))
                self.same_bytes(self.tmp / "copied.npz", single_npz)
            finally:
                subprocess.run(["umount", str(mnt)], check=True)

    def test_resume_removes_what_a_killed_run_left(self):
        """A run killed by SIGKILL leaves its temporaries (.part-NNNNN.npz.embedpe-XXXXXX); the run that resumes
        the directory, holding its lock, removes them."""
        src = self.corpus(corpus_lines())
        d = self.tmp / "parts"
        args = ["encode", "--input", str(src), *LAYER, "--shard-rows", "100", "--output-dir", str(d)]
        self.ok(*args)
        stale = [d / ".part-00001.npz.embedpe-Ab12Cd", d / ".manifest.json.embedpe-xYz789"]
        keep = d / ".notes.embedpe-123456"  # not a name embedpe writes: left alone
        for f in (*stale, keep):
            f.write_bytes(b"x" * 1000)
        self.ok(*args, "--resume")
        for f in stale:
            self.assertFalse(f.exists(), f)
        self.assertTrue(keep.exists())

    def test_output_dirs_merge_to_the_single_run(self):
        src = self.corpus(corpus_lines())
        single = self.tmp / "single.npz"
        self.ok("encode", "--input", str(src), *LAYER, *ALL, "-o", str(single))
        single_npy = self.tmp / "single.npy"
        self.ok("encode", "--input", str(src), *LAYER, "-o", str(single_npy))
        dirs = []
        for k in range(1, 4):
            d = self.tmp / f"parts-{k}"
            self.ok("encode", "--input", str(src), *LAYER, *ALL, "--shard", f"{k}/3", "--output-dir", str(d),
                    "--shard-rows", "37")
            manifest = json.loads((d / "manifest.json").read_text())
            self.assertEqual(manifest["reading"]["shard"], f"{k}/3")
            self.assertEqual(len(manifest["inputs"][0]["range"]), 2)
            dirs.append(str(d))
        self.ok("merge", "-o", str(self.tmp / "m.npz"), *dirs)
        self.same_bytes(self.tmp / "m.npz", single)
        self.ok("merge", "-o", str(self.tmp / "m.npy"), *dirs)
        self.same_bytes(self.tmp / "m.npy", single_npy)

    def test_empty_shards_are_valid_and_merge(self):
        src = self.corpus(["one", "two", "three"])
        for ext in ("npy", "npz", "jsonl", "safetensors"):
            with self.subTest(ext=ext):
                single = self.tmp / f"single.{ext}"
                self.ok("encode", "--input", str(src), *LAYER, *(() if ext == "npy" else ALL), "-o", str(single))
                shards = self.shards(src, 8, ext)  # more shards than lines: some hold none
                rows = [record_of(s)["input"]["lines"] for s in shards]
                self.assertIn(0, rows)
                self.assertEqual(sum(rows), 3)
                self.ok("merge", "-o", str(self.tmp / f"m.{ext}"), *shards)
                self.same_bytes(self.tmp / f"m.{ext}", single)
        dirs = []
        for k in range(1, 9):
            d = self.tmp / f"parts-{k}"
            self.ok("encode", "--input", str(src), *LAYER, *ALL, "--shard", f"{k}/8", "--output-dir", str(d))
            dirs.append(str(d))
        self.ok("merge", "-o", str(self.tmp / "d.npz"), *dirs)
        self.same_bytes(self.tmp / "d.npz", self.tmp / "single.npz")

    def test_bad_shards_are_refused_naming_them(self):
        src = self.corpus(corpus_lines())
        shards = self.shards(src, 4, "npy", ("--emit", "output"))
        out = self.tmp / "m.npy"
        err = self.fails("shard 3/4 is missing", "merge", "-o", str(out), shards[0], shards[1], shards[3], output=out)
        err = self.fails("it is given twice; give each shard once", "merge", "-o", str(out), *shards, shards[1],
                         output=out)
        self.assertIn(shards[1], err)
        # foreign: another seed
        foreign = self.tmp / "foreign.npy"
        self.ok("encode", "--input", str(src), *LAYER, "--emit", "output", "--seed", "7", "--shard", "2/4", "-o", str(foreign))
        err = self.fails("config differs", "merge", "-o", str(out), shards[0], str(foreign), shards[2], shards[3],
                         output=out)
        self.assertIn(str(foreign), err)
        self.assertIn("seed", err)
        # foreign: another input of the same size
        other = self.tmp / "other.txt"
        other.write_bytes(src.read_bytes().replace(b"boy", b"man"))
        self.ok("encode", "--input", str(other), *LAYER, "--emit", "output", "--shard", "2/4", "-o", str(foreign))
        self.fails("not the same input", "merge", "-o", str(out), shards[0], str(foreign), shards[2], shards[3],
                   output=out)
        # another N
        self.ok("encode", "--input", str(src), *LAYER, "--emit", "output", "--shard", "2/5", "-o", str(foreign))
        self.fails("one of 5 shards", "merge", "-o", str(out), shards[0], str(foreign), shards[2], shards[3], output=out)
        # corrupt: one byte flipped
        data = bytearray(pathlib.Path(shards[2]).read_bytes())
        data[-5] ^= 0x40
        pathlib.Path(shards[2]).write_bytes(bytes(data))
        err = self.fails("CRC-32", "merge", "-o", str(out), *shards, output=out)
        self.assertIn(shards[2], err)
        # truncated
        pathlib.Path(shards[2]).write_bytes(bytes(data[:-100]))
        self.fails("truncated", "merge", "-o", str(out), *shards, output=out)
        # no record
        os.unlink(shards[2] + ".shard.json")
        err = self.fails("is missing", "merge", "-o", str(out), *shards, output=out)
        self.assertIn(shards[2], err)

    def test_damaged_safetensors_shards_are_refused(self):
        """A .safetensors shard carries its record in its metadata, with the CRC-32 of its tensors' bytes:
        a flipped byte, a record removed or a shard of another kind is refused, and nothing is written."""
        src = self.corpus(corpus_lines())
        shards = self.shards(src, 3, "safetensors")
        self.assertRegex(safetensors_header(shards[0])["__metadata__"]["shard_crc32"], "^[0-9a-f]{8}$")
        out = self.tmp / "m.safetensors"
        good = pathlib.Path(shards[1]).read_bytes()
        data = bytearray(good)
        data[-5] ^= 0x40
        pathlib.Path(shards[1]).write_bytes(bytes(data))
        err = self.fails("CRC-32", "merge", "-o", str(out), *shards, output=out)
        self.assertIn(shards[1], err)
        # a file that is not a .safetensors: no record in it
        pathlib.Path(shards[1]).write_bytes(b"\x10" + bytes(20))
        self.fails("record", "merge", "-o", str(out), *shards, output=out)
        pathlib.Path(shards[1]).write_bytes(good)
        # shards of two kinds
        other = self.shards(src, 3, "npz")
        self.fails("merge shards of one kind", "merge", "-o", str(out), shards[0], other[1], shards[2], output=out)
        self.ok("merge", "-o", str(out), *shards)
        merged = safetensors_header(out)
        self.assertNotIn("shard", merged["__metadata__"])
        self.assertNotIn("shard_crc32", merged["__metadata__"])
        self.assertEqual(json.loads(merged["__metadata__"]["config"])["sequences"], len(corpus_lines()))

    def test_weights_changed_between_pieces_are_refused(self):
        """The config names --weights by path; the record and the manifest also hold its SHA-256, so a file
        rewritten with other values between two shards, or before a --resume, is refused."""
        import numpy as np
        src = self.corpus(corpus_lines())
        table = self.tmp / "table.npy"
        rows = np.arange(8000 * 16, dtype=np.float32).reshape(8000, 16) / 1e5
        np.save(table, rows)
        first = self.tmp / "s1.npy"
        self.ok("encode", "--input", str(src), "--seq-len", "24", "--weights", str(table), "--shard", "1/2", "-o",
                str(first))
        d = self.tmp / "parts"
        self.ok("encode", "--input", str(src), "--seq-len", "24", "--weights", str(table), "--output-dir", str(d),
                "--shard-rows", "40")
        np.save(table, rows * 2)  # same path, same size, other values
        second = self.tmp / "s2.npy"
        self.ok("encode", "--input", str(src), "--seq-len", "24", "--weights", str(table), "--shard", "2/2", "-o",
                str(second))
        out = self.tmp / "m.npy"
        err = self.fails("config differs", "merge", "-o", str(out), str(first), str(second), output=out)
        self.assertIn(f"weight_files.{table}", err)
        os.unlink(d / "part-00001.npz")
        r = self.run_embedpe("encode", "--input", str(src), "--seq-len", "24", "--weights", str(table),
                             "--output-dir", str(d), "--shard-rows", "40", "--resume")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(f"config weight_files.{table}", r.stderr.decode())
        self.assertFalse((d / "part-00001.npz").exists())

    def test_incomplete_output_dir_is_refused(self):
        src = self.corpus(corpus_lines())
        d = self.tmp / "parts-1"
        self.ok("encode", "--input", str(src), *LAYER, "--shard", "1/2", "--output-dir", str(d))
        m = json.loads((d / "manifest.json").read_text())
        m["complete"] = False
        (d / "manifest.json").write_text(json.dumps(m))
        d2 = self.tmp / "parts-2"
        self.ok("encode", "--input", str(src), *LAYER, "--shard", "2/2", "--output-dir", str(d2))
        out = self.tmp / "m.npz"
        err = self.fails("not complete", "merge", "-o", str(out), str(d), str(d2), output=out)
        self.assertIn(str(d), err)

    def test_usage_mistakes(self):
        (self.tmp / "a.json").write_text("{}")
        for args, status, message in (
                (["merge"], 2, "SHARD is required"),
                (["merge", "a.npy"], 2, "merge writes a file: give --output"),
                (["merge", "-o", "x.txt", "a.npy"], 2, "x.txt is none of them"),
                # the formats merge writes are those whose sink joins shards: not one JSON document
                (["merge", "-o", "x.json", "a.npy"], 2, "merge writes .jsonl, .npy, .npz or .safetensors; x.json"),
                (["merge", "-o", "x.npy", "a.json"], 1, "merge joins .jsonl, .npy, .npz, .safetensors shards"),
                (["merge", "-o", "x.npy", "nope.npy"], 1, "shard nope.npy does not exist"),
                (["merge", "-o", "x.jsonl", "."], 1, "manifest.json is missing")):
            with self.subTest(args=args):
                r = self.run_embedpe(*args)
                err = r.stderr.decode()
                self.assertEqual(r.returncode, status, err)
                self.assertEqual(err.count("\n"), 1, err)
                self.assertIn(message, err)
        src = self.corpus(corpus_lines())
        shards = self.shards(src, 2, "jsonl")
        r = self.run_embedpe("merge", "-o", str(self.tmp / "m.npy"), *shards)
        self.assertEqual(r.returncode, 2, r.stderr.decode())
        self.assertIn("jsonl shards join into .jsonl", r.stderr.decode())
        self.assertFalse((self.tmp / "m.npy").exists())
        # the output may not be one of the shards
        r = self.run_embedpe("merge", "-o", shards[0], *shards)
        self.assertEqual(r.returncode, 2, r.stderr.decode())
        self.assertIn("own file", r.stderr.decode())

    def test_unpadded_shards_are_refused(self):
        # one batch each, padded to its own longest line: shard 2's are longer
        src = self.corpus(["a"] * 100 + ["a much longer line " * 5] * 2)
        shards = []
        for k in (1, 2):
            p = self.tmp / f"s{k}.npy"
            self.ok("encode", "--input", str(src), "--d-model", "8", "--shard", f"{k}/2", "-o", str(p))
            shards.append(str(p))
        out = self.tmp / "m.npy"
        self.fails("seq_len", "merge", "-o", str(out), *shards, output=out)


class RecipeTests(ScaleCase):
    def test_local_parallel_recipe(self):
        work = self.tmp / "work"
        work.mkdir()
        self.corpus(corpus_lines(), where=work)
        self.shell(recipe("local"), work, timeout=300)
        single = self.ok("encode", "--input", "corpus.txt", "--format", "jsonl", cwd=work).stdout
        self.assertEqual((work / "all.jsonl").read_bytes(), single)


class Daemon:
    """A process started by a test, stopped by its PID."""

    def __init__(self, args, log, env=None):
        self.log = open(log, "wb")
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT,
                                     env=env, start_new_session=True)

    def stop(self):
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        self.log.close()


def wait_for(what, check, timeout, daemons=()):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        for d in daemons:
            if d.proc.poll() is not None:
                raise AssertionError(f"{what}: {d.proc.args[0]} exited with {d.proc.returncode}: "
                                     f"{pathlib.Path(d.log.name).read_text()[-2000:]}")
        time.sleep(0.2)
    raise AssertionError(f"{what}: not within {timeout} s")


class SlurmTests(ScaleCase):
    def start_cluster(self, root):
        tools = {}
        for tool in ("munged", "slurmctld", "slurmd", "sbatch", "sinfo", "scancel", "squeue"):
            tools[tool] = shutil.which(tool, path=self.env["PATH"])
            self.assertIsNotNone(tools[tool], f"{tool} is missing: run tools/install_deps.sh (slurm-wlm, munge)")
        self.assertEqual(os.geteuid(), 0, "the Slurm test starts slurmd, which needs root")
        keys = root / "munge-key"
        keys.mkdir(mode=0o700)
        (keys / "munge.key").write_bytes(os.urandom(1024))
        os.chmod(keys / "munge.key", 0o600)
        run_dir = root / "munge"
        run_dir.mkdir(mode=0o755)
        socket_path = run_dir / "munge.socket"
        for sub in ("state", "spool"):
            (root / sub).mkdir()
        host = socket.gethostname()
        cpus = os.cpu_count() or 1
        conf = root / "slurm.conf"
        conf.write_text(f"""ClusterName=embedpetest
SlurmctldHost={host}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/munge
AuthInfo=socket={socket_path}
CredType=cred/munge
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd.pid
SlurmctldLogFile={root}/slurmctld.log
SlurmdLogFile={root}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
KillWait=2
MinJobAge=5
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=test Nodes={host} Default=YES MaxTime=INFINITE State=UP
""")
        self.env["SLURM_CONF"] = str(conf)
        daemons = []
        daemons.append(Daemon([tools["munged"], "--foreground", "--force", f"--key-file={keys}/munge.key",
                               f"--socket={socket_path}", f"--pid-file={run_dir}/munged.pid",
                               f"--log-file={run_dir}/munged.log", f"--seed-file={run_dir}/munged.seed"],
                              root / "munged.out"))
        self.daemons = daemons
        wait_for("munged", lambda: socket_path.exists(), 20, daemons)
        daemons.append(Daemon([tools["slurmctld"], "-D", "-f", str(conf)], root / "slurmctld.out", env=self.env))
        daemons.append(Daemon([tools["slurmd"], "-D", "-f", str(conf)], root / "slurmd.out", env=self.env))

        def idle():
            r = subprocess.run([tools["sinfo"], "-h", "-N", "-o", "%T"], capture_output=True, env=self.env, timeout=20)
            return r.returncode == 0 and r.stdout.decode().strip() == "idle"
        wait_for("the Slurm node becoming idle (sinfo)", idle, 60, daemons)

    def check_merged(self, work, single):
        """The recipe's two merges: corpus.npz is the single run's; the corpus directory holds every line of
        the file once, in order, in the file's numbering (the tasks --shard-seek), and merges into it too."""
        self.same_bytes(work / "corpus.npz", single)
        manifest = json.loads((work / "corpus" / "manifest.json").read_text())
        numbers = [n for p in manifest["parts"] for r in p["lines"] for n in range(r["first_line"], r["last_line"] + 1)]
        self.assertEqual(numbers, list(range(1, len(corpus_lines() * 6) + 1)))
        self.assertEqual(manifest["inputs"][0]["sha256"], hashlib.sha256((work / "corpus.txt").read_bytes()).hexdigest())
        again = self.tmp / "again.npz"
        self.ok("merge", "-o", str(again), str(work / "corpus"))
        self.same_bytes(again, single)

    def test_job_array_recipe_with_a_killed_task(self):
        root = self.tmp / "slurm"
        root.mkdir()
        work = self.tmp / "work"
        work.mkdir()
        self.corpus(corpus_lines() * 6, where=work)
        job = work / "job.sh"
        job.write_text(recipe("slurm job.sh"))
        self.daemons = []
        try:
            self.start_cluster(root)
            # Every task, then a check that it equals one run.
            flags = ["--d-model", "16", "--shard-rows", "64"]
            self.shell(f"N=4 timeout 120 sbatch --wait --array=1-4 job.sh {' '.join(flags)}", work, timeout=150)
            for k in range(1, 5):
                self.assertTrue(json.loads((work / f"parts-{k}" / "manifest.json").read_text())["complete"])
            self.shell(recipe("slurm merge"), work, timeout=120)
            single = self.tmp / "single.npz"
            self.ok("encode", "--input", "corpus.txt", "--seq-len", "128", *flags[:2], "-o", str(single), cwd=work)
            self.check_merged(work, single)

            # Again, with task 3 killed while it writes its parts (one row per part makes it slow enough
            # to catch), then run again with --resume by the recipe's own rerun command.
            for k in range(1, 5):
                shutil.rmtree(work / f"parts-{k}")
            os.unlink(work / "corpus.npz")
            shutil.rmtree(work / "corpus")
            flags = ["--d-model", "16", "--shard-rows", "1"]
            sub = subprocess.Popen(["bash", "-c", f"N=4 exec timeout 150 sbatch --wait --array=1-4 job.sh "
                                    f"{' '.join(flags)}"], cwd=work, env=self.env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
            try:
                journal = work / "parts-3" / "parts.journal"
                wait_for("task 3 writing parts", lambda: journal.exists() and journal.stat().st_size > 0, 90)
                queue = subprocess.run(["squeue", "-h", "-o", "%F"], env=self.env, timeout=20, capture_output=True,
                                       check=True).stdout.decode().split()
                self.assertTrue(queue and queue[0].isdigit(), queue)
                subprocess.run(["scancel", "--signal=KILL", f"{queue[0]}_3"], env=self.env, timeout=20, check=True)
                sub.wait(timeout=150)
            finally:
                if sub.poll() is None:
                    sub.kill()
                    sub.wait()
            # (sbatch --wait exits 0 here although a task was cancelled: the manifest is the evidence)
            manifest = json.loads((work / "parts-3" / "manifest.json").read_text())
            self.assertFalse(manifest["complete"], "task 3 finished before it was killed")
            out = self.tmp / "early.npz"
            err = self.fails("not complete", "merge", "-o", str(out), *[str(work / f"parts-{k}") for k in range(1, 5)],
                             output=out)
            self.assertIn("parts-3", err)
            self.shell(f"N=4 timeout 120 sbatch --wait --array=3 job.sh {' '.join(flags)}", work, timeout=150)
            self.shell(recipe("slurm merge"), work, timeout=120)
            self.check_merged(work, single)
        finally:
            for d in reversed(self.daemons):
                d.stop()


class SshTests(ScaleCase):
    def test_multi_host_parallel_recipe(self):
        for tool in ("/usr/sbin/sshd", "ssh", "ssh-keygen", "parallel", "rsync"):
            self.assertIsNotNone(shutil.which(tool, path=self.env["PATH"]), f"{tool} is missing: run tools/install_deps.sh "
                                                     "(openssh-server, parallel, rsync)")
        self.assertEqual(os.geteuid(), 0, "the ssh test logs in as root")
        root = self.tmp / "ssh"
        root.mkdir()
        for key in ("host_key", "user_key"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(root / key)], check=True,
                           timeout=30)
        shutil.copy(root / "user_key.pub", root / "authorized_keys")
        port = free_port()
        (root / "sshd_config").write_text(f"""Port {port}
ListenAddress 127.0.0.2
ListenAddress 127.0.0.3
HostKey {root}/host_key
PidFile {root}/sshd.pid
AuthorizedKeysFile {root}/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
LogLevel VERBOSE
SetEnv PATH={self.bin}:/usr/local/bin:/usr/bin:/bin
""")
        host_key = (root / "host_key.pub").read_text().split()[:2]
        (root / "known_hosts").write_text(f"[127.0.0.2]:{port},[127.0.0.3]:{port} {' '.join(host_key)}\n")
        (root / "ssh_config").write_text(f"""Host *
  Port {port}
  IdentityFile {root}/user_key
  IdentitiesOnly yes
  UserKnownHostsFile {root}/known_hosts
  StrictHostKeyChecking yes
  BatchMode yes
  ConnectTimeout 10
""")
        # sshd's privilege separation directory, which the package's service would create.
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
        work = self.tmp / "work"
        work.mkdir()
        self.corpus(corpus_lines(), where=work)
        sshd = Daemon(["/usr/sbin/sshd", "-D", "-e", "-f", str(root / "sshd_config")], root / "sshd.log")
        try:
            def answers():
                r = subprocess.run(["ssh", "-F", str(root / "ssh_config"), "root@127.0.0.3", "true"],
                                   capture_output=True, timeout=20)
                return r.returncode == 0
            wait_for("sshd answering on 127.0.0.3", answers, 30, [sshd])
            script = recipe("hosts").replace("host1,host2", "root@127.0.0.2,root@127.0.0.3")
            env = dict(self.env, PARALLEL_SSH=f"ssh -F {root}/ssh_config")
            self.shell(script, work, timeout=240, env=env)
        finally:
            sshd.stop()
        log = (root / "sshd.log").read_text()
        for address in ("127.0.0.2", "127.0.0.3"):
            self.assertIn(f" on {address} port {port}", log, f"no job ran on {address}")
        self.assertEqual(sorted(p.name for p in work.glob("shard-*.jsonl")), sorted(f"shard-{k}.jsonl" for k in range(1, 9)))
        single = self.ok("encode", "--input", "corpus.txt", "--format", "jsonl", cwd=work).stdout
        self.assertEqual((work / "all.jsonl").read_bytes(), single)


if __name__ == "__main__":
    unittest.main()
