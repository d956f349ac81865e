#!/usr/bin/env bash
# Installs embedpe from BUILD_DIR into a temporary prefix, builds
# tests/install_consumer against it with find_package(embedpe), and checks
# that both the installed binary and the consumer produce the same output,
# and that only the public headers are installed.
#
#   tests/install_test.sh BUILD_DIR WORK_DIR [PYTHON]
set -euo pipefail
build=$1
work=$2
python=${3:-python3}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null

# Public headers are exactly lib/include/embedpe/; the library's private
# ones (lib/src/*.h) are nowhere in the prefix; the umbrella header
# embedpe/embedpe.hpp includes every other public header.
installed=$(cd "$work/prefix/include/embedpe" && ls | sort)
public=$(cd "$src/lib/include/embedpe" && ls | sort)
echo "installed headers:" $installed
[ "$installed" = "$public" ] || { echo "installed headers differ from lib/include/embedpe/" >&2; exit 1; }
for private in "$src"/lib/src/*/*.h "$src"/lib/src/*/*/*.h; do  # src/LAYER/, src/pe/kinds/
  name=$(basename "$private")
  if [ -n "$(find "$work/prefix" -name "$name")" ]; then
    echo "private header lib/src/$name is installed" >&2
    exit 1
  fi
done
for header in $installed; do
  [ "$header" = embedpe.hpp ] && continue
  grep -qx "#include \"embedpe/$header\"" "$src/lib/include/embedpe/embedpe.hpp" \
    || { echo "embedpe/embedpe.hpp does not include embedpe/$header" >&2; exit 1; }
done

cmake -S "$here/install_consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null

got=$("$work/consumer/consumer")
echo "consumer: $got"
# The installed binary, run from an unrelated directory, must agree.
want=$(cd / && "$work/prefix/bin/embedpe" encode --text "Hello, this is machine translation" --d-model 16 \
         --max-len 64 --emit output | "$python" -c '
import json, sys
d = json.load(sys.stdin)["output"]
print(len(d), len(d[0]), len(d[0][0]), repr(d[0][0][0]))')
echo "binary:   $want"
read -r b l c v <<<"$got"
read -r wb wl wc wv <<<"$want"
[ "$b $l $c" = "$wb $wl $wc" ] || { echo "shape differs" >&2; exit 1; }
"$python" -c "import sys; import numpy as np; sys.exit(0 if np.float32($v) == np.float32($wv) else 1)" \
  || { echo "value differs" >&2; exit 1; }
# The Python module, when this tree built it: imported from where it was
# installed, a directory that the same python3 searches under /usr/local.
module=$(find "$work/prefix" -name 'embedpe.*.so' -path '*-packages/*' | head -n 1)
if [ -n "$module" ]; then
  site=$(dirname "$module")
  (cd / && PYTHONPATH="$site" "$python" -c "import embedpe, sys; print('module:  ', embedpe.__file__, embedpe.__version__)
sys.exit(0 if embedpe.__file__.startswith('$site') else 1)") || { echo "the installed module is not the one imported" >&2; exit 1; }
  "$python" -c "import sys; sys.exit(0 if '/usr/local/${site#"$work/prefix/"}' in sys.path else 1)" \
    || { echo "/usr/local/${site#"$work/prefix/"} is not on $python's sys.path" >&2; exit 1; }
fi
echo "install test passed"
