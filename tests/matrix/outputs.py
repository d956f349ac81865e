"""Where outputs go: never over an input, only regular files replaced, modes kept."""
import shutil

from matrix import ABSENT, UNCHANGED, Case, TESTS

TABLE = TESTS / "golden" / "weights" / "table_f32.npy"


def copy_table(tmp):
    shutil.copy(TABLE, tmp / "table.npy")


CASES = [
]
