"""The pipe to the one long-lived Node process (../core_server.mjs) that runs HF tokenizers 0.22.2's
Rust core (@anush008/tokenizers@0.6.0). Every computation of this package is a request to it."""
import atexit
import json
import os
import pathlib
import subprocess
import sys

SERVER = pathlib.Path(__file__).resolve().parent.parent / "core_server.mjs"


class CoreError(RuntimeError):
    """The Rust core (or the add-on) refused a request."""


class _Core:
    def __init__(self):
        self.proc = None
        self.next_id = 0
        self.dead = None

    def _start(self):
        node = os.environ.get("NODE", "node")
        r, w = os.pipe()
        env = dict(os.environ, TOKENIZERS_SHIM_FD=str(w))
        # the core's own prints (stdout) go to our stderr; answers come on their own pipe
        self.proc = subprocess.Popen([node, str(SERVER)], stdin=subprocess.PIPE, stdout=sys.stderr.fileno(),
                                     pass_fds=(w,), env=env, encoding="utf-8")
        os.close(w)
        self.answers = os.fdopen(r, "r", encoding="utf-8", newline="\n")
        atexit.register(self.close)

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
        self.proc = None

    def _broken(self, why):
        self.dead = why
        raise CoreError(why)

    def __call__(self, op, **kw):
        if self.dead:
            raise CoreError(f"the Node core process is unusable: {self.dead}")
        if self.proc is None:
            self._start()
        self.next_id += 1
        kw.update(id=self.next_id, op=op)
        # ensure_ascii keeps lone surrogates and U+2028 safe on the line protocol
        self.proc.stdin.write(json.dumps(kw, ensure_ascii=True) + "\n")
        self.proc.stdin.flush()
        line = self.answers.readline()
        if not line:
            self._broken(f"the Node core process died (exit {self.proc.poll()}) on {op}")
        try:
            answer = json.loads(line)
        except ValueError:
            self._broken(f"not an answer: {line[:200]!r}")
        if answer.get("id") != self.next_id:
            self._broken(f"answer out of order: {line[:200]}")
        if "error" in answer:
            raise CoreError(f"{op}: {answer['error']}")
        return answer["ok"]


core = _Core()


def unsupported(what):
    raise NotImplementedError(f"tokenizers shim: {what} is not implemented (tools/tokenizers_shim/README.md)")
