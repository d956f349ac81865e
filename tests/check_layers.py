"""The library's layers (lib/CMakeLists.txt, EMBEDPE_LAYERS): a file includes
only headers of its own layer and of the layers before it.

    check_layers.py LIB_DIR LAYER...      (the layers in order, lowest first)

A file's layer is its folder under lib/src/ (src/pe/kinds/t5.cpp is in pe); a
public header include/embedpe/NAME.h is in the layer of src/LAYER/NAME.cpp, or,
for the few headers with no source of their own, in HEADER_ONLY below. Prints
every include that goes up a layer, and every file it cannot place, and exits
1 if there is any.
"""
import re
import sys
from pathlib import Path

# Public headers with no .cpp of their own name (pretrained_tokenizer.h is
# defined in tokenizer.cpp, shards.h in shard_record.cpp and merge.cpp): the
# layer they belong to.
HEADER_ONLY = {"error.h": "core", "heatmap_look.h": "pe", "pretrained_tokenizer.h": "text", "shards.h": "pipeline"}
# Written at configure time (the sink registry's list): part of sinks.
GENERATED = {"sink_formats.inc": "sinks", "build_info.inc": "core"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def main(lib, layers):
    lib = Path(lib)
    rank = {name: i for i, name in enumerate(layers)}
    src, public = lib / "src", lib / "include" / "embedpe"
    problems = []
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
    sources = {p.stem: layer for p, layer in layer_of.items() if p.suffix == ".cpp"}
    for path in sorted(public.glob("*.h")):
        layer = sources.get(path.stem, HEADER_ONLY.get(path.name))
        if layer is None:
            problems.append(f"{path}: no src/LAYER/{path.stem}.cpp; add it to HEADER_ONLY in {__file__}")
            continue
        layer_of[path] = layer

    def included_layer(name):
        if name.startswith("embedpe/"):
            return layer_of.get(public / name[len("embedpe/"):])
        if name in GENERATED:
            return GENERATED[name]
        return layer_of.get(private[name]) if name in private else None

    for path, layer in layer_of.items():
        for name in INCLUDE.findall(path.read_text(encoding="utf-8")):
            target = included_layer(name)
            if target is None:
                problems.append(f"{path}: includes {name}, which is in no layer")
            elif rank[target] > rank[layer]:
                problems.append(f"{path} ({layer}) includes {name} ({target}): up a layer")
    for p in problems:
        print(p)
    print(f"{len(layer_of)} files in {len(layers)} layers, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
