#!/usr/bin/env bash
# gemm on one H100 or H200 beside cuBLAS (torch.matmul, bf16), in one command.
#
# Here (after scripts/setup.sh):
#   bench/gemm/run.sh bundle [DIR]   # default DIR: .device-workloads
# builds into DIR the driver, its kernels as PTX (gemm.mlir for sm_90,
# gemm_hopper.mlir for sm_90a), symm-run, the runtime and
# the PyTorch baseline.
#
# There (CUDA 13, PyTorch; no LLVM), from the repository:
#   bench/gemm/run.sh gpu [DIR]
# checks (PASS) and times (--bench) the kernels found in DIR on one GPU: every
# kernel (hopper_staged too) and both variants at the large shapes (8192^3, 16384x3584x8192 and
# 4096x14336x8192, M x N x K), the hopper kernel with its own schedule
# (--splits=auto) at small M (32 to 512 rows with N x K of 3584, 14336 and
# 28672 x 8192) and, where its 128x256 tiles are few, with the K splits of
# SYMM_GEMM_SPLITS too (default 1,2,4,6,9; empty: none); then checks ragged
# shapes (no timing), times torch.matmul at the timed shapes, and prints a
# table last: us per iteration, TFLOP/s, and the ratio to cuBLAS. Logs go to
# $OUT (the device machine's output folder) or DIR/results. A failing step is
# reported and the rest goes on. SYMM_GEMM_SHAPES and SYMM_GEMM_RAGGED
# (MxNxK ...) replace the shape lists; SYMM_BENCH_BACKEND (default cuda) lets
# the script be tried on a CPU rank.
set -uo pipefail
SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
HERE="$SELF/../workloads"
source "$HERE/common.sh"
read -r -a SHAPES <<< "${SYMM_GEMM_SHAPES:-8192x8192x8192 16384x3584x8192 \
4096x14336x8192 32x3584x8192 64x3584x8192 128x3584x8192 256x3584x8192 \
512x3584x8192 32x14336x8192 128x14336x8192 256x14336x8192 512x14336x8192 \
32x28672x8192 128x28672x8192 512x28672x8192}"
read -r -a RAGGED <<< "${SYMM_GEMM_RAGGED-1x8x8 200x328x136 127x264x72 \
4097x3592x1032 8000x8184x8200 77x14336x8192}"
SPLITS="${SYMM_GEMM_SPLITS-1,2,4,6,9}"

if [[ $MODE == bundle ]]; then
  bundle_workload gemm --copy "$SELF/gemm_torch.py"
  exit
fi
start_gpu_run gemm
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader \
  2>/dev/null | tee -a "$LOG"
HOPPER=0
[[ -f gemm_hopper.ptx || $BACKEND == host ]] && HOPPER=1
# The time limits keep the whole call within a few minutes (a normal run
# takes about two).
gemm() {
  local limit=$1
  shift
  timeout "$limit" ./symm-run -n 1 --backend "$BACKEND" --timeout 20 ./gemm \
    "$@" >> "$LOG" 2>&1 || echo "FAILED: gemm $* (exit $?)" | tee -a "$LOG"
}
for shape in "${SHAPES[@]}"; do
  IFS=x read -r m n k <<< "$shape"
  tiles=$(( (m + 127) / 128 * ((n + 255) / 256) ))
  if (( m % 128 == 0 && n % 256 == 0 && k % 64 == 0 && m >= 1024 )); then
    echo "== gemm $shape: both kernels and variants"
    kernels=portable
    (( HOPPER )) && kernels=portable,hopper
    # The library's staged epilogue too, where the driver has it.
    (( HOPPER )) && ./gemm --help | grep -q hopper_staged &&
      kernels=$kernels,hopper_staged
    gemm 30 --kernel="$kernels" --variant=persistent,tiled --m="$m" --n="$n" \
      --k="$k" --bench --iters=20 --warmup=3
  elif (( HOPPER )); then
    # Where the tiles leave SMs idle, the K splits beside the chosen one.
    splits=()
    (( 2 * tiles <= 132 )) && [[ -n $SPLITS ]] && splits=(--splits="auto,$SPLITS")
    echo "== gemm $shape: hopper ${splits[*]}"
    gemm 30 --kernel=hopper --m="$m" --n="$n" --k="$k" "${splits[@]}" \
      --bench --iters=50 --warmup=5
  fi
done
if (( HOPPER )); then
  for shape in "${RAGGED[@]}"; do
    IFS=x read -r m n k <<< "$shape"
    echo "== gemm $shape: hopper, checked"
    # Three splits where K has three 64-deep steps to split (the driver
    # refuses more splits than steps).
    splits=auto,1
    (( (k + 63) / 64 >= 3 )) && splits+=,3
    gemm 30 --kernel=hopper --variant=persistent,tiled --m="$m" --n="$n" \
      --k="$k" --splits="$splits"
  done
fi
echo "== torch.matmul (cuBLAS) at the timed shapes"
timeout 60 python3 gemm_torch.py "${SHAPES[@]}" >> "$LOG" \
  2> "$RESULTS/gemm_torch.err" ||
  { echo "FAILED: torch baseline"; tail -5 "$RESULTS/gemm_torch.err"; }
grep -E "FAIL|: rank [0-9]+: " "$LOG" | head -10

echo "== summary (us per iteration; ratio = cuBLAS time / ours)"
python3 - "$LOG" <<'PY'
import re, sys
ours, torch, checks = {}, {}, {}
line_re = r"gemm (\w+) (\w+) m=(\d+) n=(\d+) k=(\d+)(?: splits=(\d+))? ranks=\d+"
for line in open(sys.argv[1]):
    m = re.search(line_re + r" grid=(\d+): ([\d.]+) us/iter", line)
    if m:
        key = tuple(int(m[i]) for i in (3, 4, 5))
        what = f"{m[1]} {m[2]}" + (f" S={m[6]}" if m[6] else "") + f" grid={m[7]}"
        ours.setdefault(key, []).append((what, float(m[8])))
    m = re.search(line_re + r": (PASS|FAIL)", line)
    if m:
        checks[(tuple(int(m[i]) for i in (3, 4, 5)), m[1], m[2], m[6])] = m[7]
    m = re.search(r"torch matmul m=(\d+) n=(\d+) k=(\d+): ([\d.]+) us/iter", line)
    if m:
        torch[tuple(int(m[i]) for i in (1, 2, 3))] = float(m[4])
print(f"{'M x N x K':>16} {'what':>30} {'us':>9} {'TFLOP/s':>7} {'vs cuBLAS':>9}")
for shape in sorted(set(ours) | set(torch), key=lambda s: (s[1], s[0], s[2])):
    flops = 2 * shape[0] * shape[1] * shape[2]
    name = "x".join(map(str, shape))
    rows = sorted(ours.get(shape, []), key=lambda r: r[1])
    if shape in torch:
        rows.append(("cuBLAS (torch.matmul)", torch[shape]))
    for what, us in rows:
        ratio = f"{torch[shape] / us:.2f}" if shape in torch else "-"
        print(f"{name:>16} {what:>30} {us:>9.1f} {flops / us * 1e-6:>7.1f} {ratio:>9}")
bad = [f"{'x'.join(map(str, s))} {kn} {v} S={sp}" for (s, kn, v, sp), r in sorted(checks.items(), key=str) if r != "PASS"]
# A run that stopped before its checks (a refused argument, a timeout) has
# no PASS or FAIL line: its FAILED line counts too.
bad += [line.split("FAILED: ", 1)[1].strip() for line in open(sys.argv[1]) if line.startswith("FAILED: ")]
print(f"checks: {len(checks)}, " + ("every kernel, variant and split PASS" if checks and not bad else
                    "FAIL or missing: " + (", ".join(bad) or "no results")))
PY
