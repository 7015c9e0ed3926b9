#!/usr/bin/env bash
# Builds everything a GPU machine without LLVM needs into one folder (default
# .device/): the integration programs, the example and the benchmark compiled
# for an NVIDIA chip, the runtime, symm-run and symm-launch. Run on the GPU
# machine from inside that folder with LD_LIBRARY_PATH=$PWD (docs/GPU.md).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${SYMM_BUILD_DIR:-$ROOT/build}"
OUT="${1:-$ROOT/.device}"
CHIP="${SYMM_CHIP:-sm_90}"
mkdir -p "$OUT"
# Programs that test the CPU target itself (its limits, its fault reports,
# MLIR's runner libraries, which need LLVM) are not GPU programs. Programs
# with Hopper's TMA or warpgroup MMA need sm_90a whatever the chip.
for f in "$ROOT"/test/Integration/*.mlir "$ROOT"/examples/*.mlir \
  "$ROOT"/test/Target/NVVM/hopper-gemm.mlir; do
  name=$(basename "$f" .mlir)
  [[ $f == */Target/NVVM/* ]] && name=nvvm-$name
  [[ $name == example-allgather ]] && continue
  grep -q "REQUIRES: backend-host\|printMemref\|async.execute" "$f" && continue
  chip=$CHIP
  grep -q "nvgpu\.tma\.\|nvgpu\.warpgroup\.\|nvvm\.wgmma\." "$f" && chip=sm_90a
  "$BUILD/bin/symm-compile" --target="$chip" "$f" -o "$OUT/$name.exe" ||
    echo "gpu-bundle: $name does not compile for $chip" >&2
done
# --check-ranks on the GPU: a peer 3 past the last rank prints the rank, the
# operation and the peer, and traps (run-all.sh checks the message and the
# exit status; a .trap, so that the loop over *.exe leaves it alone).
sed -e 's/SCALE/1/' -e 's/OFFSET/3/' "$ROOT/test/Integration/peer-out-of-range.mlir" \
  > "$OUT/peer-out-of-range.mlir"
"$BUILD/bin/symm-compile" --target="$CHIP" --check-ranks \
  "$OUT/peer-out-of-range.mlir" -o "$OUT/peer-out-of-range.trap"
# One million release/acquire round trips instead of a thousand.
sed 's/%iters = arith.constant 1000 : i32/%iters = arith.constant 1000000 : i32/' \
  "$ROOT/test/Integration/message-passing.mlir" > "$OUT/message-passing-1m.mlir"
"$BUILD/bin/symm-compile" --target="$CHIP" "$OUT/message-passing-1m.mlir" \
  -o "$OUT/message-passing-1m.exe"
"$BUILD/bin/symm-compile" --target="$CHIP" "$ROOT/test/Runtime/launch-errors.mlir" \
  -o "$OUT/launch.cubin"
"$BUILD/bin/symm-compile" --target="$CHIP" "$ROOT/bench/kernels.mlir" -o "$OUT/bench.cubin"
nvcc -O2 -std=c++17 -arch="${CHIP}" "$ROOT/bench/bench.cu" -I "$ROOT/runtime/include" \
  -L "$BUILD/lib" -lsymm_runtime -L "${SYMM_NCCL_LIB:-/usr/local/cuda/lib}" -lnccl \
  -o "$OUT/bench-gpu"
cp "$BUILD/lib/libsymm_runtime.so" "$BUILD/bin/symm-run" "$BUILD/bin/symm-launch" "$OUT/"
cp "$ROOT/scripts/gpu-integration.sh" "$OUT/run-all.sh"
