#!/usr/bin/env bash
# Every integration program and example on the GPUs (cuda backend), a table
# last.
#
# Here (after scripts/setup.sh; nvcc and NCCL's header for the benchmark):
#   scripts/gpu-integration.sh bundle [DIR]     # default DIR: .device
# compiles into DIR the programs for sm_90 (SYMM_CHIP; those with Hopper's TMA
# or warpgroup MMA for sm_90a), an out-of-range peer under --check-ranks, 10^6
# message-passing round trips, the launch checks' module and the peer-put,
# flag and all-gather benchmark (bench/bench.cu), with symm-run, symm-launch
# and the runtime.
#
# There (CUDA; no LLVM), from the repository or from the bundle:
#   scripts/gpu-integration.sh gpu [DIR]    # or DIR/gpu-integration.sh gpu
# runs each program on every GPU (SYMM_BENCH_RANKS overrides), checks that
# the out-of-range peer is reported, and prints the counts last. The sm_90a
# programs (nvvm-hopper-gemm: TMA and warpgroup MMA) need Hopper GPUs (H100,
# H200). docs/GPU.md has the launch checks and the benchmark.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MODE="${1:-gpu}"
# The bundle's own copy runs its folder.
DEFAULT="$HERE/../.device"
[[ -x $HERE/symm-run ]] && DEFAULT="$HERE"
DIR="$(realpath -m "${2:-$DEFAULT}")"

if [[ $MODE == bundle ]]; then
  set -e
  mkdir -p "$DIR"
  # --check-ranks on the GPU: a peer 3 past the last rank prints the rank,
  # the operation and the peer, and traps (a .trap, so that the loop over
  # *.exe leaves it alone).
  sed -e 's/SCALE/1/' -e 's/OFFSET/3/' "$HERE/../test/Integration/peer-out-of-range.mlir" \
    > "$DIR/peer-out-of-range.mlir"
  # One million release/acquire round trips instead of a thousand.
  sed 's/%iters = arith.constant 1000 : i32/%iters = arith.constant 1000000 : i32/' \
    "$HERE/../test/Integration/message-passing.mlir" > "$DIR/message-passing-1m.mlir"
  exec "$HERE/gpu-bundle.sh" --build symm-launch --programs exe \
    --compile "$DIR/message-passing-1m.mlir" message-passing-1m.exe \
    --compile test/Runtime/launch-errors.mlir launch.cubin \
    --compile bench/kernels.mlir bench.cubin \
    --nccl-program bench/bench.cu bench-gpu --bin symm-launch \
    --flags --check-ranks --compile "$DIR/peer-out-of-range.mlir" peer-out-of-range.trap \
    --copy scripts/gpu-integration.sh "$DIR"
fi
if [[ $MODE != gpu ]]; then
  echo "usage: $0 bundle|gpu [DIR]" >&2
  exit 2
fi

source "$DIR/gpu-bundle.sh"
gpu_run_setup "$DIR"
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
