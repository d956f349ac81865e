#!/usr/bin/env bash
# The whole test suite: builds embedpe and runs every test with CTest, first
# in a Release build, then in an AddressSanitizer + UndefinedBehaviorSanitizer
# build (skip that with EMBEDPE_SKIP_SANITIZERS=1), then a short fuzz run of
# each libFuzzer target (EMBEDPE_FUZZ_SECONDS, default 60; skip with
# EMBEDPE_SKIP_FUZZ=1), then the unit tests and the threaded command-line
# tests under ThreadSanitizer (also skipped by EMBEDPE_SKIP_SANITIZERS=1).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

"$here/tools/build.sh" "$here/build"
ctest --test-dir "$here/build" --output-on-failure -j "$(nproc)"

if [ "${EMBEDPE_SKIP_FUZZ:-0}" != 1 ]; then
  "$here/tools/fuzz.sh" "${EMBEDPE_FUZZ_SECONDS:-60}"
fi

if [ "${EMBEDPE_SKIP_SANITIZERS:-0}" != 1 ]; then
  "$here/tools/build.sh" "$here/build-asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEMBEDPE_SANITIZE=address,undefined
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "$here/build-asan" --output-on-failure -j "$(nproc)"
fi

if [ "${EMBEDPE_SKIP_SANITIZERS:-0}" != 1 ]; then
  # Threads: parallel loops, the streaming writer thread, the N(0,1) row cache.
  "$here/tools/build.sh" "$here/build-tsan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEMBEDPE_SANITIZE=thread
  TSAN_OPTIONS=halt_on_error=1 \
    ctest --test-dir "$here/build-tsan" --output-on-failure -j "$(nproc)" -R "unit|cli: (Encode|Stream|Errors)"
fi
