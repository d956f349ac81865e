"""The pipe to the one long-lived Node process (../core_server.mjs) that runs HF tokenizers 0.22.2's
Rust core (@anush008/tokenizers@0.6.0). Every computation of this package is a request to it."""
import atexit
import json
import os
import pathlib
import subprocess

SERVER = pathlib.Path(__file__).resolve().parent.parent / "core_server.mjs"


class CoreError(RuntimeError):
    """The Rust core (or the add-on) refused a request."""


class _Core:
    def __init__(self):
        self.proc = None
        self.next_id = 0

    def _start(self):
        node = os.environ.get("NODE", "node")
        self.proc = subprocess.Popen([node, str(SERVER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     encoding="utf-8", bufsize=1)
        atexit.register(self.close)

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
        self.proc = None

    def __call__(self, op, **kw):
        if self.proc is None:
            self._start()
        self.next_id += 1
        kw.update(id=self.next_id, op=op)
        # ensure_ascii keeps lone surrogates and U+2028 safe on the line protocol
        self.proc.stdin.write(json.dumps(kw, ensure_ascii=True) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise CoreError(f"the Node core process died (exit {self.proc.poll()}) on {op}")
        answer = json.loads(line)
        if answer.get("id") != self.next_id:
            raise CoreError(f"answer out of order: {line[:200]}")
        if "error" in answer:
            raise CoreError(f"{op}: {answer['error']}")
        return answer["ok"]


core = _Core()


def unsupported(what):
    raise NotImplementedError(f"tokenizers shim: {what} is not implemented (tools/tokenizers_shim/README.md)")
