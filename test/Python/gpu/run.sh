#!/usr/bin/env bash
# The Python package on the GPUs in one command.
#
# Here (after scripts/setup.sh):
#   test/Python/gpu/run.sh bundle [DIR]     # default DIR: .device-python
# puts into DIR the runtime library, symm-run, the package and the test
# kernels compiled for sm_90 (PTX, with their manifests).
#
# There (2x H200, CUDA 13, PyTorch with NCCL; no LLVM), from the repository:
#   test/Python/gpu/run.sh gpu [DIR]
# runs gpu_test.py on 2 GPUs under torchrun (cuda backend): symmetric
# tensors, kernels launched on them, every collective against
# torch.distributed; prints a table. The log goes to $OUT or DIR/results.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
MODE="${1:-gpu}"
DIR="$(realpath -m "${2:-$ROOT/.device-python}")"

if [[ $MODE == bundle ]]; then
  BUILD="${SYMM_BUILD_DIR:-$ROOT/build}"
  ninja -C "$BUILD" symm_runtime symm-run symm-compile
  rm -rf "$DIR"
  mkdir -p "$DIR/lib"
  "$BUILD/bin/symm-compile" --target=sm_90 --emit=ptx \
    "$ROOT/python/tests/kernels/kernels.mlir" -o "$DIR/kernels.ptx"
  "$BUILD/bin/symm-compile" --target=sm_90 --emit=ptx --kernel-context=argument \
    "$ROOT/python/tests/kernels/context_argument.mlir" -o "$DIR/context_argument.ptx"
  cp "$BUILD/lib/libsymm_runtime.so" "$DIR/lib/"
  cp "$BUILD/bin/symm-run" "$HERE/gpu_test.py" "$DIR/"
  cp -r "$ROOT/python/symm" "$DIR/symm"
  rm -rf "$DIR/symm/__pycache__" "$DIR/symm/lib"
  echo "bundle in $DIR ($(du -sh "$DIR" | cut -f1))"
  exit 0
fi

RESULTS="${OUT:-$DIR/results}"
mkdir -p "$RESULTS"
cd "$DIR"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export SYMM_BACKEND=cuda SYMM_LIBRARY_DIR="$DIR/lib" PYTHONPATH="$DIR"
export SYMM_HEAP_SIZE="${SYMM_HEAP_SIZE:-4G}" SYMM_TIMEOUT="${SYMM_TIMEOUT:-120}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$RESULTS/gpus.txt"
torchrun --nproc-per-node 2 --master-port "${MASTER_PORT:-29541}" gpu_test.py "$DIR" \
  2>&1 | tee "$RESULTS/python-gpu.log"
