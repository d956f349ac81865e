"""Runs unittest names (a module, or module.Class) the way CTest should see
them: exit 0 when every test passed, 1 when one failed or none ran, and 77
(CTest's SKIP_RETURN_CODE, set on every Python case in tests/CMakeLists.txt)
when some were skipped and none failed, so that a skipped test is reported
as skipped and never as a pass.

    python3 run_unittest.py cli_test.EncodeTests
    MATRIX=numbers python3 run_unittest.py matrix_test

`python3 -m unittest` exits 0 whatever was skipped; this is the one place that
turns its result into a status.
"""
import sys
import unittest

SKIPPED = 77


def status(result):
    """The exit status for a finished unittest result."""
    if not result.wasSuccessful() or result.testsRun == 0:
        return 1
    # A skipped subTest counts in result.skipped as well.
    return SKIPPED if result.skipped else 0


def main(names):
    if not names:
        print("usage: run_unittest.py MODULE[.Class]...", file=sys.stderr)
        return 2
    suite = unittest.defaultTestLoader.loadTestsFromNames(names)
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stderr).run(suite)
    if result.testsRun == 0:
        print(f"no test ran in {' '.join(names)}", file=sys.stderr)
    code = status(result)
    if code == SKIPPED:
        print(f"{len(result.skipped)} skipped, none failed: reported to CTest as skipped ({SKIPPED})",
              file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
