#!/usr/bin/env bash
# Where the time goes in each benchmark of bench/run.py: records it with perf
# and prints, for the busiest threads, the functions the samples landed in.
# docs/PERFORMANCE.md keeps these lists from before and after each change.
#
#   bench/profile.sh [BUILD_DIR]     (default build-bench/, built if missing)
#
# Needs perf (Debian linux-perf, installed here) and ../shared/corpora/botchan.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build-bench}
corpus=${EMBEDPE_BENCH_CORPUS:-$here/../shared/corpora/botchan.txt}
"$here/tools/install_deps.sh" linux-perf
[ -x "$build/bench/bench_kernel" ] || EMBEDPE_BUILD_TARGET=all "$here/tools/build.sh" "$build" -DEMBEDPE_BUILD_BENCH=ON >/dev/null
embedpe=$build/app/embedpe
shm=/dev/shm
work=$(mktemp -d)
trap 'rm -rf "$work" "$shm"/embedpe-profile.*' EXIT

record() {  # name, then the command
  local name=$1
  shift
  echo "### $name"
  echo
  echo "    ${*#"$build/"}" | sed "s|$here/||g; s|$build/||g"
  echo
  perf record -q -F 5000 -g -o "$work/$name.data" -- "$@" >/dev/null 2>&1
  "$here/bench/perf_top.py" "$work/$name.data" "${extra[@]}"
  echo
}

extra=()
record kernel-dense "$build/bench/bench_kernel" 64 512 512 1 dense
record kernel-random "$build/bench/bench_kernel" 64 512 512 1 random
extra=()
record corpus-npy "$embedpe" encode --input "$corpus" --seq-len 64 --d-model 128 --format npy -o $shm/embedpe-profile.npy
rm -f $shm/embedpe-profile.*
record corpus-json "$embedpe" encode --input "$corpus" --seq-len 64 --d-model 128 --format json -o $shm/embedpe-profile.json
rm -f $shm/embedpe-profile.*
extra=(--by-command)
record latency sh -c "for i in \$(seq 50); do '$embedpe' encode --text 'Hello, this is machine translation' -o $shm/embedpe-profile.npy; done"
