#!/usr/bin/env bash
# peer-exit.sh BUNDLE: on one GPU, rank 0 of two waits in a kernel for a flag
# while rank 1 leaves with _exit(0) (test/Runtime/stalled-waits.mlir,
# compiled for sm_90). With the runtime in BUNDLE the wait ends at once,
# naming rank 1; with the one in BUNDLE/old (the runtime before the peer
# check), when one is there, it hangs until `timeout` ends it. A ring
# (test/Integration/ring.mlir) checks that polled synchronisation works.
# BUNDLE holds symm-run, libsymm_runtime.so, ring and stalled-waits. Prints a
# table last.
set -u
bundle=$(cd "$1" && pwd)
export SYMM_BACKEND=cuda NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 \
  NVSHMEM_DISABLE_NVLS=1
nvidia-smi -L
rows=()
run() { # NAME LIBDIR SECONDS PROGRAM: 2 ranks, the wall time and the status
  local start end status
  start=$(date +%s.%N)
  LD_LIBRARY_PATH=$2 timeout "$3" "$bundle/symm-run" -n 2 --backend cuda \
    --timeout 60 "$bundle/$4" > "/tmp/$1.log" 2>&1
  status=$?
  end=$(date +%s.%N)
  echo "== $1 (status $status)"
  cat "/tmp/$1.log"
  rows+=("$(printf '%-22s %6s %8.1f s  %s' "$1" "$status" \
    "$(awk "BEGIN { print $end - $start }")" \
    "$(grep -o 'rank 1 has exited[^:]*\|ring ok' "/tmp/$1.log" | head -1)")")
}
run ring "$bundle" 120 ring
run peer-exit "$bundle" 120 stalled-waits
if [ -f "$bundle/old/libsymm_runtime.so" ]; then
  run peer-exit-before "$bundle/old" 20 stalled-waits
fi
echo
printf '%-22s %6s %10s  %s\n' case status wall seen
printf '%s\n' "${rows[@]}"
