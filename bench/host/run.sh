#!/usr/bin/env bash
# The CPU target's benchmark (bench/host/bench.cpp) on 2 ranks, run against
# the runtime of a base revision and against this tree's, in one command:
#
#   bench/host/run.sh [BASE]
#
# BASE defaults to 44aa145, the last revision that ran one OS thread per GPU
# thread; its runtime is built alone (no compiler) in a temporary folder. The
# kernels are compiled once, by this tree's symm-compile, and both runtimes
# run the same benchmark binary. SYMM_BENCH_ITERS sets the number of barriers
# and shuffles (2000).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${SYMM_BUILD_DIR:-$ROOT/build}"
BASE="${1:-44aa145}"
ITERS="${SYMM_BENCH_ITERS:-2000}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

ninja -C "$BUILD" symm_runtime symm-compile symm-run >/dev/null
"$BUILD/bin/symm-compile" --target=host --emit=so \
  "$ROOT/bench/host/kernels.mlir" -o "$WORK/kernels.so"
c++ -O2 -std=c++17 -I"$ROOT/runtime/include" "$ROOT/bench/host/bench.cpp" \
  -L"$BUILD/lib" -lsymm_runtime -o "$WORK/bench-host"

mkdir "$WORK/base-src"
git -C "$ROOT" archive "$BASE" | tar -x -C "$WORK/base-src"
cmake -G Ninja -S "$WORK/base-src" -B "$WORK/base" -DCMAKE_BUILD_TYPE=Release \
  -DSYMM_BUILD_COMPILER=OFF -DBUILD_TESTING=OFF >/dev/null
ninja -C "$WORK/base" symm_runtime symm-run >/dev/null

echo "== base runtime ($BASE): one OS thread per GPU thread"
LD_LIBRARY_PATH="$WORK/base/lib" \
  "$WORK/base/bin/symm-run" -n 2 "$WORK/bench-host" "$WORK/kernels.so" "$ITERS" |
  sort -s -k1,2
echo "== this tree's runtime: fibers on worker threads"
LD_LIBRARY_PATH="$BUILD/lib" \
  "$BUILD/bin/symm-run" -n 2 "$WORK/bench-host" "$WORK/kernels.so" "$ITERS" |
  sort -s -k1,2
