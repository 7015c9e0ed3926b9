#!/usr/bin/env bash
# gemv_all_reduce on the GPUs, beside cuBLAS GEMV + NCCL all-reduce.
#
# Here (after scripts/setup.sh; needs nothing from CUDA but the runtime's
# cuda backend, which is always built):
#   bench/workloads/gemv_all_reduce.sh bundle [DIR]   # default .device-workloads
# builds into DIR the driver, its kernels as sm_90 PTX, symm-run, the
# runtime and the PyTorch baseline.
#
# There (2x H200, CUDA 13, PyTorch with NCCL; no LLVM), from the repository:
#   bench/workloads/gemv_all_reduce.sh gpu [DIR]
# checks every variant (PASS on both ranks) and times it at M = 8192, 28672,
# 65536 and K = 8192, compares the fused result at M = 8192 with cuBLAS +
# NCCL on the same inputs, times torch (cuBLAS GEMV, NCCL all-reduce, both),
# and prints a table last. Logs go to $OUT (the device machine's output
# folder) or DIR/results. A failing step is reported and the rest goes on.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/common.sh"
SHAPES="${SYMM_GEMV_SHAPES:-8192 28672 65536}"
K=8192

if [[ $MODE == bundle ]]; then
  bundle_workload gemv_all_reduce --copy "$HERE/gemv_all_reduce.sh" \
    --copy "$HERE/common.sh" \
    --copy "$HERE/gemv_all_reduce_torch.py"
  exit
fi

start_gpu_run gemv_all_reduce
# The first shape's inputs and fused result, for the comparison with torch.
DUMP="$(mktemp -d)"
DUMP_M="${SHAPES%% *}"
trap 'rm -rf "$DUMP"' EXIT
for m in $SHAPES; do
  echo "== gemv_all_reduce m=$m k=$K: check and time gemv, bulk_sync, fused"
  dump=()
  [[ $m == "$DUMP_M" ]] && dump=(--dump="$DUMP/gemv")
  timeout 120 ./symm-run -n "$N" --backend "$BACKEND" --timeout 90 ./gemv_all_reduce \
    --variant=gemv,bulk_sync,fused --m="$m" --k=$K --bench --iters=200 \
    ${dump[@]+"${dump[@]}"} >> "$LOG" 2>&1 ||
    echo "FAILED: gemv_all_reduce m=$m (exit $?)" | tee -a "$LOG"
done
m=28672
echo "== fused at m=$m with other grids"
for grid in 132 396; do
  timeout 60 ./symm-run -n "$N" --backend "$BACKEND" --timeout 50 ./gemv_all_reduce \
    --variant=fused,gemv --m=$m --k=$K --grid=$grid --bench --iters=200 \
    >> "$LOG" 2>&1 || echo "FAILED: grid=$grid (exit $?)" | tee -a "$LOG"
done
echo "== torch: fused m=$DUMP_M against cuBLAS + NCCL; cuBLAS GEMV + NCCL all-reduce"
timeout 120 torchrun --nproc-per-node "$N" --master-port "${MASTER_PORT:-29541}" \
  gemv_all_reduce_torch.py $K "$SHAPES" "$DUMP/gemv" "$DUMP_M" >> "$LOG" \
  2> "$RESULTS/gemv_torch.err" ||
  { echo "FAILED: torch baseline"; tail -5 "$RESULTS/gemv_torch.err"; }
grep -E "FAIL|: rank [0-9]+: |torch check" "$LOG" | head -10

echo "== summary (us per iteration, rank 0; ratio = torch gemv+all_reduce / fused)"
python3 - "$LOG" <<'EOF'
import re, sys
symm, torch = {}, {}
for line in open(sys.argv[1]):
    m = re.search(r"\[rank 0\] gemv_all_reduce (\w+) m=(\d+) k=\d+ ranks=\d+ grid=(\d+): ([\d.]+) us/iter, ([\d.]+) GB/s", line)
    if m:
        symm.setdefault((int(m[2]), m[1]), []).append((float(m[4]), int(m[3]), float(m[5])))
    m = re.search(r"torch m=(\d+) k=\d+: cublas_gemv ([\d.]+) us \((\d+) GB/s\), nccl_all_reduce ([\d.]+) us, gemv\+all_reduce ([\d.]+) us", line)
    if m:
        torch[int(m[1])] = [float(m[i]) for i in (2, 3, 4, 5)]
passes = {}
for line in open(sys.argv[1]):
    m = re.search(r"gemv_all_reduce (\w+) m=(\d+) .*: (PASS|FAIL)", line)
    if m:
        passes.setdefault((int(m[2]), m[1]), set()).add(m[3])
print(f"{'M':>6} {'symm gemv':>16} {'cublas gemv':>16} {'bulk_sync':>10} {'fused':>8} {'torch+nccl':>11} {'ratio':>6} check")
for mm in sorted({k[0] for k in symm} | set(torch)):
    def best(v):
        r = symm.get((mm, v))
        return min(r) if r else None
    g, b, f, t = best("gemv"), best("bulk_sync"), best("fused"), torch.get(mm)
    cell = lambda r: f"{r[0]:.1f}" if r else "-"
    gcell = f"{g[0]:.1f} ({g[2]:.0f}GB/s)" if g else "-"
    tcell = f"{t[0]:.1f} ({t[1]:.0f}GB/s)" if t else "-"
    ratio = f"{t[3] / f[0]:.2f}" if t and f else "-"
    ok = all(passes.get((mm, v)) == {"PASS"} for v in ("gemv", "bulk_sync", "fused"))
    print(f"{mm:>6} {gcell:>16} {tcell:>16} {cell(b):>10} {cell(f):>8} {(f'{t[3]:.1f}' if t else '-'):>11} {ratio:>6} {'PASS' if ok else 'FAIL/missing'}")
for (mm, v), rs in sorted(symm.items()):
    if len(rs) > 1:
        print(f"  m={mm} {v}: " + ", ".join(f"grid {gr}: {us:.1f} us" for us, gr, _ in sorted(rs, key=lambda r: r[1])))
EOF
