"""Runs the bad-input and fault matrix in matrix/ against the real binary.

    EMBEDPE=build/app/embedpe python3 -m unittest -v matrix_test           # every row
    EMBEDPE=build/app/embedpe MATRIX=outputs python3 -m unittest matrix_test  # one module

One test per row, named after the module and the row. See matrix/__init__.py
for what a row says.
"""
import hashlib
import importlib
import os
import pathlib
import re
import resource
import subprocess
import tempfile
import unittest

from matrix import ABSENT, EMBEDPE, PRESENT, TESTS, UNCHANGED

TMP = os.environ.get("EMBEDPE_TEST_TMPDIR", tempfile.gettempdir())
SANITIZED = os.environ.get("EMBEDPE_SANITIZED") == "1"
MODULES = sorted(p.stem for p in (TESTS / "matrix").glob("*.py") if p.stem != "__init__")


def expand(value, tmp):
    return value.format(tmp=tmp, tests=TESTS, models=TESTS / "models") if isinstance(value, str) else value


def digest(path):
    p = pathlib.Path(path)
    if not p.exists() and not p.is_symlink():
        return None
    st = p.lstat()
    data = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else None
    return (st.st_mode, st.st_uid, st.st_gid, data)


def run_case(test, case):
    if case.root_only and os.geteuid() != 0:
        test.skipTest("needs root")
    with tempfile.TemporaryDirectory(dir=TMP) as d:
        tmp = pathlib.Path(d)
        if case.setup:
            case.setup(tmp)
        files = {expand(k, tmp): v for k, v in case.files.items()}
        before = {k: digest(k) for k, v in files.items() if v == UNCHANGED}

        limits = {k: v for k, v in case.limits.items()}
        env = dict(os.environ, **case.env)
        if SANITIZED and "AS" in limits:
            if not case.address_space_guard:
                test.skipTest("AddressSanitizer cannot run under an address-space limit (ulimit -v)")
            # The same bound on any one allocation, from ASan itself: an
            # allocation beyond it ends the run with ASan's report.
            bound = limits.pop("AS") >> 20
            env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), f"max_allocation_size_mb={bound}",
                                                         "allocator_may_return_null=0"]))

        def preexec():
            if case.umask is not None:
                os.umask(case.umask)
            for name, value in limits.items():
                resource.setrlimit(getattr(resource, "RLIMIT_" + name), (value, value))

        stdin_f = stdout_f = None
        try:
            kw = {}
            if case.stdin is not None:
                kw["input"] = case.stdin
            elif case.stdin_file:
                stdin_f = open(expand(case.stdin_file, tmp), "rb")
                kw["stdin"] = stdin_f
            else:
                kw["stdin"] = subprocess.DEVNULL
            stdout = subprocess.PIPE
            if case.stdout_file:
                stdout_f = open(expand(case.stdout_file, tmp), case.stdout_mode)
                stdout = stdout_f
            r = subprocess.run([EMBEDPE, *[expand(a, tmp) for a in case.args]], stdout=stdout,
                               stderr=subprocess.PIPE, env=env, timeout=case.timeout,
                               preexec_fn=preexec if limits or case.umask is not None else None, **kw)
        finally:
            for f in (stdin_f, stdout_f):
                if f:
                    f.close()
        err = r.stderr.decode(errors="replace")
        test.assertEqual(r.returncode, case.exit, f"stderr: {err!r}")
        if case.exit != 0:
            test.assertEqual(err.count("\n"), 1, f"expected one line on stderr, got {err!r}")
            test.assertRegex(err, r"^embedpe( [a-z]+)?: ")  # "embedpe COMMAND: " for command-line mistakes
            test.assertIn(expand(case.stderr, tmp), err)
            if r.stdout is not None:
                test.assertEqual(r.stdout, b"", "a failure wrote to standard output")
        elif case.stderr:
            test.assertIn(expand(case.stderr, tmp), err)
        for path, want in files.items():
            p = pathlib.Path(path)
            if want == ABSENT:
                test.assertFalse(p.exists() or p.is_symlink(), f"{path} was left behind")
            elif want == PRESENT:
                test.assertTrue(p.exists(), f"{path} is missing")
            elif want == UNCHANGED:
                test.assertEqual(digest(path), before[path], f"{path} changed")
            else:
                problem = want(p)
                test.assertIsNone(problem, f"{path}: {problem}")
        left = [str(p) for p in tmp.rglob("*") if ".embedpe-" in p.name]
        test.assertEqual(left, [], "temporaries left behind")
        if case.check:
            problem = case.check(r, tmp)
            test.assertIsNone(problem, problem)


def make_tests():
    wanted = os.environ.get("MATRIX")
    for module in MODULES:
        if wanted and module != wanted:
            continue
        cases = importlib.import_module("matrix." + module).CASES
        attrs = {}
        for case in cases:
            name = "test_" + re.sub(r"\W+", "_", case.name).strip("_").lower()
            assert name not in attrs, f"two rows named {case.name!r} in matrix/{module}.py"
            attrs[name] = (lambda c: lambda self: run_case(self, c))(case)
        cls = type(f"Matrix_{module}", (unittest.TestCase,), attrs)
        globals()[cls.__name__] = cls


make_tests()

if __name__ == "__main__":
    unittest.main()
