#!/usr/bin/env bash
# On the GPU machine, from the folder scripts/gpu-bundle.sh filled: every
# integration program and example on all GPUs (cuda backend), a table last.
# The sm_90a programs (nvvm-hopper-gemm: TMA and warpgroup MMA) need Hopper
# GPUs (H100, H200).
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD NCCL_NVLS_ENABLE=0
N="${SYMM_BENCH_RANKS:-$(nvidia-smi -L | wc -l)}"
pass=0 fail=0 failed=()
# run PROGRAM: runs PROGRAM on N ranks; sets out and rc.
run() {
  out=$(timeout 120 ./symm-run -n "$N" --backend cuda --timeout 60 "./$1" 2>&1)
  rc=$?
}
# tally NAME OK: counts NAME as passed when OK is 0, else prints its output.
tally() {
  if [[ $2 == 0 ]]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    failed+=("$1:$rc")
    echo "== $1 rc=$rc"
    echo "$out" | tail -6
  fi
}
for exe in *.exe; do
  name=${exe%.exe}
  [[ $name == message-passing-1m ]] && continue
  run "$exe"
  tally "$name" "$rc"
done
# An out-of-range peer under --check-ranks: the device's printf names the
# rank, the operation and the peer, the trap ends the rank with status 1.
run peer-out-of-range.trap
want="symm: rank [0-9]*: symm.store at .*peer-out-of-range.mlir:[0-9]*:[0-9]*: peer $((N + 3)) is out of range; valid peers are 0 to $((N - 1)) (world size $N)"
[[ $rc == 1 ]] && grep -q "$want" <<<"$out" &&
  grep -q "symm-run: rank [0-9]* exited with status 1" <<<"$out"
tally check-ranks $?
echo "== message passing, 1M round trips"
timeout 120 ./symm-run -n 2 --backend cuda ./message-passing-1m.exe 2>&1 | tail -3
echo "integration on $N GPUs: $pass passed, $fail failed: ${failed[*]}"
