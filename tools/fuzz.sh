#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each for a
# while, starting from the committed seed corpus in fuzz/corpus/.
#
#   tools/fuzz.sh [SECONDS_PER_TARGET]     (default 60; docs/RELIABILITY.md has a longer run)
#
# New inputs found go to build-fuzz/corpus/, crashes to build-fuzz/crashes/;
# the committed corpus is not modified. Exits non-zero if a target crashes.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
build=$here/build-fuzz

"$here/tools/install_deps.sh" clang libclang-rt-14-dev
CXX=clang++ cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEMBEDPE_FUZZ=ON \
  -DEMBEDPE_BUILD_TESTS=OFF -DEMBEDPE_WERROR=ON -DEMBEDPE_SANITIZE=address,undefined,fuzzer-no-link >/dev/null
cmake --build "$build" -j "$(nproc)"

status=0
for target in npy_header weights jsonl encode segment_cache; do
  corpus=$build/corpus/$target
  crashes=$build/crashes/$target
  mkdir -p "$corpus" "$crashes"
  log=$build/fuzz_$target.log
  if ! "$build/fuzz/fuzz_$target" "$corpus" "$here/fuzz/corpus/$target" -max_total_time="$seconds" \
       -rss_limit_mb=4096 -max_len=65536 -artifact_prefix="$crashes/" -print_final_stats=1 >"$log" 2>&1; then
    echo "fuzz_$target: FAILED; see $log and $crashes" >&2
    tail -40 "$log" >&2
    status=1
  fi
  runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || echo "?")
  cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || echo "?")
  echo "fuzz_$target: $runs executions in ${seconds}s, coverage $cov edges, corpus $(ls "$corpus" | wc -l) inputs"
done
exit $status
