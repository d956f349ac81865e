"""docs/ARCHITECTURE.md is true of the tree (issue 46): it names every file of
lib/src, lib/include and app, and each line count it gives is the count now.

    check_docs.py ROOT
    check_docs.py --self-test

A file is named when the document holds its name as a word (`half.h`,
`src/core/half.h`); a name that two files share (pe/rope.cpp and
pe/kinds/rope.cpp) counts only with the folder that tells them apart
(`kinds/rope.cpp`, `pe/rope.cpp`). A line count is a sentence of the form
"N lines (`wc -l FILES...`" whose N must be what wc -l counts in those files
(globs from ROOT) now. Prints each problem and exits 1 if there is any;
--self-test runs the check on a small tree with an unnamed file and a stale
count, and exits 1 unless both are found (CTest "scripts: the docs check finds
a violation").
"""
import re
import sys
import tempfile
from pathlib import Path

DOC = "docs/ARCHITECTURE.md"
WORD = re.compile(r"[\w./<>-]+")
COUNT = re.compile(r"([\d,]+) lines \(`wc -l ([^`]+)`")


def files_to_name(root):
    out = [p for p in (root / "lib" / "src").rglob("*") if p.suffix in (".cpp", ".h")]
    out += [p for p in (root / "lib" / "include").rglob("*") if p.suffix in (".h", ".hpp")]
    out += [p for p in (root / "app").glob("*") if p.suffix in (".cpp", ".h")]
    return sorted(out)


def check(root):
    root = Path(root)
    text = (root / DOC).read_text(encoding="utf-8")
    words = {w.strip(".-") for w in WORD.findall(text)}
    problems = []
    files = files_to_name(root)
    shared = {}
    for f in files:
        shared[f.name] = shared.get(f.name, 0) + 1
    for f in files:
        parts = f.relative_to(root).parts
        # The shortest name that counts: the file's name, or with its folder when another file has that name.
        shortest = 1 if shared[f.name] == 1 else 2
        suffixes = ["/".join(parts[-k:]) for k in range(shortest, len(parts) + 1)]
        if not any(w == s or w.endswith("/" + s) for w in words for s in suffixes):
            problems.append(f"{DOC} does not name {f.relative_to(root)}"
                            + ("" if shortest == 1 else f" (as {suffixes[0]}: another file is called {f.name})"))
    for count, globs in COUNT.findall(text):
        paths = sorted({p for g in globs.split() for p in root.glob(g) if p.is_file()})
        actual = sum(len(p.read_bytes().splitlines()) for p in paths)
        claimed = int(count.replace(",", ""))
        if claimed != actual:
            problems.append(f"{DOC} says {count} lines (wc -l {globs}); they are {actual:,} now")
    return problems, len(files)


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for rel, body in (("lib/src/core/named.cpp", "a\n"), ("lib/src/core/unnamed.h", "a\n"),
                          ("lib/src/pe/rope.cpp", "a\n"), ("lib/src/pe/kinds/rope.cpp", "a\n"),
                          ("app/main.cpp", "a\nb\n")):
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(body)
        (root / "docs").mkdir()
        (root / DOC).write_text("`named.cpp`, `pe/rope.cpp` and `rope.cpp`; `app/main.cpp`.\n"
                                "app/ is 3 lines (`wc -l app/*.cpp`).\n")
        problems, _ = check(root)
        for p in problems:
            print(p)
        found = {"unnamed": any("lib/src/core/unnamed.h" in p for p in problems),
                 "shared name": any("lib/src/pe/kinds/rope.cpp" in p for p in problems),
                 "stale count": any("says 3 lines" in p and "2 now" in p for p in problems)}
        print(", ".join(f"{k} found: {v}" for k, v in found.items()))
        return 0 if all(found.values()) and len(problems) == 3 else 1


def main(argv):
    if argv[0] == "--self-test":
        return self_test()
    problems, files = check(argv[0])
    for p in problems:
        print(p)
    print(f"{files} files, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
