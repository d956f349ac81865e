#!/bin/sh
# import embedpe under AddressSanitizer, from the Release tree's tests:
# tests/python_test.py run by the Release tree's python3 (Debian's, which is
# not sanitized) with the ASan tree's module (built there sanitized, as
# tools/run_tests.sh builds build-asan/) and that compiler's ASan runtime in
# LD_PRELOAD, ASAN_OPTIONS=detect_leaks=0 (CPython keeps its objects at
# exit); python_test.py drops the preload for the sanitized CLI it runs.
# Exit 77 (SKIPPED) when that tree or its module is not there.
#
#   tests/python_asan_test.sh PYTHON ASAN_TREE [TEST_NAMES...]
set -eu
python=$1 tree=$2
shift 2
module=$(ls "$tree"/python/embedpe*.so 2>/dev/null | head -n 1 || true)
if [ -z "$module" ] || [ ! -x "$tree/app/embedpe" ]; then
  echo "SKIPPED: no ASan build of the module in $tree/python (tools/run_tests.sh builds it; or EMBEDPE_ASAN_TREE=DIR)" >&2
  exit 77
fi
compiler=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$tree/CMakeCache.txt")
case $(basename "$compiler") in
  clang*) runtime=$("$compiler" -print-file-name=libclang_rt.asan-$(uname -m).so) ;;
  *) runtime=$("$compiler" -print-file-name=libasan.so) ;;
esac
if [ ! -f "$runtime" ]; then
  echo "SKIPPED: no ASan runtime for $compiler ($runtime)" >&2
  exit 77
fi
grep -q 'EMBEDPE_SANITIZE:STRING=.*address' "$tree/CMakeCache.txt" || {
  echo "$tree is not an ASan tree (EMBEDPE_SANITIZE has no address)" >&2
  exit 1
}
echo "module: $module; LD_PRELOAD=$runtime" >&2
cd "$(dirname "$0")"
[ $# -gt 0 ] || set -- python_test
exec env LD_PRELOAD="$runtime" ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  EMBEDPE="$tree/app/embedpe" EMBEDPE_SANITIZED=1 EMBEDPE_PYTHON_MODULE_DIR="$tree/python" \
  EMBEDPE_PYTHON_ASAN=1 "$python" run_unittest.py "$@"
