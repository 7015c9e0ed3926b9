#!/usr/bin/env bash
# Installs what Symm needs on a fresh Debian 12 machine (when run as root and
# something is missing), then configures and builds everything into build/.
# Idempotent: a second run only rebuilds what changed. Arguments are CMake
# options for the build folder, SYMM_EXTRA_PACKAGES more packages
# (scripts/sanitize.sh uses both).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${SYMM_BUILD_DIR:-$ROOT/build}"

PACKAGES=(
  cmake ninja-build g++ python3 libgtest-dev
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools clang-22 lld-22
  libamdhip64-dev libopenmpi-dev openmpi-bin
  python3-numpy python3-pytest python3-pip python3-setuptools
  ${SYMM_EXTRA_PACKAGES:-}
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup: missing packages: ${missing[*]} (run as root to install)" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

LLVM_DIR=/usr/lib/llvm-22
LAUNCHER=()
# A developer's ccache, when installed, makes rebuilds in other clones cheap.
if command -v ccache >/dev/null; then
  LAUNCHER=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
if [[ ! -f "$BUILD/build.ninja" ]]; then
  cmake -G Ninja -S "$ROOT" -B "$BUILD" "${LAUNCHER[@]}" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$LLVM_DIR/bin/clang" \
    -DCMAKE_CXX_COMPILER="$LLVM_DIR/bin/clang++" \
    -DMLIR_DIR="$LLVM_DIR/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$LLVM_DIR/bin/lit" "$@"
elif (($#)); then
  cmake -B "$BUILD" "$@" > /dev/null
fi
cmake --build "$BUILD" -j "${SYMM_JOBS:-$(nproc)}"
