"""The library's layers (lib/CMakeLists.txt, EMBEDPE_LAYERS): a file uses only
its own layer and the layers before it.

    check_layers.py LIB_DIR LAYER_TABLE OBJECTS_DIR LAYER...   (layers lowest first)
    check_layers.py --self-test CXX LAYER...
    check_layers.py --probe CXX INCLUDE_DIRS_FILE LOW_HEADER HIGH_HEADER

The build already refuses an include that goes up (each layer compiles with
only the headers of the layers up to it); this checks the same from the
sources, and the calls, which no include path can stop:
- includes, in both forms ("embedpe/x.h" and <embedpe/x.h>): a file's layer
  is its folder under lib/src/ (src/pe/kinds/t5.cpp is in pe); a public
  header's is the one LAYER_TABLE gives (lines "LAYER NAME.h", written by
  lib/CMakeLists.txt from its embedpe_LAYER_headers lists); no cycle of
  files that include each other, nor of units (a unit: a source and its
  headers, src/LAYER/x.cpp, src/LAYER/x.h and embedpe/x.h; src/pe/kinds/rope.cpp
  is the unit pe/kinds/rope), so that no unit's header needs another unit
  that needs it back; and at most kMaxBackUp arrows that run back up: from
  a file to one of a higher layer (the order above; what ARCHITECTURE's walk
  calls a climb, for includes), which the build already refuses, so the
  count is 0 while the layers hold;
- calls: every symbol an object of a layer leaves undefined (nm) and the
  library defines must be defined in that layer or one before it
  (OBJECTS_DIR/embedpe_LAYER_objects.dir/**.o).
Prints each problem and exits 1 if there is any. --self-test builds a small
tree with an include and a call that go up, compiles it with CXX, and exits
1 unless both are reported, and an include cycle and a cycle of units it
adds too (CTest "layers: the check finds a violation").
--probe compiles a file that includes LOW_HEADER, then one that includes
HIGH_HEADER, with a layer's include directories (one a line, as CMake lists
them for its object library): the first must compile and the second must
not find its header (CTest "layers: an upward include does not compile").
"""
import re
import subprocess
import sys
import tempfile
from pathlib import Path

# Written at configure time into a layer's include directory.
GENERATED = {"sink_formats.inc": "sinks", "build_info.inc": "core"}
# Issue 46: "at most 4 arrows run back up".
kMaxBackUp = 4
INCLUDE = re.compile(r'^\s*#\s*include\s+(?:"([^"]+)"|<(embedpe/[^>]+)>)', re.M)


def read_table(path):
    table = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            layer, header = line.split()
            table[header] = layer
    return table


def check_includes(lib, table, layers, problems):
    rank = {name: i for i, name in enumerate(layers)}
    src, public = lib / "src", lib / "include" / "embedpe"
    layer_of = {}  # path -> layer
    private = {}   # include name (flat, or relative to src/) -> path
    for path in sorted(src.rglob("*")):
        if path.suffix not in (".cpp", ".h"):
            continue
        rel = path.relative_to(src)
        if len(rel.parts) < 2 or rel.parts[0] not in rank:
            problems.append(f"{path}: not in a layer folder ({', '.join(layers)})")
            continue
        layer_of[path] = rel.parts[0]
        if path.suffix == ".h":
            for name in (path.name, str(rel)):
                if name in private and private[name] != path:
                    problems.append(f"{path}: header name {name} also used by {private[name]}")
                private[name] = path
    for path in sorted(public.glob("*.h")):
        if path.name not in table:
            problems.append(f"{path}: in no layer; add it to an embedpe_LAYER_headers list in lib/CMakeLists.txt")
            continue
        layer_of[path] = table[path.name]

    def included_layer(name):
        if name.startswith("embedpe/"):
            return layer_of.get(public / name[len("embedpe/"):])
        if name in GENERATED:
            return GENERATED[name]
        return layer_of.get(private[name]) if name in private else None

    def included_path(name):
        if name.startswith("embedpe/"):
            return public / name[len("embedpe/"):]
        return private.get(name)

    files, units = {}, {}  # file -> the files it includes; unit -> the units it includes
    back_up = 0  # arrows from a file to one of a higher layer
    for path, layer in layer_of.items():
        for quoted, angled in INCLUDE.findall(path.read_text(encoding="utf-8")):
            name = quoted or angled
            target = included_layer(name)
            if target is None:
                problems.append(f"{path}: includes {name}, which is in no layer")
            elif rank[target] > rank[layer]:
                problems.append(f"{path} ({layer}) includes {name} ({target}): up a layer")
                back_up += 1
            included = included_path(name)
            if included is not None:
                files.setdefault(str(path.relative_to(lib)), set()).add(str(included.relative_to(lib)))
                if unit_of(included, layer_of, src) != unit_of(path, layer_of, src):
                    units.setdefault(unit_of(path, layer_of, src), set()).add(unit_of(included, layer_of, src))
    for cycle in include_cycles(files):
        problems.append("include cycle: " + " -> ".join(cycle))
    # Units whose files include each other's headers: the shared declaration belongs in the unit that
    # owns it, or in a small header of its own.
    for cycle in include_cycles(units):
        problems.append("units that include each other: " + ", ".join(cycle))
    print(f"{back_up} includes run back up a layer (at most {kMaxBackUp})")
    if back_up > kMaxBackUp:
        problems.append(f"{back_up} includes run back up a layer, more than {kMaxBackUp}")
    return len(layer_of)


def unit_of(path, layer_of, src):
    """A file's unit: its layer and its path below the layer's folder without the extension
    (src/pe/kinds/rope.cpp: pe/kinds/rope); a public header's, its layer and stem."""
    layer = layer_of.get(path, '?')
    if path.is_relative_to(src):
        return f"{layer}/" + "/".join(path.relative_to(src).with_suffix("").parts[1:])
    return f"{layer}/{path.stem}"


def include_cycles(graph):
    """The units that include each other, directly or through others (Tarjan's strongly connected
    components of more than one unit), each as a list."""
    index, low, on_stack, stack, cycles = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def symbols(obj):
    """(defined, undefined) external symbols of an object file."""
    out = subprocess.run(["nm", "-P", "-g", str(obj)], check=True, capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        (undefined if parts[1] in ("U", "w", "v") else defined).add(parts[0])
    return defined, undefined


def check_calls(objects_dir, layers, problems):
    rank = {name: i for i, name in enumerate(layers)}
    first_defined = {}  # symbol -> lowest layer that defines it
    uses = []           # (object, layer, undefined symbols)
    count = 0
    for layer in layers:
        objs = sorted((objects_dir / f"embedpe_{layer}_objects.dir").rglob("*.o"))
        if not objs:
            problems.append(f"{objects_dir}: no objects of layer {layer} (is the library built?)")
        for obj in objs:
            count += 1
            defined, undefined = symbols(obj)
            for s in defined:
                if s not in first_defined or rank[layer] < rank[first_defined[s]]:
                    first_defined[s] = layer
            uses.append((obj, layer, undefined))
    for obj, layer, undefined in uses:
        for s in sorted(undefined):
            target = first_defined.get(s)
            if target is not None and rank[target] > rank[layer]:
                name = subprocess.run(["c++filt", s], capture_output=True, text=True).stdout.strip() or s
                problems.append(f"{obj.name} ({layer}) calls {name} ({target}): up a layer")
    return count


def self_test(cxx, layers):
    """A tree with one upward include and one upward call: both must be found."""
    low, high = layers[0], layers[-1]
    with tempfile.TemporaryDirectory() as tmp:
        lib = Path(tmp) / "lib"
        (lib / "include" / "embedpe").mkdir(parents=True)
        (lib / "src" / low).mkdir(parents=True)
        (lib / "src" / high).mkdir(parents=True)
        (lib / "include" / "embedpe" / "top.h").write_text("int top();\n")
        (lib / "src" / low / "bottom.cpp").write_text("#include <embedpe/top.h>\nint bottom() { return top(); }\n")
        (lib / "src" / high / "top.cpp").write_text('#include "embedpe/top.h"\nint top() { return 1; }\n')
        table = Path(tmp) / "layer_table.txt"
        table.write_text(f"{high} top.h\n")
        objects = Path(tmp) / "objects"
        for layer, name in ((low, "bottom"), (high, "top")):
            out = objects / f"embedpe_{layer}_objects.dir" / f"{name}.o"
            out.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run([cxx, "-c", "-I", str(lib / "include"), str(lib / "src" / layer / f"{name}.cpp"), "-o",
                            str(out)], check=True)
        problems = []
        check_includes(lib, read_table(table), [low, high], problems)
        check_calls(objects, [low, high], problems)
        for p in problems:
            print(p)
        found_include = any("includes embedpe/top.h" in p and "up a layer" in p for p in problems)
        found_call = any("calls top()" in p and "up a layer" in p for p in problems)
        # Two headers that include each other: a cycle.
        (lib / "src" / high / "ping.h").write_text('#pragma once\n#include "pong.h"\n')
        (lib / "src" / high / "pong.h").write_text('#pragma once\n#include "ping.h"\n')
        cycle = []
        check_includes(lib, read_table(table), [low, high], cycle)
        found_cycle = any(p.startswith("include cycle:") and "ping.h" in p and "pong.h" in p for p in cycle)
        for p in cycle:
            print(p)
        # No file cycle, but two units whose files include each other's headers (as manifest.cpp
        # including embedpe/parts_dir.h while parts_dir.cpp includes manifest.h did).
        (lib / "src" / high / "pong.h").write_text("#pragma once\n")
        (lib / "src" / high / "ping.cpp").write_text('#include "ping.h"\n#include "embedpe/top.h"\n')
        (lib / "src" / high / "top.cpp").write_text('#include "embedpe/top.h"\n#include "pong.h"\n')
        (lib / "src" / high / "pong.cpp").write_text('#include "pong.h"\n#include "ping.h"\n')
        pair = []
        check_includes(lib, read_table(table), [low, high], pair)
        for p in pair:
            print(p)
        found_units = any(p.startswith("units that include each other:") and f"{high}/ping" in p and f"{high}/top" in p
                          for p in pair) and not any(p.startswith("include cycle:") for p in pair)
        print(f"upward include found: {found_include}; upward call found: {found_call}; include cycle found: "
              f"{found_cycle}; cycle of units found: {found_units}")
        return 0 if found_include and found_call and len(problems) == 2 and found_cycle and found_units else 1


def probe(cxx, dirs_file, low_header, high_header):
    dirs = [d for d in Path(dirs_file).read_text(encoding="utf-8").splitlines() if d]
    flags = [f"-I{d}" for d in dirs]
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for header, should_compile in ((low_header, True), (high_header, False)):
            source = Path(tmp) / "probe.cpp"
            source.write_text(f"#include <{header}>\n")
            run = subprocess.run([cxx, "-std=c++20", "-fsyntax-only", *flags, str(source)], capture_output=True,
                                 text=True)
            compiled = run.returncode == 0
            # GCC: "No such file or directory"; clang: "file not found".
            missing = Path(header).name in run.stderr and ("No such file" in run.stderr or "not found" in run.stderr)
            print(f"#include <{header}>: {'compiles' if compiled else 'does not compile'}"
                  + ("" if compiled else f" ({'header not found' if missing else run.stderr.strip()[:200]})"))
            if compiled != should_compile or (not should_compile and not missing):
                ok = False
    return 0 if ok else 1


def main(argv):
    if argv[0] == "--self-test":
        return self_test(argv[1], argv[2:])
    if argv[0] == "--probe":
        return probe(*argv[1:5])
    lib, table, objects_dir, layers = Path(argv[0]), read_table(argv[1]), Path(argv[2]), argv[3:]
    problems = []
    files = check_includes(lib, table, layers, problems)
    objects = check_calls(objects_dir, layers, problems)
    for p in problems:
        print(p)
    print(f"{files} files and {objects} objects in {len(layers)} layers, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
