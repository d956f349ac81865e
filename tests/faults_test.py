"""Faults while embedpe writes: signals, a weights file truncated under it,
a full disk, a FIFO as the output, two runs writing one file.

    EMBEDPE=build/app/embedpe EMBEDPE_TEST_TMPDIR=/tmp python3 -m unittest -v faults_test

Needs NumPy only; the disk-full test mounts a small tmpfs and so needs root
(the CI runs as root).
"""
import json
import os
import pathlib
import signal
import stat
import subprocess
import tempfile
import threading
import time
import unittest

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
EMBEDPE = os.environ.get("EMBEDPE", str(HERE.parent / "build" / "app" / "embedpe"))
TMP = os.environ.get("EMBEDPE_TEST_TMPDIR", tempfile.gettempdir())
MODEL = str(HERE / "models" / "sp-test.model")


def temporaries(directory):
    return [p for p in pathlib.Path(directory).rglob("*") if ".embedpe-" in p.name]


def corpus(path, lines=3000):
    path.write_text("\n".join(f"line {i} of a corpus that takes a while to encode and write" for i in range(lines))
                    + "\n")


class FaultCase(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory(dir=TMP)
        self.tmp = pathlib.Path(self.dir.name)

    def tearDown(self):
        self.dir.cleanup()

    def start(self, *args, **kw):
        return subprocess.Popen([EMBEDPE, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kw)

    def wait_for_temporary(self, p, directory):
        deadline = time.monotonic() + 60
        while not temporaries(directory):
            self.assertIsNone(p.poll(), "finished before the test could interrupt it")
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.002)


class SignalTests(FaultCase):
    def test_sighup_sigint_sigterm_mid_write_leave_nothing(self):
        src = self.tmp / "corpus.txt"
        corpus(src)
        outputs = {"json": ["--d-model", "256"], "npy": ["--seq-len", "32", "--d-model", "256", "--batch-size", "64"],
                   "jsonl": ["--d-model", "256", "--batch-size", "64"]}
        for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):
            for fmt, extra in outputs.items():
                with self.subTest(signal=sig.name, format=fmt):
                    out = self.tmp / f"out.{fmt}"
                    p = self.start("encode", "--model", MODEL, "--input", str(src), *extra, "-o", str(out))
                    self.wait_for_temporary(p, self.tmp)
                    p.send_signal(sig)
                    _, err = p.communicate(timeout=60)
                    self.assertEqual(p.returncode, -sig, err)
                    self.assertFalse(out.exists())
                    self.assertEqual(temporaries(self.tmp), [])

    def test_an_existing_output_survives_a_signal(self):
        src = self.tmp / "corpus.txt"
        corpus(src)
        out = self.tmp / "out.json"
        out.write_text("previous\n")
        p = self.start("encode", "--model", MODEL, "--input", str(src), "--d-model", "256", "-o", str(out))
        self.wait_for_temporary(p, self.tmp)
        p.send_signal(signal.SIGHUP)
        p.communicate(timeout=60)
        self.assertEqual(out.read_text(), "previous\n")
        self.assertEqual(temporaries(self.tmp), [])


class TruncatedWeightsTests(FaultCase):
    def test_weights_truncated_while_mapped(self):
        # A (1000, 2048) float32 table (8 MB) read row by row while a corpus
        # streams out; truncating it leaves the mapping's pages without a file.
        table = self.tmp / "table.npy"
        np.save(table, np.random.default_rng(0).standard_normal((1000, 2048)).astype(np.float32))
        src = self.tmp / "corpus.txt"
        src.write_text("".join(f"word{i} other{i * 7} thing {i % 13}\n" for i in range(20000)))
        out = self.tmp / "out.jsonl"
        p = self.start("encode", "--model", MODEL, "--weights", str(table), "--input", str(src), "--batch-size", "16",
                       "--threads", "1", "-o", str(out))
        self.wait_for_temporary(p, self.tmp)
        os.truncate(table, 128)
        _, err = p.communicate(timeout=120)
        err = err.decode()
        self.assertEqual(p.returncode, 1, err)
        self.assertEqual(err, f"embedpe: weights file {table} changed while being read (truncated or rewritten in "
                              "place); run again once it is complete\n")
        self.assertFalse(out.exists())
        self.assertEqual(temporaries(self.tmp), [])


class DiskFullTests(FaultCase):
    def test_a_full_filesystem(self):
        if os.geteuid() != 0:
            self.skipTest("mounting a tmpfs needs root")
        small = self.tmp / "small"
        small.mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(small)], check=True)
        try:
            (small / "keep.json").write_text("an earlier output\n")
            for fmt in ("json", "npy", "jsonl", "npz"):
                with self.subTest(format=fmt):
                    out = small / f"out.{fmt}"
                    r = subprocess.run([EMBEDPE, "encode", "--model", MODEL, "--d-model", "512", "--seq-len", "16",
                                        *[a for i in range(60) for a in ("--text", f"sentence {i}")], "-o", str(out)],
                                       capture_output=True, timeout=60)
                    err = r.stderr.decode()
                    self.assertEqual(r.returncode, 1, err)
                    self.assertEqual(err.count("\n"), 1, err)
                    self.assertIn("No space left on device", err)
                    self.assertFalse(out.exists())
                    self.assertEqual(temporaries(small), [])
            r = subprocess.run([EMBEDPE, "encode", "--model", MODEL, "--d-model", "512", "--seq-len", "16",
                                *[a for i in range(60) for a in ("--text", f"sentence {i}")],
                                "-o", str(small / "keep.json")], capture_output=True, timeout=60)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertEqual((small / "keep.json").read_text(), "an earlier output\n")
        finally:
            subprocess.run(["umount", str(small)], check=True)


class FifoTests(FaultCase):
    def read_fifo(self, path, into):
        with open(path, "rb") as f:
            into.append(f.read())

    def test_a_fifo_is_written_directly(self):
        fifo = self.tmp / "out.json"
        os.mkfifo(fifo)
        got = []
        reader = threading.Thread(target=self.read_fifo, args=(fifo, got))
        reader.start()
        r = subprocess.run([EMBEDPE, "encode", "--model", MODEL, "--d-model", "8", "--text", "hi", "-o", str(fifo)],
                           capture_output=True, timeout=60)
        reader.join(60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("input_ids", json.loads(got[0]))
        self.assertTrue(stat.S_ISFIFO(fifo.lstat().st_mode))
        self.assertEqual(temporaries(self.tmp), [])

    def test_a_streamed_npy_into_a_fifo_is_refused_before_opening_it(self):
        # Opening a FIFO for writing blocks until a reader comes: the refusal
        # must come first, or the run would hang with no reader.
        fifo = self.tmp / "out.npy"
        os.mkfifo(fifo)
        src = self.tmp / "corpus.txt"
        corpus(src, 10)
        r = subprocess.run([EMBEDPE, "encode", "--model", MODEL, "--d-model", "8", "--input", str(src), "--seq-len",
                            "16", "--batch-size", "2", "-o", str(fifo)], capture_output=True, timeout=60)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(b"give --output FILE", r.stderr)
        self.assertTrue(stat.S_ISFIFO(fifo.lstat().st_mode))


class ConcurrentWriterTests(FaultCase):
    def test_two_runs_into_one_file_leave_one_whole_output(self):
        out = self.tmp / "out.json"
        for attempt in range(8):
            runs = [self.start("encode", "--model", MODEL, "--d-model", "64", "--text", word * 50, "-o", str(out))
                    for word in ("alpha ", "beta ")]
            for p in runs:
                _, err = p.communicate(timeout=60)
                self.assertEqual(p.returncode, 0, err)
            doc = json.loads(out.read_text())
            self.assertEqual(len(doc["input_ids"]), 1)
            self.assertEqual(temporaries(self.tmp), [])


if __name__ == "__main__":
    unittest.main()
