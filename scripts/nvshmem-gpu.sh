#!/usr/bin/env bash
# The nvshmem backend on a GPU machine: every integration program and example,
# the collectives suite and a workload, with the direct path (compiled as for
# the cuda backend) and with every peer forced through NVSHMEM
# (--remote=nvshmem), then the torch interop tests; a table last.
#
# Here (after scripts/setup.sh, configured with -DSYMM_NVSHMEM_HOME=<the
# nvidia-nvshmem wheel's folder or an NVSHMEM install>, so that the runtime
# has the nvshmem backend):
#   scripts/nvshmem-gpu.sh bundle [DIR]      # default .device-nvshmem
# There (CUDA 13, the nvidia-nvshmem-cu13 wheel, PyTorch; no LLVM):
#   DIR/nvshmem-gpu.sh gpu DIR
#   DIR/nvshmem-gpu.sh timing DIR   # only gemv_all_reduce's times
# SYMM_NVSHMEM_RANKS sets the ranks (default: 2 ranks when NVSHMEM runs two
# on one GPU, else one per GPU). Logs go to DIR/logs (and $OUT/nvshmem-logs.tgz
# when OUT is set).
set -uo pipefail
MODE="${1:-gpu}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DIR="$(realpath -m "${2:-$HERE/../.device-nvshmem}")"

if [[ $MODE == bundle ]]; then
  # The programs gpu-integration.sh runs on GPUs but the Hopper ones, in both
  # forms; gemv_all_reduce with each remote mode; torch interop's kernel.
  w=examples/gemv_all_reduce/gemv_all_reduce.mlir
  exec "$HERE/gpu-bundle.sh" --build symm-collectives-test --build gemv_all_reduce \
    --chip sm_90 --portable-programs direct.exe \
    --flags --remote=nvshmem --portable-programs nvshmem.exe \
    --flags --remote=direct --compile "$w" gemv_all_reduce.direct.ptx \
    --flags --remote=auto --compile "$w" gemv_all_reduce.auto.ptx \
    --flags --remote=nvshmem --compile "$w" gemv_all_reduce.nvshmem.ptx \
    --flags --kernel-context=argument \
    --compile python/tests/kernels/torch_heap.mlir torch_heap.ptx \
    --copy python --bin symm-collectives-test --bin gemv_all_reduce \
    --copy scripts/nvshmem-gpu.sh "$DIR"
fi

source "$DIR/gpu-bundle.sh"
gpu_run_setup "$DIR"

LOG="$DIR/logs"
mkdir -p "$LOG"
NV=$(python3 -c "import nvidia.nvshmem as m; print(list(m.__path__)[0])")
export LD_LIBRARY_PATH="$DIR:$NV/lib:${LD_LIBRARY_PATH:-}"
export SYMM_NVSHMEM_HOME="$NV" SYMM_TIMEOUT=30 SYMM_HEAP_SIZE=512M
export NVSHMEM_SYMMETRIC_SIZE=2G NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo
GPUS=$(nvidia-smi -L | wc -l)
# A hung program costs at most its timeout; the whole run stays under ~6 min.
run() { timeout "${T:-40}" ./symm-run -n "$N" --backend nvshmem "$@"; }

# Two ranks on one GPU when NVSHMEM allows it, so that peers are real.
N=${SYMM_NVSHMEM_RANKS:-}
if [[ -z $N ]]; then
  N=2
  ((GPUS >= 2)) || run ./ring.direct.exe >"$LOG/probe.log" 2>&1 || N=$GPUS
  echo "== ranks: $N on $GPUS GPU(s)"; tail -4 "$LOG/probe.log" 2>/dev/null
fi

# gemv_all_reduce timed on the cuda backend (direct kernels), then on the
# nvshmem backend with each form of the kernels: the direct path's cost on
# the nvshmem backend, and what auto's check and the forced calls add.
gemv=()
gemv_rows() {
  local form backend out t
  for form in cuda:direct nvshmem:direct nvshmem:auto nvshmem:nvshmem; do
    backend=${form%:*} r=${form#*:}
    out=$(timeout 40 ./symm-run -n "$N" --backend "$backend" ./gemv_all_reduce \
      --kernels="./gemv_all_reduce.$r.ptx" --m=8192 --k=8192 --bench --iters=200 2>&1)
    echo "$out" >"$LOG/gemv_all_reduce.$backend.$r.log"
    t=$(echo "$out" | grep -o "[0-9.]* us/iter" | head -1)
    echo "$out" | grep -q PASS && gemv+=("$form:PASS ${t}") || gemv+=("$form:FAILED")
  done
}
# DIR/nvshmem-gpu.sh timing DIR: only these rows.
if [[ $MODE == timing ]]; then
  gemv_rows
  echo "| gemv_all_reduce (backend:kernels) | ${gemv[*]} |"
  exit 0
fi

declare -A pass fail
failed=()
for form in direct nvshmem; do
  pass[$form]=0 fail[$form]=0
  for exe in *.$form.exe; do
    name=${exe%.$form.exe}
    if run "./$exe" >"$LOG/$name.$form.log" 2>&1; then
      pass[$form]=$((pass[$form] + 1))
    else
      fail[$form]=$((fail[$form] + 1)); failed+=("$name.$form")
      echo "== $name ($form) failed"; tail -5 "$LOG/$name.$form.log"
    fi
  done
done

# The cuda backend cannot load a module that calls NVSHMEM, and says so.
timeout 60 ./symm-run -n 1 --backend cuda ./ring.nvshmem.exe >"$LOG/refuse.log" 2>&1
grep -q "run it on the nvshmem backend" "$LOG/refuse.log" && refuse=ok ||
  { refuse=FAILED; tail -3 "$LOG/refuse.log"; }

gemv_rows

coll=()
for remote in auto nvshmem; do
  if SYMM_COLLECTIVES_REMOTE=$remote T=120 run ./symm-collectives-test \
      >"$LOG/collectives.$remote.log" 2>&1; then coll+=("$remote:ok")
  else coll+=("$remote:FAILED"); tail -8 "$LOG/collectives.$remote.log"; fi
done


# Torch interop: one rank (NCCL puts no two ranks on one GPU), on each GPU
# backend.
torch=()
for backend in cuda nvshmem; do
  if SYMM_BACKEND=$backend SYMM_LIBRARY_DIR="$DIR" \
      SYMM_TORCH_KERNELS="$DIR/torch_heap.ptx" PYTHONPATH="$DIR/python" \
      timeout 300 torchrun --nproc-per-node "$GPUS" -m pytest -q -x \
      -p no:cacheprovider "$DIR/python/tests/test_torch.py" \
      >"$LOG/torch.$backend.log" 2>&1; then
    torch+=("$backend:$(grep -o "[0-9]* passed" "$LOG/torch.$backend.log" | tail -1)")
  else
    torch+=("$backend:FAILED"); tail -25 "$LOG/torch.$backend.log"
  fi
done

python3 -c "
import torch, torch.distributed._symmetric_memory
for n in ('one_shot_all_reduce', 'two_shot_all_reduce_', 'fused_all_gather_matmul', 'fused_matmul_reduce_scatter'):
    print('torch:', getattr(torch.ops.symm_mem, n).default._schema)" 2>&1 | tail -4
echo "== nvshmem backend, $N rank(s) on $GPUS GPU(s)"
echo "| what | result |"
echo "| --- | --- |"
echo "| integration + examples, direct | ${pass[direct]} passed, ${fail[direct]} failed |"
echo "| integration + examples, --remote=nvshmem | ${pass[nvshmem]} passed, ${fail[nvshmem]} failed |"
echo "| cuda backend refuses an NVSHMEM module | $refuse |"
echo "| collectives suite (auto, nvshmem) | ${coll[*]} |"
echo "| gemv_all_reduce (backend:kernels) | ${gemv[*]} |"
echo "| torch interop tests (cuda, nvshmem backend) | ${torch[*]} |"
echo "failed: ${failed[*]:-none}"
[[ -n ${OUT:-} ]] && tar czf "$OUT/nvshmem-logs.tgz" -C "$DIR" logs
