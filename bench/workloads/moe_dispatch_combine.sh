#!/usr/bin/env bash
# moe_dispatch_combine on the GPUs in one command.
#
# Here (after scripts/setup.sh):
#   bench/workloads/moe_dispatch_combine.sh bundle [DIR]   # default DIR: .device-workloads
# builds the driver, its sm_90 PTX kernels, the runtime and symm-run into DIR,
# with the PyTorch baselines.
#
# There (2x H200, CUDA 13, PyTorch with NCCL; no LLVM), from the repository:
#   bench/workloads/moe_dispatch_combine.sh gpu [DIR]
# checks both variants at every shape on 2 GPUs (PASS on every rank), times
# them (--bench: dispatch, expert and combine separately) and the PyTorch
# versions, all_to_all_single and symm_mem.all_to_all_vdev (NVSHMEM; skipped
# with a line saying why where PyTorch lacks it), and prints a table last.
# Logs go to $OUT (the device machine's output folder) or DIR/results. A
# failing step is reported and the others still run.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/common.sh"
# E K H T_MAX: the competition's shape, then smaller ones.
# SYMM_MOE_SHAPES and SYMM_BENCH_BACKEND (default cuda) let the script be
# tried on CPU ranks.
read -r -a SHAPES <<< "${SYMM_MOE_SHAPES:-256,8,7168,256 64,6,4096,128 32,4,2048,64}"

if [[ $MODE == bundle ]]; then
  bundle_workload moe_dispatch_combine --copy "$HERE/moe_dispatch_combine_torch.py"
  exit
fi
start_gpu_run moe_dispatch_combine
failed=()

for shape in "${SHAPES[@]}"; do
  IFS=, read -r E K H T <<< "$shape"
  for variant in bulk_sync fused; do
    echo "== moe_dispatch_combine $variant E=$E k=$K H=$H T_max=$T" | tee -a "$LOG"
    # The driver checks every rank (PASS/FAIL) before it times.
    if ! timeout 120 ./symm-run -n "$N" --backend "$BACKEND" --heap-size 2G --timeout 60 \
        ./moe_dispatch_combine --variant "$variant" --experts "$E" --topk "$K" \
        --hidden "$H" --max-tokens "$T" --bench --iters 50 --warmup 5 \
        >> "$LOG" 2>&1; then
      failed+=("$variant $shape")
      echo "FAILED: $variant $shape (see $LOG)"
    fi
    grep -E "PASS|FAIL|us/iter|error" "$LOG" | tail -3
  done
done

# The PyTorch baselines; the all_to_all_vdev one prints why it skips where
# PyTorch has no NVSHMEM.
for baseline in all_to_all_single "all_to_all_vdev --vdev"; do
  read -r name flag <<< "$baseline"
  echo "== PyTorch $name baseline" | tee -a "$LOG"
  # shellcheck disable=SC2086
  if ! timeout 180 torchrun --nproc-per-node "$N" --master-port "${MASTER_PORT:-29541}" \
      moe_dispatch_combine_torch.py $flag ${SHAPES[*]//,/ } >> "$LOG" 2>&1; then
    failed+=("torch $name baseline")
    echo "FAILED: torch $name baseline (see $LOG)"
    tail -5 "$LOG"
  fi
done
grep "torch_vdev: skipped" "$LOG"

echo "== summary (us per iteration, slowest rank; Symm's phases drained one by one)"
python3 - "$LOG" <<'EOF'
import re, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.search(r"moe_dispatch_combine (\w+) W=\d+ E=(\d+) k=(\d+) H=(\d+) T_max=(\d+)"
                  r".*total ([\d.]+) us.*dispatch ([\d.]+) us, expert ([\d.]+) us.*combine ([\d.]+) us", line)
    if m:
        rows.setdefault(m.group(2, 3, 4, 5), {})[m.group(1)] = m.group(6, 7, 8, 9)
    m = re.search(r"(torch|torch_vdev) E=(\d+) k=(\d+) H=(\d+) T_max=(\d+): (\w+).*dispatch ([\d.]+) us, "
                  r"expert ([\d.]+) us, combine ([\d.]+) us, total ([\d.]+) us", line)
    if m:
        t = m.group(7, 8, 9, 10)
        rows.setdefault(m.group(2, 3, 4, 5), {})[m.group(1)] = (t[3], t[0], t[1], t[2])
print(f"{'E k H T_max':>18} {'variant':>10} {'total':>9} {'dispatch':>9} {'expert':>9} {'combine':>9} "
      f"{'torch/this':>10} {'vdev/this':>9} {'bulk/this':>9}")
for shape, by in rows.items():
    def ratio(base, t):
        return f"{float(by[base][0]) / t:.2f}x" if base in by and t else "-"
    for name in ("torch", "torch_vdev", "bulk_sync", "fused"):
        if name in by:
            t = [float(v) for v in by[name]]
            print(f"{' '.join(shape):>18} {name:>10} {t[0]:9.1f} {t[1]:9.1f} {t[2]:9.1f} {t[3]:9.1f} "
                  f"{ratio('torch', t[0]):>10} {ratio('torch_vdev', t[0]):>9} {ratio('bulk_sync', t[0]):>9}")
EOF
if ((${#failed[@]})); then
  echo "failed steps: ${failed[*]}"
  exit 1
fi
