"""Running out of address space under ulimit -v: a size checked up front
names the limit; an allocation that fails while reading names the file and
--max-line-bytes, and never ends the input early.

Every row here needs a real address-space limit (RLIMIT_AS), under which
AddressSanitizer, which reserves terabytes of shadow memory, cannot start: in
a sanitizer build (EMBEDPE_SANITIZED=1) they are skipped, and so this module's
CTest case reports SKIPPED. Rows elsewhere whose limit only guards against a
large allocation say `address_space_guard=True` and run in every build.
"""
from matrix import ABSENT, Case
from matrix.reading import AS_LIMIT, sparse_line, write

CASES = [
    Case("encode seq_len 6e7 npz counts ids, mask and PE rows",
         ["encode", "--text", "hi", "--seq-len", "60000000", "--max-len", "60000000", "--d-model", "1",
          "-o", "{tmp}/x.npz"], 2,
         "would need 1.6 GiB but the address-space limit (ulimit -v) is 1.0 GiB",
         files={"{tmp}/x.npz": ABSENT}, limits={"AS": 1 << 30}, timeout=60),
    Case("encode under ulimit -v names the limit",
         ["encode", "--text", "hi", "--seq-len", "1000000", "--max-len", "1000000", "--d-model", "256",
          "-o", "{tmp}/x.npy"], 2,
         "the address-space limit (ulimit -v) is 1.0 GiB", files={"{tmp}/x.npy": ABSENT}, limits={"AS": 1 << 30}),
    Case("ENOMEM reading a line (limit raised above ulimit -v) names the file and --max-line-bytes",
         ["encode", "--input", "{tmp}/corpus.txt", "--max-line-bytes", "1000000000", "-o", "{tmp}/out.npz"], 1,
         "corpus.txt: out of memory holding a line", files={"{tmp}/out.npz": ABSENT},
         setup=sparse_line, limits={"AS": AS_LIMIT}),
    Case("a 60 MB line under the limit but over ulimit -v blames the line, not --seq-len",
         ["encode", "--input", "{tmp}/corpus.txt", "--max-line-bytes", "100000000", "--seq-len", "16",
          "-o", "{tmp}/out.npz"], 1,
         "corpus.txt:1 (60000000 bytes); split long lines, or refuse them with a lower --max-line-bytes",
         files={"{tmp}/out.npz": ABSENT}, setup=write("corpus.txt", b"word " * 12000000 + b"\n"),
         limits={"AS": AS_LIMIT}),
    Case("ENOMEM on the first of several inputs does not skip to the next",
         ["encode", "--input", "{tmp}/corpus.txt", "--input", "{tmp}/good.txt", "--max-line-bytes", "1000000000",
          "--format", "jsonl", "-o", "{tmp}/out.jsonl"], 1, "corpus.txt: out of memory",
         files={"{tmp}/out.jsonl": ABSENT},
         setup=lambda tmp: (sparse_line(tmp), (tmp / "good.txt").write_text("fine\n")), limits={"AS": AS_LIMIT}),
]
