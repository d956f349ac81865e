#!/usr/bin/env bash
# The test suite, in tiers (docs/TESTING.md has the tiers, the labels and the
# times they take).
#
#   tools/run_tests.sh            everything (what CI runs):
#     1. Release build (g++), every test;
#     2. one clang tree with AddressSanitizer + UndefinedBehaviorSanitizer that
#        also builds the libFuzzer targets: every test but the daemon/recipe
#        ones (CTest label "daemon"), then each fuzz target for
#        EMBEDPE_FUZZ_SECONDS (default 30) from the committed corpus;
#     3. a clang ThreadSanitizer tree: the tests that run threads (label "threads").
#   tools/run_tests.sh --quick    the edit-test loop: the Release build, then the
#                                 unit tests, the fuzz corpora replayed and the
#                                 core command-line tests (label "quick").
#
# EMBEDPE_SKIP_SANITIZERS=1 leaves out steps 2 and 3, EMBEDPE_SKIP_FUZZ=1 the
# fuzzing runs. ccache is used where it is installed (tools/install_deps.sh
# installs it). Each step's time is printed at the end.
set -euo pipefail
export EMBEDPE_BUILD_TARGET=all  # tools/build.sh: the tests too
here=$(cd "$(dirname "$0")/.." && pwd)
quick=0
case "${1:-}" in
  --quick) quick=1 ;;
  "") ;;
  *) echo "usage: tools/run_tests.sh [--quick]" >&2; exit 2 ;;
esac
jobs=$(nproc)
times=()
step() {  # step NAME COMMAND...: runs it, and keeps its time for the summary
  local name=$1 start=$SECONDS
  shift
  echo "== $name" >&2
  "$@"
  times+=("$(printf '%-44s %5d s' "$name" $((SECONDS - start)))")
}
summary() {
  echo "== times" >&2
  printf '%s\n' "${times[@]}" >&2
}
trap summary EXIT

"$here/tools/install_deps.sh" clang libclang-rt-14-dev
step "Release build" "$here/tools/build.sh" "$here/build"
if [ $quick = 1 ]; then
  step "Release: quick tests" ctest --test-dir "$here/build" --output-on-failure -j "$jobs" -L quick
  exit 0
fi
step "Release: every test" ctest --test-dir "$here/build" --output-on-failure -j "$jobs"

if [ "${EMBEDPE_SKIP_SANITIZERS:-0}" != 1 ]; then
  # -O1 and line tables only: a sanitizer build is for finding faults, and
  # compiles in about half the time of -O2 with full debug information.
  sanitizer_flags=(-DCMAKE_BUILD_TYPE=Sanitize "-DCMAKE_CXX_FLAGS_SANITIZE=-O1 -gline-tables-only")
  step "ASan+UBSan+fuzzers build (clang)" env CXX=clang++ "$here/tools/build.sh" "$here/build-asan" \
    "${sanitizer_flags[@]}" -DEMBEDPE_FUZZ=ON -DEMBEDPE_SANITIZE=address,undefined,fuzzer-no-link
  step "ASan+UBSan: every test but daemons" env ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "$here/build-asan" --output-on-failure -j "$jobs" -LE daemon
  if [ "${EMBEDPE_SKIP_FUZZ:-0}" != 1 ]; then
    step "fuzzing, ${EMBEDPE_FUZZ_SECONDS:-30} s a target" \
      "$here/tools/fuzz.sh" "${EMBEDPE_FUZZ_SECONDS:-30}" "$here/build-asan"
  fi
  # Threads: the pool's parallel loops, the streaming writer thread, the N(0,1) row cache.
  step "TSan build (clang)" env CXX=clang++ "$here/tools/build.sh" "$here/build-tsan" \
    "${sanitizer_flags[@]}" -DEMBEDPE_SANITIZE=thread
  step "TSan: threaded tests" env TSAN_OPTIONS=halt_on_error=1 \
    ctest --test-dir "$here/build-tsan" --output-on-failure -j "$jobs" -L threads
fi
