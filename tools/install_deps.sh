#!/usr/bin/env bash
# Installs the Debian 12 packages embedpe needs to build and test, if any
# are missing. Run as root (or with sudo). Extra arguments are more packages
# (tools/make_goldens.py also needs python3-torch). python3-sentencepiece is
# tests/diff_test.py's reference for token pieces. python3-dev and
# pybind11-dev build the Python module (python/).
# slurm-wlm, munge, openssh-server and rsync are for tests/scale_test.py, which
# starts its own Slurm cluster, munged and sshd with generated configs (it
# never uses or changes the services and /etc files the packages install).
set -euo pipefail

packages=(
  g++ cmake make pkg-config ccache
  libcli11-dev libsentencepiece-dev libicu-dev sentencepiece nlohmann-json3-dev xtensor-dev xtl-dev doctest-dev zlib1g-dev nettle-dev libonig-dev
  python3 python3-numpy python3-sentencepiece parallel
  python3-dev pybind11-dev
  man-db zsh fish
  slurm-wlm munge openssh-server openssh-client rsync
  "$@"
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install_deps: installing ${missing[*]}" >&2
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
