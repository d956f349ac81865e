#!/usr/bin/env bash
# Installs missing Debian packages, then configures and builds embedpe.
#
#   tools/build.sh [BUILD_DIR [extra cmake arguments...]]    (default: build)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
shift || true
"$here/tools/install_deps.sh"
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DEMBEDPE_WERROR=ON "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
