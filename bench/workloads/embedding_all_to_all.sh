#!/usr/bin/env bash
# embedding_all_to_all on the GPUs, beside embedding_bag + NCCL all-to-all.
#
# Here (after scripts/setup.sh):
#   bench/workloads/embedding_all_to_all.sh bundle [DIR]  # default .device-workloads
# builds into DIR the driver, its kernels as sm_90 PTX, symm-run, the
# runtime and the PyTorch baseline.
#
# There (2x H200, CUDA 13, PyTorch with NCCL; no LLVM), from the repository:
#   bench/workloads/embedding_all_to_all.sh gpu [DIR]
# checks both variants (PASS on both ranks) and times them for B = 256, 1024,
# 4096 x T = 16, 64, 256 tables per rank (D = 128, L = 32, 4096 rows per
# table), compares the fused result at the first shape with embedding_bag +
# NCCL on the same tables and ids, then times torch (F.embedding_bag, all_to_all_single, the permute
# that puts a bag's slices side by side), and prints a table last. Logs go
# to $OUT (the device machine's output folder) or DIR/results. A failing
# step is reported and the rest goes on.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/common.sh"
BATCHES="${SYMM_EMB_BATCHES:-256 1024 4096}"
TABLES="${SYMM_EMB_TABLES:-16 64 256}"
ROWS=4096

if [[ $MODE == bundle ]]; then
  bundle_workload embedding_all_to_all --copy "$HERE/embedding_all_to_all.sh" \
    --copy "$HERE/common.sh" \
    --copy "$HERE/embedding_all_to_all_torch.py"
  exit
fi

start_gpu_run embedding_all_to_all
# The first shape's inputs and fused result, for the comparison with torch.
DUMP="$(mktemp -d)"
DUMP_B="${BATCHES%% *}" DUMP_T="${TABLES%% *}"
trap 'rm -rf "$DUMP"' EXIT
for b in $BATCHES; do
  for t in $TABLES; do
    echo "== embedding_all_to_all B=$b T=$t: check and time bulk_sync, fused"
    dump=()
    [[ $b == "$DUMP_B" && $t == "$DUMP_T" ]] && dump=(--dump="$DUMP/emb")
    timeout 90 ./symm-run -n "$N" --backend "$BACKEND" --timeout 80 --heap-size 4G \
      ./embedding_all_to_all --variant=bulk_sync,fused --batch="$b" \
      --tables="$t" --rows=$ROWS --bench --iters=50 \
      ${dump[@]+"${dump[@]}"} >> "$LOG" 2>&1 ||
      echo "FAILED: embedding_all_to_all B=$b T=$t (exit $?)" | tee -a "$LOG"
  done
done
echo "== torch: fused B=$DUMP_B T=$DUMP_T against embedding_bag + NCCL; embedding_bag + NCCL all_to_all_single"
timeout 150 torchrun --nproc-per-node "$N" --master-port "${MASTER_PORT:-29542}" \
  embedding_all_to_all_torch.py $ROWS "$BATCHES" "$TABLES" "$DUMP/emb" \
  "$DUMP_B" "$DUMP_T" >> "$LOG" \
  2> "$RESULTS/embedding_torch.err" ||
  { echo "FAILED: torch baseline"; tail -5 "$RESULTS/embedding_torch.err"; }
grep -E "FAIL|: rank [0-9]+: |torch check" "$LOG" | head -10

echo "== summary (us per iteration, rank 0; ratio = torch total / fused)"
python3 - "$LOG" <<'EOF'
import re, sys
symm, torch, passes = {}, {}, {}
for line in open(sys.argv[1]):
    m = re.search(r"\[rank 0\] embedding_all_to_all (\w+) B=(\d+) T=(\d+) .*grid=\d+: ([\d.]+) us/iter", line)
    if m:
        symm[(int(m[2]), int(m[3]), m[1])] = float(m[4])
    m = re.search(r"embedding_all_to_all (\w+) B=(\d+) T=(\d+) .*: (PASS|FAIL)", line)
    if m:
        passes.setdefault((int(m[2]), int(m[3]), m[1]), set()).add(m[4])
    m = re.search(r"torch B=(\d+) T=(\d+): embedding_bag ([\d.]+) us, all_to_all ([\d.]+) us, total ([\d.]+) us", line)
    if m:
        torch[(int(m[1]), int(m[2]))] = [float(m[i]) for i in (3, 4, 5)]
print(f"{'B':>5} {'T':>4} {'bulk_sync':>10} {'fused':>9} {'torch bag':>10} {'torch a2a':>10} {'torch total':>12} {'ratio':>6} check")
for b, t in sorted({(k[0], k[1]) for k in symm} | set(torch)):
    bs, fu, tt = symm.get((b, t, "bulk_sync")), symm.get((b, t, "fused")), torch.get((b, t))
    f = lambda v: f"{v:.1f}" if v is not None else "-"
    ratio = f"{tt[2] / fu:.2f}" if tt and fu else "-"
    ok = all(passes.get((b, t, v)) == {"PASS"} for v in ("bulk_sync", "fused"))
    print(f"{b:>5} {t:>4} {f(bs):>10} {f(fu):>9} {f(tt and tt[0]):>10} {f(tt and tt[1]):>10} {f(tt and tt[2]):>12} {ratio:>6} {'PASS' if ok else 'FAIL/missing'}")
EOF
