#!/usr/bin/env bash
# Runs each libFuzzer target for a while, starting from the committed seed
# corpus in fuzz/corpus/.
#
#   tools/fuzz.sh [SECONDS_PER_TARGET [BUILD_DIR]]     (default 60, build-fuzz)
#
# BUILD_DIR is a clang tree configured with -DEMBEDPE_FUZZ=ON and
# -DEMBEDPE_SANITIZE=address,undefined,fuzzer-no-link (tools/run_tests.sh's
# sanitizer tree is one); without one, build-fuzz is configured so and built.
# New inputs found go to BUILD_DIR/corpus/, crashes to BUILD_DIR/crashes/; the
# committed corpus is not modified. Exits non-zero if a target crashes.
set -euo pipefail
export EMBEDPE_BUILD_TARGET=all  # tools/build.sh: the fuzz targets too
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
build=${2:-}

if [ -z "$build" ]; then
  build=$here/build-fuzz
  "$here/tools/install_deps.sh" clang libclang-rt-14-dev
  CXX=clang++ "$here/tools/build.sh" "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEMBEDPE_FUZZ=ON \
    -DEMBEDPE_BUILD_TESTS=OFF -DEMBEDPE_SANITIZE=address,undefined,fuzzer-no-link
fi

status=0
for target in $(sed -n 's/^set(EMBEDPE_FUZZ_TARGETS \(.*\))$/\1/p' "$here/fuzz/CMakeLists.txt"); do
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
