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
  exec "$ROOT/scripts/gpu-bundle.sh" --chip sm_90 \
    --compile python/tests/kernels/kernels.mlir kernels.ptx \
    --flags --kernel-context=argument \
    --compile python/tests/kernels/context_argument.mlir context_argument.ptx \
    --copy python/symm --copy test/Python/gpu/gpu_test.py "$DIR"
fi

source "$DIR/gpu-bundle.sh"
gpu_run_setup "$DIR"
export SYMM_BACKEND=cuda SYMM_LIBRARY_DIR="$DIR" PYTHONPATH="$DIR"
export SYMM_HEAP_SIZE="${SYMM_HEAP_SIZE:-4G}" SYMM_TIMEOUT="${SYMM_TIMEOUT:-120}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$RESULTS/gpus.txt"
torchrun --nproc-per-node 2 --master-port "${MASTER_PORT:-29541}" gpu_test.py "$DIR" \
  2>&1 | tee "$RESULTS/python-gpu.log"
