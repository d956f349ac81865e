"""The bad-input and fault matrix: one row per case.

Each module in this package (outputs.py, reading.py, ...) holds a list
`CASES` of `Case` rows; matrix_test.py turns every row into a test that runs
the real binary and checks

  - the exit status,
  - for a failure: exactly one line on stderr, starting "embedpe: " and
    containing `stderr`, and nothing on standard output,
  - the files afterwards (`files`: path -> ABSENT, UNCHANGED, PRESENT, or a
    function of the path that returns an error message or None),
  - that no temporary (".embedpe-") is left anywhere under the test directory.

Strings in `args`, `files` and `stdin_file` may name "{tmp}" (a fresh
directory per case), "{tests}" (this tests/ directory) and "{models}".
`setup(tmp)` prepares input files; `limits` sets resource limits in the child
(e.g. {"AS": 256 << 20, "FSIZE": 4096}); `check(result, tmp)` may add
assertions and returns an error message or None. A row that cannot run here
(needs root, or ulimit -v in a sanitizer build) is reported as skipped.
"""
import dataclasses
import os
import pathlib
from typing import Callable, Optional

ABSENT = "absent"
UNCHANGED = "unchanged"
PRESENT = "present"

TESTS = pathlib.Path(__file__).resolve().parent.parent
EMBEDPE = os.environ.get("EMBEDPE", str(TESTS.parent / "build" / "app" / "embedpe"))  # the binary under test


@dataclasses.dataclass
class Case:
    name: str
    args: list
    exit: int
    stderr: str = ""                       # a failure's line contains this
    files: dict = dataclasses.field(default_factory=dict)
    setup: Optional[Callable] = None       # setup(tmp: pathlib.Path)
    stdin: Optional[bytes] = None
    stdin_file: Optional[str] = None       # stdin opened from this path
    stdout_file: Optional[str] = None      # stdout redirected to this path
    stdout_mode: str = "wb"                # ... opened so ("ab": appended, as >>)
    umask: Optional[int] = None            # the child's umask
    limits: dict = dataclasses.field(default_factory=dict)
    env: dict = dataclasses.field(default_factory=dict)
    check: Optional[Callable] = None       # check(result, tmp) -> error message or None
    timeout: float = 120
    root_only: bool = False                # needs root (chown, tmpfs)
    # limits["AS"] only guards against one large allocation: under
    # AddressSanitizer, which cannot run under ulimit -v, the row runs with
    # ASan's max_allocation_size_mb at the same bound instead of being skipped.
    address_space_guard: bool = False
