#!/usr/bin/env bash
# gemm on one H200 beside cuBLAS (torch.matmul, bf16), in one command.
#
# Here (after scripts/setup.sh):
#   bench/gemm/run.sh bundle [DIR]   # default DIR: .device-workloads
# builds into DIR the driver, its kernels as PTX (gemm.mlir for sm_90,
# gemm_hopper.mlir for sm_90a), symm-run, the runtime and
# the PyTorch baseline.
#
# There (an H200, CUDA 13, PyTorch; no LLVM), from the repository:
#   bench/gemm/run.sh gpu [DIR]
# checks (PASS) and times (--bench) every kernel found in DIR and both
# variants at 8192^3, 16384x3584x8192 and 4096x14336x8192 (M x N x K) on one
# GPU, times torch.matmul at the same shapes, and prints a table last: us per
# iteration, TFLOP/s, and the ratio to cuBLAS. Logs go to $OUT (the device
# machine's output folder) or DIR/results. A failing step is reported and the
# rest goes on. SYMM_GEMM_SHAPES (MxNxK ...) and SYMM_BENCH_BACKEND (default
# cuda) let the script be tried on a CPU rank.
set -uo pipefail
SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
HERE="$SELF/../workloads"
source "$HERE/common.sh"
read -r -a SHAPES <<< "${SYMM_GEMM_SHAPES:-8192x8192x8192 16384x3584x8192 4096x14336x8192}"

if [[ $MODE == bundle ]]; then
  set -e
  bundle_workload gemm "$SELF/gemm_torch.py"
  echo "bundle in $DIR ($(du -sh "$DIR" | cut -f1))"
  exit 0
fi
start_gpu_run gemm
KERNELS=portable
[[ -f gemm_hopper.ptx ]] && KERNELS=portable,hopper
# The time limits keep the whole call within 2 minutes (a normal run takes
# well under one).
gemm() {
  local limit=$1
  shift
  timeout "$limit" ./symm-run -n 1 --backend "$BACKEND" --timeout 20 ./gemm \
    "$@" >> "$LOG" 2>&1 || echo "FAILED: gemm $* (exit $?)" | tee -a "$LOG"
}
for shape in "${SHAPES[@]}"; do
  IFS=x read -r m n k <<< "$shape"
  echo "== gemm $shape: check and time --kernel=$KERNELS, both variants"
  gemm 25 --kernel="$KERNELS" --variant=persistent,tiled --m="$m" --n="$n" \
    --k="$k" --bench --iters=20 --warmup=3
done
IFS=x read -r m n k <<< "${SHAPES[0]}"
echo "== gemm ${SHAPES[0]}: the persistent variant with one block per SM"
gemm 15 --kernel="$KERNELS" --variant=persistent --m="$m" --n="$n" --k="$k" \
  --grid=132 --bench --iters=20 --warmup=3
echo "== torch.matmul (cuBLAS) at the same shapes"
timeout 25 python3 gemm_torch.py "${SHAPES[@]}" >> "$LOG" \
  2> "$RESULTS/gemm_torch.err" ||
  { echo "FAILED: torch baseline"; tail -5 "$RESULTS/gemm_torch.err"; }
grep -E "FAIL|: rank [0-9]+: " "$LOG" | head -10

echo "== summary (us per iteration; ratio = cuBLAS time / ours)"
python3 - "$LOG" <<'PY'
import re, sys
ours, torch, checks = {}, {}, {}
for line in open(sys.argv[1]):
    m = re.search(r"gemm (\w+) (\w+) m=(\d+) n=(\d+) k=(\d+) ranks=\d+ grid=(\d+): ([\d.]+) us/iter", line)
    if m:
        key = tuple(int(m[i]) for i in (3, 4, 5))
        ours.setdefault(key, []).append((f"{m[1]} {m[2]} grid={m[6]}", float(m[7])))
    m = re.search(r"gemm (\w+) (\w+) m=(\d+) n=(\d+) k=(\d+) ranks=\d+: (PASS|FAIL)", line)
    if m:
        checks[(tuple(int(m[i]) for i in (3, 4, 5)), m[1], m[2])] = m[6]
    m = re.search(r"torch matmul m=(\d+) n=(\d+) k=(\d+): ([\d.]+) us/iter", line)
    if m:
        torch[tuple(int(m[i]) for i in (1, 2, 3))] = float(m[4])
print(f"{'M x N x K':>18} {'what':>32} {'us':>10} {'TFLOP/s':>8} {'vs cuBLAS':>9}")
for shape in sorted(set(ours) | set(torch)):
    flops = 2 * shape[0] * shape[1] * shape[2]
    name = "x".join(map(str, shape))
    rows = sorted(ours.get(shape, []), key=lambda r: r[1])
    if shape in torch:
        rows.append(("cuBLAS (torch.matmul)", torch[shape]))
    for what, us in rows:
        ratio = f"{torch[shape] / us:.2f}" if shape in torch else "-"
        print(f"{name:>18} {what:>32} {us:>10.1f} {flops / us * 1e-6:>8.1f} {ratio:>9}")
bad = [f"{'x'.join(map(str, s))} {kn} {v}" for (s, kn, v), r in sorted(checks.items()) if r != "PASS"]
print("checks: " + ("every kernel and variant PASS" if checks and not bad else
                    "FAIL or missing: " + (", ".join(bad) or "no results")))
PY
