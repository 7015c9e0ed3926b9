#!/usr/bin/env bash
# flash_decode on the GPUs in one command.
#
# Here (after scripts/setup.sh; needs NCCL's header and library):
#   bench/workloads/flash_decode.sh bundle [DIR]   # default DIR: .device-workloads
# builds the driver, its sm_90 PTX kernels, the runtime and symm-run into DIR,
# and flash_decode_nccl: the same driver with the bulk_nccl variant (the same
# attention and combine kernels around ncclAllGather), the baseline.
#
# There (2x H200, CUDA 13, PyTorch with NCCL; no LLVM), from the repository:
#   bench/workloads/flash_decode.sh gpu [DIR]
# runs, for 96 heads of dimension 128 and L in 32K, 128K, 512K, every variant
# on 2 GPUs with --bench (each run first checks its result on every rank:
# PASS/FAIL), and prints a table last. Logs go to $OUT (the device machine's
# output folder) or DIR/results. A failing step is reported and the others
# still run.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/common.sh"
# SYMM_FD_LENGTHS, SYMM_FD_HEADS and SYMM_BENCH_BACKEND (default cuda) let
# the script be tried on CPU ranks.
read -r -a LENGTHS <<< "${SYMM_FD_LENGTHS:-32K 128K 512K}"
HEADS="${SYMM_FD_HEADS:-96}"

if [[ $MODE == bundle ]]; then
  bundle_workload flash_decode --cxxflags -DFLASH_DECODE_NCCL \
    --nccl-program examples/flash_decode/flash_decode.cpp flash_decode_nccl
  exit
fi
# The NCCL baseline loads PyTorch's NCCL (gpu_run_setup puts it on the path).
start_gpu_run flash_decode
failed=()

for L in "${LENGTHS[@]}"; do
  for variant in bulk_nccl bulk_sync fine_grained fused; do
    exe=./flash_decode
    [[ $variant == bulk_nccl ]] && exe=./flash_decode_nccl
    echo "== flash_decode $variant heads=$HEADS D=128 L=$L" | tee -a "$LOG"
    if ! timeout 120 ./symm-run -n "$N" --backend "$BACKEND" --timeout 60 "$exe" \
        --variant "$variant" --heads "$HEADS" --length "$L" --bench \
        --iters 30 --warmup 3 >> "$LOG" 2>&1; then
      failed+=("$variant L=$L")
      echo "FAILED: $variant L=$L (see $LOG)"
    fi
    grep -E "PASS|FAIL|us/iter|error|rank [01]:" "$LOG" | tail -3
  done
done

echo "== summary (us per iteration, slowest rank)"
python3 - "$LOG" <<'PY'
import re, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.search(r"flash_decode (\w+) W=\d+ heads=(\d+) .*L=(\d+) .*total ([\d.]+) us/iter.*"
                  r"attention kernel alone ([\d.]+) us \(([\d.]+) GB/s", line)
    if m:
        rows.setdefault((m.group(2), m.group(3)), {})[m.group(1)] = (
            float(m.group(4)), float(m.group(5)), float(m.group(6)))
print(f"{'heads':>5} {'L':>8} {'variant':>13} {'total':>10} {'attn alone':>10} {'attn GB/s':>9} {'nccl/this':>9}")
for (heads, length), by in rows.items():
    base = by.get("bulk_nccl", (None,))[0]
    for name in ("bulk_nccl", "bulk_sync", "fine_grained", "fused"):
        if name in by:
            t, a, bw = by[name]
            ratio = f"{base / t:.2f}x" if base else "-"
            print(f"{heads:>5} {length:>8} {name:>13} {t:10.1f} {a:10.1f} {bw:9.0f} {ratio:>9}")
PY
if ((${#failed[@]})); then
  echo "failed steps: ${failed[*]}"
  exit 1
fi
