#!/usr/bin/python3
"""Where the time goes in a perf recording: the functions samples landed in
(self time), for the main thread and for all other threads together (the
writer, the helpers of a parallel loop), as Markdown. bench/profile.sh runs it.

    bench/perf_top.py PERF_DATA [--top N] [--by-command]
"""
import argparse
import collections
import subprocess


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("--top", type=int, default=8)
    ap.add_argument("--by-command", action="store_true",
                    help="one group per command name (for a recording of many short processes)")
    args = ap.parse_args()
    text = subprocess.run(["perf", "script", "-i", args.data, "-F", "comm,pid,tid,ip,sym,dso"],
                          capture_output=True, text=True, check=True).stdout
    per_group = collections.Counter()
    leaves = collections.Counter()
    for sample in text.split("\n\n"):
        lines = [l.strip() for l in sample.strip().splitlines()]
        if len(lines) < 2:
            continue
        head = lines[0].split()
        comm, ids = " ".join(head[:-1]), head[-1]
        pid, _, tid = ids.partition("/")
        if args.by_command:
            group = comm
        else:
            group = "main thread" if pid == tid else "other threads"
        frame = lines[1].split(maxsplit=1)  # address, "symbol (dso)"
        leaf = frame[1] if len(frame) > 1 else frame[0]
        name, _, dso = leaf.rpartition(" (")
        dso = dso.rstrip(")").rsplit("/", 1)[-1]
        dso = "kernel" if dso == "[kernel.kallsyms]" else dso
        name = name or "[unknown]"
        name = name.replace("(anonymous namespace)", "{anon}")
        if "(" in name and "::" in name:  # drop C++ parameter lists
            name = name[:name.index("(")]
        per_group[group] += 1
        leaves[(group, f"{name} [{dso}]")] += 1
    total = sum(per_group.values())
    if not total:
        print("(no samples)")
        return
    for group, n in per_group.most_common():
        if n < total * 0.02:
            continue
        print(f"- {group} ({100 * n / total:.0f}% of {total} samples):")
        top = [(name, c) for (g, name), c in leaves.most_common() if g == group][:args.top]
        print("  " + "; ".join(f"{100 * c / n:.1f}% {name}" for name, c in top))


if __name__ == "__main__":
    main()
