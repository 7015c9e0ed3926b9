#!/usr/bin/env bash
# On the GPU machine, from the folder scripts/gpu-bundle.sh filled: every
# integration program and example on all GPUs (cuda backend), a table last.
# The sm_90a programs (nvvm-hopper-gemm: TMA and warpgroup MMA) need Hopper
# GPUs (H100, H200).
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD NCCL_NVLS_ENABLE=0
N="${SYMM_BENCH_RANKS:-$(nvidia-smi -L | wc -l)}"
pass=0 fail=0 failed=()
for exe in *.exe; do
  name=${exe%.exe}
  [[ $name == message-passing-1m ]] && continue
  out=$(timeout 120 ./symm-run -n "$N" --backend cuda --timeout 60 "./$exe" 2>&1)
  rc=$?
  if [[ $rc == 0 ]]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    failed+=("$name:$rc")
    echo "== $name rc=$rc"
    echo "$out" | tail -6
  fi
done
echo "== message passing, 1M round trips"
timeout 120 ./symm-run -n 2 --backend cuda ./message-passing-1m.exe 2>&1 | tail -3
echo "integration on $N GPUs: $pass passed, $fail failed: ${failed[*]}"
