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
# SYMM_NVSHMEM_RANKS sets the ranks (default: 2 ranks when NVSHMEM runs two
# on one GPU, else one per GPU). Logs go to DIR/logs (and $OUT/nvshmem-logs.tgz
# when OUT is set).
set -uo pipefail
MODE="${1:-gpu}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="$(realpath -m "${2:-$ROOT/.device-nvshmem}")"
BUILD="${SYMM_BUILD_DIR:-$ROOT/build}"

if [[ $MODE == bundle ]]; then
  set -e
  ninja -C "$BUILD" symm_runtime symm-run symm-compile symm-collectives-test \
    gemv_all_reduce
  mkdir -p "$DIR"
  compile() { "$BUILD/bin/symm-compile" --target=sm_90 "$@"; }
  # The programs gpu-bundle.sh runs on GPUs, in both forms.
  for f in "$ROOT"/test/Integration/*.mlir "$ROOT"/examples/*.mlir; do
    name=$(basename "$f" .mlir)
    grep -q "REQUIRES: backend-host\|printMemref\|async.execute\|nvgpu\.tma\.\|nvgpu\.warpgroup\." "$f" && continue
    compile "$f" -o "$DIR/$name.direct.exe" ||
      echo "nvshmem-gpu: $name does not compile for sm_90" >&2
    compile --remote=nvshmem "$f" -o "$DIR/$name.nvshmem.exe" ||
      echo "nvshmem-gpu: $name has no NVSHMEM form" >&2
  done
  w="$ROOT/examples/gemv_all_reduce/gemv_all_reduce.mlir"
  for r in direct auto nvshmem; do
    compile --emit=ptx --remote=$r "$w" -o "$DIR/gemv_all_reduce.$r.ptx"
  done
  compile --emit=ptx --kernel-context=argument \
    "$ROOT/python/tests/kernels/torch_heap.mlir" -o "$DIR/torch_heap.ptx"
  rm -rf "$DIR/python" && cp -r "$ROOT/python" "$DIR/python"
  cp "$BUILD/lib/libsymm_runtime.so" "$BUILD/bin/symm-run" \
    "$BUILD/bin/symm-collectives-test" "$BUILD/bin/gemv_all_reduce" \
    "$ROOT/scripts/nvshmem-gpu.sh" "$DIR/"
  exit 0
fi

cd "$DIR" || exit 1
LOG="$DIR/logs"
mkdir -p "$LOG"
NV=$(python3 -c "import nvidia.nvshmem as m; print(list(m.__path__)[0])")
export LD_LIBRARY_PATH="$DIR:$NV/lib:${LD_LIBRARY_PATH:-}"
export SYMM_NVSHMEM_HOME="$NV" SYMM_TIMEOUT=30 SYMM_HEAP_SIZE=512M
export NVSHMEM_SYMMETRIC_SIZE=2G NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
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

coll=()
for remote in auto nvshmem; do
  if SYMM_COLLECTIVES_REMOTE=$remote T=120 run ./symm-collectives-test \
      >"$LOG/collectives.$remote.log" 2>&1; then coll+=("$remote:ok")
  else coll+=("$remote:FAILED"); tail -8 "$LOG/collectives.$remote.log"; fi
done

gemv=()
for r in direct auto nvshmem; do
  out=$(run ./gemv_all_reduce --kernels="./gemv_all_reduce.$r.ptx" \
    --m=8192 --k=8192 --bench --iters=200 2>&1)
  echo "$out" >"$LOG/gemv_all_reduce.$r.log"
  t=$(echo "$out" | grep -o "[0-9.]* us/iter" | head -1)
  echo "$out" | grep -q PASS && gemv+=("$r:PASS ${t}") || gemv+=("$r:FAILED")
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
import torch
for n in ('one_shot_all_reduce', 'two_shot_all_reduce_', 'fused_all_gather_matmul', 'fused_matmul_reduce_scatter'):
    print('torch:', getattr(torch.ops.symm_mem, n).default._schema)" 2>&1 | tail -4
echo "== nvshmem backend, $N rank(s) on $GPUS GPU(s)"
echo "| what | result |"
echo "| --- | --- |"
echo "| integration + examples, direct | ${pass[direct]} passed, ${fail[direct]} failed |"
echo "| integration + examples, --remote=nvshmem | ${pass[nvshmem]} passed, ${fail[nvshmem]} failed |"
echo "| cuda backend refuses an NVSHMEM module | $refuse |"
echo "| collectives suite (auto, nvshmem) | ${coll[*]} |"
echo "| gemv_all_reduce (direct, auto, nvshmem) | ${gemv[*]} |"
echo "| torch interop tests (cuda, nvshmem backend) | ${torch[*]} |"
echo "failed: ${failed[*]:-none}"
[[ -n ${OUT:-} ]] && tar czf "$OUT/nvshmem-logs.tgz" -C "$DIR" logs
