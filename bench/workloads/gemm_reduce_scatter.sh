#!/usr/bin/env bash
# gemm_reduce_scatter on the GPUs, beside cuBLAS + NCCL (torch.matmul +
# reduce_scatter_tensor) and torch's fused_matmul_reduce_scatter.
#
# Here (after scripts/setup.sh):
#   bench/workloads/gemm_reduce_scatter.sh bundle [DIR]   # default .device-workloads
# builds into DIR the driver, its kernels as sm_90 PTX (the hopper kernel,
# gemm_reduce_scatter_hopper.mlir, as sm_90a PTX), symm-run, the runtime and
# the PyTorch baseline.
#
# There (2x H200, CUDA 13, PyTorch with NCCL; no LLVM), from the repository:
#   bench/workloads/gemm_reduce_scatter.sh gpu [DIR]
# checks and times every variant with --kernel=hopper (PASS on every rank; a
# sample of each rank's rows against the host reference) at 16384x3584x8192
# and 4096x28672x8192 (M x N x K global, K split, rows scattered), the
# portable kernel's variants once at the first shape, times torch's matmul,
# reduce-scatter, both, and symm_mem.fused_matmul_reduce_scatter, and prints
# a table last. Logs go to $OUT (the device machine's output folder) or
# DIR/results. A failing step is reported and the rest goes on; the whole run
# takes at most about two minutes.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/common.sh"
# M,N,K shapes; SYMM_GEMM_SHAPES and SYMM_BENCH_BACKEND (default cuda) let
# the script be tried on CPU ranks.
SHAPES="${SYMM_GEMM_SHAPES:-16384,3584,8192 4096,28672,8192}"

if [[ $MODE == bundle ]]; then
  bundle_workload gemm_reduce_scatter --copy "$HERE/gemm_reduce_scatter.sh" \
    --copy "$HERE/common.sh" \
    --copy "$HERE/gemm_collectives_torch.py"
  exit
fi
start_gpu_run gemm_reduce_scatter
for shape in $SHAPES; do
  IFS=, read -r m n k <<< "$shape"
  echo "== gemm_reduce_scatter m=$m n=$n k=$k: check and time every variant (hopper)"
  timeout 30 ./symm-run -n "$N" --backend "$BACKEND" --heap-size 4G --timeout 25 \
    ./gemm_reduce_scatter --kernel=hopper --m="$m" --n="$n" --k="$k" --bench \
    --iters=20 >> "$LOG" 2>&1 ||
    echo "FAILED: gemm_reduce_scatter hopper $shape (exit $?)" | tee -a "$LOG"
done
# The portable kernel once, first shape, for the record.
IFS=, read -r m n k <<< "${SHAPES%% *}"
echo "== gemm_reduce_scatter m=$m n=$n k=$k: every variant (portable)"
timeout 30 ./symm-run -n "$N" --backend "$BACKEND" --heap-size 4G --timeout 25 \
  ./gemm_reduce_scatter --kernel=portable --m="$m" --n="$n" --k="$k" --bench \
  --iters=10 >> "$LOG" 2>&1 ||
  echo "FAILED: gemm_reduce_scatter portable (exit $?)" | tee -a "$LOG"
echo "== torch: cuBLAS matmul + NCCL reduce_scatter_tensor; fused_matmul_reduce_scatter"
timeout 35 torchrun --nproc-per-node "$N" --master-port "${MASTER_PORT:-29545}" \
  gemm_collectives_torch.py reduce_scatter $SHAPES >> "$LOG" \
  2> "$RESULTS/gemm_reduce_scatter_torch.err" ||
  { echo "FAILED: torch baseline (exit $?)"; tail -5 "$RESULTS/gemm_reduce_scatter_torch.err"; }
grep -E "FAIL|failed|: rank [0-9]+: " "$LOG" | head -10

echo "== summary (us per iteration, rank 0; ratio = torch matmul+reduce_scatter / Symm; kernel and grid in parentheses)"
python3 - "$LOG" <<'PY'
import re, sys
variants = ["bulk_sync", "fused", "fused_atomic"]
symm, torch, fused, passes = {}, {}, {}, {}
for line in open(sys.argv[1]):
    g = re.search(r"\[rank 0\] gemm_reduce_scatter (\w+) m=(\d+) n=(\d+) k=(\d+) ranks=\d+( kernel=hopper)? grid=(\d+).*: ([\d.]+) us/iter, ([\d.]+) TFLOP/s", line)
    if g:
        kernel = "hopper" if g[5] else "portable"
        symm.setdefault((int(g[2]), int(g[3]), int(g[4]), g[1]), []).append((float(g[7]), float(g[8]), kernel, int(g[6])))
    g = re.search(r"gemm_reduce_scatter (\w+) m=(\d+) n=(\d+) k=(\d+) ranks=\d+( kernel=hopper)?: (PASS|FAIL)", line)
    if g:
        kernel = "hopper" if g[5] else "portable"
        passes.setdefault((int(g[2]), int(g[3]), int(g[4]), g[1], kernel), set()).add(g[6])
    g = re.search(r"torch reduce_scatter m=(\d+) n=(\d+) k=(\d+): matmul ([\d.]+) us \((\d+) TFLOP/s\), reduce_scatter ([\d.]+) us, matmul\+reduce_scatter ([\d.]+) us", line)
    if g:
        torch[(int(g[1]), int(g[2]), int(g[3]))] = [float(g[i]) for i in (4, 5, 6, 7)]
    g = re.search(r"torch fused_matmul_reduce_scatter m=(\d+) n=(\d+) k=(\d+): ([\d.]+) us", line)
    if g:
        fused[(int(g[1]), int(g[2]), int(g[3]))] = float(g[4])
shapes = sorted({s[:3] for s in symm} | {s[:3] for s in passes} | set(torch))
print(f"{'M x N x K':>18} {'variant (kernel grid)':>30} {'us':>9} {'TFLOP/s':>8} {'ratio':>6} check")
for s in shapes:
    t, f = torch.get(s), fused.get(s)
    name = "x".join(map(str, s))
    if t:
        print(f"{name:>18} {'torch matmul':>30} {t[0]:>9.1f} {t[1]:>8.0f}")
        print(f"{'':>18} {'torch reduce_scatter':>30} {t[2]:>9.1f}")
        print(f"{'':>18} {'torch mm+rs':>30} {t[3]:>9.1f}")
        name = ""
    if f:
        print(f"{name:>18} {'torch fused_mm_rs':>30} {f:>9.1f}")
        name = ""
    for v in variants:
        for r in symm.get(s + (v,)) or [None]:
            kernel = r[2] if r else "hopper"
            ok = "PASS" if passes.get(s + (v, kernel)) == {"PASS"} else "FAIL/missing"
            ratio = f"{t[3] / r[0]:.2f}" if r and t else "-"
            vs_fused = f" ({f / r[0]:.2f}x torch fused)" if r and f else ""
            us = f"{r[0]:.1f}" if r else "-"
            tf = f"{r[1]:.0f}" if r else "-"
            label = f"{v} ({r[2]} {r[3]})" if r else v
            print(f"{name:>18} {label:>30} {us:>9} {tf:>8} {ratio:>6} {ok}{vs_fused}")
            name = ""
PY
