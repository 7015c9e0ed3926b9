#!/usr/bin/env bash
# symm.torch on a GPU machine, in one command: the torch interop tests
# (python/tests/test_torch.py, under torchrun on the cuda and nvshmem
# backends), the fused operators and the tensor-parallel MLP block
# (python/tests/test_torch_ops.py, 2 ranks under symm-run, sharing the GPU
# where there is one), test_torch_checks.py with PyTorch (host backend), and the path of a remote access timed on the cuda
# backend and on the nvshmem backend, direct and forced through NVSHMEM
# (bench/python/remote_paths.py), and, on 2 GPUs or more, Symm's torch
# operators timed against torch.ops.symm_mem's under torchrun, one rank per
# GPU (bench/python/torch_ops.py), and the host time of an eager all-reduce
# operator call, piece by piece (bench/python/op_overhead.py, 2 GPUs);
# tables last.
#
# Here (after scripts/setup.sh configured with -DSYMM_NVSHMEM_HOME=<the
# nvidia-nvshmem wheel's folder or an NVSHMEM install>):
#   scripts/torch-gpu.sh bundle [DIR]       # default .device-torch
# There (CUDA 13, PyTorch, the nvidia-nvshmem-cu13 wheel; no LLVM):
#   DIR/torch-gpu.sh gpu DIR
# Logs go to DIR/logs (and $OUT/torch-logs.tgz when OUT is set).
set -uo pipefail
MODE="${1:-gpu}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DIR="$(realpath -m "${2:-$HERE/../.device-torch}")"

if [[ $MODE == bundle ]]; then
  args=(--chip sm_90 --flags --kernel-context=argument
    --compile python/tests/kernels/torch_heap.mlir torch_heap.ptx --flags "")
  for w in all_gather_gemm gemm_reduce_scatter; do
    args+=(--compile "examples/$w/$w.mlir" "$w.ptx")
  done
  # The fused operators' Hopper kernels (TMA, warpgroup MMA), which they run
  # on sm_90 GPUs.
  args+=(--chip sm_90a)
  for w in all_gather_gemm gemm_reduce_scatter; do
    args+=(--compile "examples/$w/${w}_hopper.mlir" "${w}_hopper.ptx")
  done
  args+=(--chip sm_90)
  for form in direct nvshmem; do
    args+=(--flags --remote=$form --compile bench/kernels.mlir "bench.$form.ptx"
      --compile bench/python/remote_paths.mlir "remote_paths.$form.ptx")
  done
  exec "$HERE/gpu-bundle.sh" "${args[@]}" --copy python \
    --copy bench/python/remote_paths.py --copy bench/python/torch_ops.py \
    --copy bench/python/op_overhead.py \
    --copy scripts/torch-gpu.sh "$DIR"
fi

source "$DIR/gpu-bundle.sh"
gpu_run_setup "$DIR"
LOG="$DIR/logs"
mkdir -p "$LOG"
NV=$(python3 -c "import nvidia.nvshmem as m; print(list(m.__path__)[0])")
PY=$(command -v python3)
export LD_LIBRARY_PATH="$DIR:$NV/lib:${LD_LIBRARY_PATH:-}"
export SYMM_NVSHMEM_HOME="$NV" SYMM_LIBRARY_DIR="$DIR" PYTHONPATH="$DIR/python"
export SYMM_TIMEOUT=60 SYMM_HEAP_SIZE=512M NVSHMEM_SYMMETRIC_SIZE=2G
export NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo SYMM_TORCH_KERNEL_DIR="$DIR"
GPUS=$(nvidia-smi -L | wc -l)
RANKS=$((GPUS >= 2 ? GPUS : 2))
pytest=(-m pytest -q -p no:cacheprovider -rfE)
result() { # NAME LOG STATUS: pytest's summary, or the failure
  if (($3 == 0)); then grep -o "[0-9]* passed.*" "$2" | tail -1
  else echo "FAILED ($(grep -o "[0-9]* failed.*" "$2" | tail -1))"; tail -30 "$2" >&2; fi
}

# The torch interop tests: one rank per GPU (NCCL puts no two on one GPU).
declare -A row
for backend in cuda nvshmem; do
  SYMM_BACKEND=$backend SYMM_TORCH_KERNELS="$DIR/torch_heap.ptx" \
    timeout 100 torchrun --nproc-per-node "$GPUS" "${pytest[@]}" \
    "$DIR/python/tests/test_torch.py" >"$LOG/torch.$backend.log" 2>&1
  row[torch.$backend]=$(result torch "$LOG/torch.$backend.log" $?)
done

# The fused operators: 2 ranks (sharing one GPU), no process group needed.
for backend in cuda nvshmem; do
  timeout 150 ./symm-run -n $RANKS --backend $backend "$PY" "${pytest[@]}" \
    "$DIR/python/tests/test_torch_ops.py" >"$LOG/ops.$backend.log" 2>&1
  row[ops.$backend]=$(result ops "$LOG/ops.$backend.log" $?)
done

# What CI checks without PyTorch, and as_tensor on the host backend, with it.
timeout 60 ./symm-run -n 2 --backend host "$PY" "${pytest[@]}" \
  "$DIR/python/tests/test_torch_checks.py" >"$LOG/checks.log" 2>&1
row[checks]=$(result checks "$LOG/checks.log" $?)

# The path of a remote access: direct on the cuda backend (IPC), direct and
# forced through NVSHMEM on the nvshmem backend.
paths=()
for run in cuda:direct nvshmem:direct nvshmem:nvshmem; do
  timeout 40 ./symm-run -n 2 --backend "${run%:*}" "$PY" remote_paths.py \
    "$DIR" "${run#*:}" >"$LOG/paths.${run/:/.}.log" 2>&1
  line=$(grep "^.*remote_paths " "$LOG/paths.${run/:/.}.log" | sed 's/.*remote_paths //')
  paths+=("${line:-FAILED ${run}}")
  [[ -n $line ]] || tail -15 "$LOG/paths.${run/:/.}.log"
done

# Symm's operators against torch.ops.symm_mem's, timed: one rank per GPU,
# with room in Symm's heap for the fused operators' buffers.
op_table=()
overhead=()
if ((GPUS >= 2)); then
  log="$LOG/torch_ops.log"
  SYMM_BACKEND=cuda SYMM_HEAP_SIZE=2G timeout 300 torchrun --nproc-per-node "$GPUS" \
    torch_ops.py "$DIR" >"$log" 2>&1
  status=$?
  mapfile -t op_table < <(grep "^| " "$log")
  # One check per operator and shape (printed with its eager time).
  row[torch_ops]="$(grep -c "^torch_ops .* eager: PASS" "$log") passed, $(grep -c \
    "^torch_ops .* eager: FAIL" "$log") failed, $(grep -c "^torch_ops .* rank 0 failed:" "$log") raised"
  ((status == 0)) || { row[torch_ops]+=" (exit $status)"; tail -30 "$log" >&2; }
  SYMM_BACKEND=cuda timeout 120 torchrun --nproc-per-node 2 op_overhead.py \
    >"$LOG/op_overhead.log" 2>&1 || tail -30 "$LOG/op_overhead.log" >&2
  mapfile -t overhead < <(grep "^op_overhead " "$LOG/op_overhead.log")
else
  row[torch_ops]="skipped: needs 2 GPUs"
fi

python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)"
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
echo "== symm.torch, $GPUS GPU(s)"
echo "| what | result |"
echo "| --- | --- |"
echo "| test_torch.py, torchrun, cuda backend | ${row[torch.cuda]} |"
echo "| test_torch.py, torchrun, nvshmem backend | ${row[torch.nvshmem]} |"
echo "| test_torch_ops.py, symm-run -n $RANKS, cuda backend | ${row[ops.cuda]} |"
echo "| test_torch_ops.py, symm-run -n $RANKS, nvshmem backend | ${row[ops.nvshmem]} |"
echo "| test_torch_checks.py, symm-run -n 2, host backend | ${row[checks]} |"
for p in "${paths[@]}"; do echo "| remote path: $p |"; done
echo "| torch_ops.py, torchrun, $GPUS GPU(s), cuda backend | ${row[torch_ops]} |"
if ((${#op_table[@]})); then
  echo "== Symm's operators against torch.ops.symm_mem's, us per call (slowest rank)"
  printf '%s\n' "${op_table[@]}"
fi
if ((${#overhead[@]})); then
  echo "== Host time of an eager one_shot_all_reduce call, 64 KiB, piece by piece"
  printf '%s\n' "${overhead[@]}"
fi
[[ -n ${OUT:-} ]] && tar czf "$OUT/torch-logs.tgz" -C "$DIR" logs
exit 0
