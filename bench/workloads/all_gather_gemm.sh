#!/usr/bin/env bash
# all_gather_gemm on the GPUs, beside NCCL + cuBLAS and PyTorch's
# fused_all_gather_matmul.
#
# Here (after scripts/setup.sh; needs nothing from CUDA but the runtime's
# cuda backend, which is always built):
#   bench/workloads/all_gather_gemm.sh bundle [DIR]   # default .device-workloads
# builds into DIR the driver, its portable kernels as sm_90 PTX, its Hopper
# kernels (all_gather_gemm_hopper.mlir) as sm_90a PTX, symm-run, the
# runtime and the PyTorch baselines.
#
# There (2x H200, CUDA 13, PyTorch with NCCL; no LLVM), from the repository:
#   bench/workloads/all_gather_gemm.sh gpu [DIR]
# checks every variant with --kernel=hopper (PASS on every rank) and times
# it at the two benchmark shapes, M x N x K = 16384 x 3584 x 8192 and
# 4096 x (28672 / W) x 8192 (N per rank), and the portable kernel's variants
# once, at the first shape, for the record; then times torch on the same
# shapes (cuBLAS alone, NCCL all-gather alone, both,
# torch.ops.symm_mem.fused_all_gather_matmul) and prints a table last. Logs go to $OUT (the device machine's output folder)
# or DIR/results. A failing step is reported and the rest goes on; the whole
# call takes under two minutes.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/common.sh"
SHAPES="${SYMM_AGG_SHAPES:-16384,3584,8192 4096,$((28672 / N)),8192}"

if [[ $MODE == bundle ]]; then
  bundle_workload all_gather_gemm --copy "$HERE/all_gather_gemm.sh" \
    --copy "$HERE/common.sh" \
    --copy "$HERE/all_gather_gemm_torch.py"
  exit
fi

start_gpu_run all_gather_gemm
# A_shard, the gathered A (256 MB at M = 16384) and the collectives' channels.
export SYMM_HEAP_SIZE=2G
# run KERNEL M N K: checks and times every variant of KERNEL at one shape.
run() {
  echo "== all_gather_gemm --kernel=$1 m=$2 n=$3 k=$4: check and time bulk_sync, pull, push, fused"
  timeout 35 ./symm-run -n "$N" --backend "$BACKEND" --timeout 30 ./all_gather_gemm \
    --kernel="$1" --variant=bulk_sync,pull,push,fused --m="$2" --n="$3" \
    --k="$4" --bench --iters=20 --warmup=3 >> "$LOG" 2>&1 ||
    echo "FAILED: all_gather_gemm --kernel=$1 m=$2 n=$3 k=$4 (exit $?)" | tee -a "$LOG"
}
if [[ -f all_gather_gemm_hopper.ptx ]]; then
  for shape in $SHAPES; do
    IFS=, read -r m n k <<< "$shape"
    run hopper "$m" "$n" "$k"
  done
else
  echo "FAILED: no all_gather_gemm_hopper.ptx in the bundle" | tee -a "$LOG"
fi
IFS=, read -r m n k <<< "${SHAPES%% *}"
run portable "$m" "$n" "$k"

grep -E "FAIL|: rank [0-9]+: " "$LOG" | head -10
echo "== torch: cuBLAS, NCCL all-gather, both, symm_mem fused_all_gather_matmul"
timeout 40 torchrun --nproc-per-node "$N" --master-port "${MASTER_PORT:-29543}" \
  all_gather_gemm_torch.py "$SHAPES" >> "$LOG" 2> "$RESULTS/all_gather_gemm_torch.err" ||
  { echo "FAILED: torch baselines (exit $?)"; tail -5 "$RESULTS/all_gather_gemm_torch.err"; }
grep -E "^torch|FAILED" "$LOG" | head -10

echo "== summary (us per iteration, rank 0; ratio = NCCL + cuBLAS / variant)"
python3 - "$LOG" "${SHAPES%% *}" <<'EOF'
import re, sys
symm, torch, passes = {}, {}, {}
for line in open(sys.argv[1]):
    m = re.search(r"\[rank 0\] all_gather_gemm (\w+) (\w+) m=(\d+) n=(\d+) k=(\d+) ranks=\d+ grid=\d+.*: ([\d.]+) us/iter, ([\d.]+) TFLOP/s", line)
    if m:
        symm[(int(m[3]), int(m[4]), int(m[5]), m[1] + " " + m[2])] = (float(m[6]), float(m[7]))
    m = re.search(r"all_gather_gemm (\w+) (\w+) m=(\d+) n=(\d+) k=(\d+) ranks=\d+: (PASS|FAIL)", line)
    if m:
        passes.setdefault((int(m[3]), int(m[4]), int(m[5]), m[1] + " " + m[2]), set()).add(m[6])
    m = re.search(r"^torch m=(\d+) n=(\d+) k=(\d+): cublas ([\d.]+) us \((\d+) TFLOP/s\), nccl_all_gather ([\d.]+) us, nccl\+cublas ([\d.]+) us, symm_mem_fused (?:([\d.]+) us)?", line)
    if m:
        torch[(int(m[1]), int(m[2]), int(m[3]))] = (float(m[4]), float(m[5]), float(m[6]), float(m[7]), float(m[8]) if m[8] else None)
portable_shape = tuple(int(x) for x in sys.argv[2].split(","))
variants = [f"{kernel} {v}" for kernel in ("hopper", "portable")
            for v in ("bulk_sync", "pull", "push", "fused")]
shapes = sorted({s[:3] for s in symm} | {s[:3] for s in passes} | set(torch))
for s in shapes:
    t = torch.get(s)
    print(f"M={s[0]} N={s[1]} K={s[2]} (per rank)")
    if t:
        print(f"  {'torch cuBLAS GEMM alone':28} {t[0]:9.1f} us  {t[1]:5.0f} TFLOP/s")
        print(f"  {'torch NCCL all-gather alone':28} {t[2]:9.1f} us")
        print(f"  {'torch NCCL + cuBLAS':28} {t[3]:9.1f} us  ratio 1.00")
        if t[4]:
            print(f"  {'torch symm_mem fused':28} {t[4]:9.1f} us  ratio {t[3] / t[4]:.2f}")
        else:
            print(f"  {'torch symm_mem fused':28} {'-':>9}     (failed: see the log)")
    for v in variants:
        if v.startswith("portable") and s != portable_shape:
            continue  # the portable kernel runs at the first shape only
        r = symm.get(s + (v,))
        ok = "PASS" if passes.get(s + (v,)) == {"PASS"} else "FAIL/missing"
        if r:
            ratio = f"ratio {t[3] / r[0]:.2f}" if t else ""
            print(f"  {'symm ' + v:28} {r[0]:9.1f} us  {r[1]:5.0f} TFLOP/s  {ratio:11} {ok}")
        else:
            print(f"  {'symm ' + v:28} {'-':>9}     {ok}")
EOF
