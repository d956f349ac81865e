#!/usr/bin/env python3
"""Small units (issue 46, item 4): no function in lib/src or app/ over 120
lines, no file in lib/src over 800.

    check_sizes.py ROOT [ALLOW_LIST]   the tree at ROOT (lib/src and app/)
    check_sizes.py --self-test         shows the check catches each violation

A function is a definition that starts at column 0 (the project does not
indent inside namespaces): its header line through the line of the brace
that closes its body, found by counting braces outside strings, character
literals and comments. Functions defined inside a class body are measured
with the class, not alone (a heuristic, like any line count).

ALLOW_LIST names today's known offenders, one a line, with its size now:
    file PATH LINES
    function PATH NAME LINES
An entry passes while the offender is at most that size; it fails once it
grows, and once it is no longer needed (under the limit, or gone), so that
the list only ever shrinks. Exit 0 clean, 1 with every violation listed.
"""
import pathlib
import re
import sys
import tempfile

MAX_FUNCTION = 120
MAX_FILE = 800
SKIP = ("#", "//", "/*", "*", "namespace", "}", "using ", "struct ", "class ", "union ", "enum ", "template",
        "static_assert", "extern \"C\"", "typedef", "friend ", "TEST_CASE")


def code_only(text):
    """`text` with strings, character literals and comments blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            k = text.find("(", i + 2)
            delim = ")" + text[i + 2:k] + '"'
            j = text.find(delim, k)
            j = n if j < 0 else j + len(delim)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            # a digit separator (1'000) is not a literal
            if c == "'" and i > 0 and text[i - 1].isalnum() and (j >= n or text[j] != c):
                out.append(" ")
                i += 1
                continue
            out.append(" " * (min(j + 1, n) - i))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def function_name(header):
    """The name a definition's header gives its function: Class::name, or name."""
    head = header.split("(")[0] if "operator" not in header else header[:header.index("operator") + 12]
    m = re.findall(r"[~A-Za-z_][\w:~]*(?:operator\S*)?", head)
    return m[-1] if m else header.strip()[:40]


def functions(text):
    """(name, first line, lines) of each function defined at column 0."""
    code = code_only(text)
    lines = code.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    found, i = [], 0
    while i < len(lines):
        line = lines[i]
        if not line or line[0].isspace() or line.startswith(SKIP) or "(" not in line:
            i += 1
            continue
        before = line[:line.index("(")]
        if "=" in before and "operator" not in before:  # a variable's initializer
            i += 1
            continue
        # The body's opening brace, unless a ';' at depth 0 ends a declaration first.
        pos, depth, body = starts[i], 0, None
        while pos < len(code):
            c = code[pos]
            if c in "([":
                depth += 1
            elif c in ")]":
                depth -= 1
            elif c == ";" and depth == 0:
                break
            elif c == "{" and depth == 0:
                body = pos
                break
            pos += 1
        if body is None:
            i += 1
            continue
        level, pos = 0, body
        while pos < len(code):
            if code[pos] == "{":
                level += 1
            elif code[pos] == "}":
                level -= 1
                if level == 0:
                    break
            pos += 1
        last = code.count("\n", 0, pos)
        found.append((function_name(code[starts[i]:body]), i + 1, last - i + 1))
        i = last + 1
    return found


def measure(root):
    """{("file", path): lines, ("function", path, name): lines} of every offender under `root`."""
    root = pathlib.Path(root)
    over = {}
    for base, with_files in (("lib/src", True), ("app", False)):
        for path in sorted((root / base).rglob("*")):
            if path.suffix not in (".cpp", ".h") or not path.is_file():
                continue
            text = path.read_text(encoding="utf-8")
            rel = path.relative_to(root).as_posix()
            n = text.count("\n")
            if with_files and n > MAX_FILE:
                over[("file", rel)] = n
            for name, _, size in functions(text):
                if size > MAX_FUNCTION:
                    key = ("function", rel, name)
                    over[key] = max(size, over.get(key, 0))
    return over


def read_allow_list(path):
    allowed = {}
    if path is None:
        return allowed
    for number, line in enumerate(pathlib.Path(path).read_text(encoding="utf-8").splitlines(), 1):
        words = line.split("#")[0].split()
        if not words:
            continue
        if words[0] == "file" and len(words) == 3 or words[0] == "function" and len(words) == 4:
            allowed[tuple(words[:-1])] = int(words[-1])
        else:
            raise SystemExit(f"{path}:{number}: expected 'file PATH LINES' or 'function PATH NAME LINES'")
    return allowed


def check(root, allow_list):
    over, allowed = measure(root), read_allow_list(allow_list)
    problems = []
    for key, size in sorted(over.items()):
        what = " ".join(key[1:])
        limit = MAX_FILE if key[0] == "file" else MAX_FUNCTION
        if key not in allowed:
            problems.append(f"{key[0]} {what} is {size} lines, over {limit}")
        elif size > allowed[key]:
            problems.append(f"{key[0]} {what} grew to {size} lines (the allow-list has {allowed[key]})")
    for key, size in sorted(allowed.items()):
        if key not in over:
            problems.append(f"allow-list entry '{' '.join(key)} {size}' is no longer needed: remove it")
    return problems


def self_test():
    failures = []
    body = "int f(int x) {\n" + "  x += 1;\n" * 119 + "  return x;\n}\n"  # 122 lines
    small = "int g() {\n  return 1;  // }\n}\nconst char* s = \"{\";\n"
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        (root / "lib/src/core").mkdir(parents=True)
        (root / "app").mkdir()
        (root / "lib/src/core/ok.cpp").write_text(small)
        (root / "app/long.cpp").write_text(body)
        (root / "lib/src/core/big.h").write_text("// filler\n" * 801)
        allow = root / "allow.txt"

        def expect(allow_text, want, label):
            allow.write_text(allow_text)
            got = check(root, allow)
            if sorted(len([p for p in got if w in p]) > 0 for w in want) != [True] * len(want) or len(got) != len(want):
                failures.append(f"{label}: expected {want}, got {got}")

        expect("", ["function app/long.cpp f is 122 lines", "file lib/src/core/big.h is 801 lines"], "violations")
        expect("function app/long.cpp f 122\nfile lib/src/core/big.h 801\n", [], "allowed")
        expect("function app/long.cpp f 121\nfile lib/src/core/big.h 801\n", ["grew to 122"], "growth")
        expect("function app/long.cpp f 122\nfile lib/src/core/big.h 801\nfunction lib/src/core/ok.cpp g 130\n",
               ["'function lib/src/core/ok.cpp g 130' is no longer needed"], "stale entry")
        if [f[2] for f in functions(small)] != [3]:
            failures.append(f"braces in comments and strings: {functions(small)}")
    for f in failures:
        print("self-test:", f)
    print("self-test:", "FAILED" if failures else "the check catches long functions, long files, growth and stale entries")
    return 1 if failures else 0


def main(argv):
    if argv[1:2] == ["--self-test"]:
        return self_test()
    if len(argv) not in (2, 3):
        print(__doc__)
        return 2
    problems = check(argv[1], argv[2] if len(argv) == 3 else None)
    for p in problems:
        print(p)
    if not problems:
        print(f"no function over {MAX_FUNCTION} lines, no lib/src file over {MAX_FILE} (beyond the allow-list)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
