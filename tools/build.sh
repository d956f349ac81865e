#!/usr/bin/env bash
# Installs missing Debian packages, then configures and builds embedpe.
#
#   tools/build.sh [BUILD_DIR [extra cmake arguments...]]    (default: build)
#
# It builds what the README's main job needs (the CMake target
# embedpe_product: the library, the tool, its man page and completions), so
# that a first run comes soon; EMBEDPE_BUILD_TARGET=all builds everything the
# tree is configured for (tests, fuzz replays, benchmarks), as
# tools/run_tests.sh, tools/fuzz.sh and bench/ do. A plain `cmake --build` of
# a configured tree builds everything too.
#
# CXX chooses the compiler (clang++ for the sanitizer and fuzzing trees).
# Compiles go through ccache where it is installed: a second tree, or the
# same tree after a branch switch, recompiles only what changed.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
shift || true
"$here/tools/install_deps.sh"
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  # Precompiled headers (EMBEDPE_PCH) are cached only with these.
  export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
  # Paths inside the tree are hashed relative to it, so a clone at another
  # path (CI's) hits what this one compiled. Debug line tables then name the
  # path of whichever tree compiled an object first.
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$here} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
fi
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DEMBEDPE_WERROR=ON "${launcher[@]}" "$@" >/dev/null
cmake --build "$build" -j "$(nproc)" --target "${EMBEDPE_BUILD_TARGET:-embedpe_product}"
