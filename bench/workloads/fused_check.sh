#!/usr/bin/env bash
# Correctness of the three fused GEMM workloads on one GPU: every variant of
# all_gather_gemm, gemm_all_scatter and gemm_reduce_scatter, with both
# kernels, on 1 and 2 ranks (2 ranks share the GPU), at a ragged M (not a
# multiple of 128) and a large shape; no timing (torch's baselines need a
# GPU per rank).
#
# Here (after scripts/setup.sh):
#   bench/workloads/fused_check.sh bundle [DIR]   # default .device-workloads
# builds the three workloads' bundles (bench/workloads/<name>.sh bundle) into
# DIR. There, from the repository:
#   bench/workloads/fused_check.sh gpu [DIR]
# runs each (workload, kernel, ranks, shape) once with every variant, each
# rank checking C against the host reference, logs to $OUT or DIR/results,
# and prints a table last: PASS when every rank passed every variant.
# SYMM_FUSED_SHAPES_<workload> (M,N,K list) replace a workload's shapes.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/common.sh"
WORKLOADS="all_gather_gemm gemm_all_scatter gemm_reduce_scatter"
declare -A SHAPES=(
  [all_gather_gemm]="${SYMM_FUSED_SHAPES_all_gather_gemm:-1000,3584,1024 4096,3584,8192}"
  [gemm_all_scatter]="${SYMM_FUSED_SHAPES_gemm_all_scatter:-1000,3584,1024 4096,3584,8192}"
  [gemm_reduce_scatter]="${SYMM_FUSED_SHAPES_gemm_reduce_scatter:-1000,3584,1024 4096,3584,8192}"
)

declare -A VARIANTS=(
  [all_gather_gemm]=bulk_sync,pull,push,fused
  [gemm_all_scatter]=bulk_sync,producer_consumer,fused_sequential,wg_specialized
  [gemm_reduce_scatter]=bulk_sync,fused,fused_atomic
)

if [[ $MODE == bundle ]]; then
  set -e
  for w in $WORKLOADS; do
    bundle_workload "$w" --copy "$HERE/fused_check.sh" --copy "$HERE/common.sh"
  done
  echo "bundle in $DIR ($(du -sh "$DIR" | cut -f1))"
  exit 0
fi
start_gpu_run fused_check
TABLE="$RESULTS/fused_check.table"
: > "$TABLE"
for w in $WORKLOADS; do
  for kernel in hopper portable; do
    for ranks in 1 2; do
      for shape in ${SHAPES[$w]}; do
        IFS=, read -r m n k <<< "$shape"
        log="$RESULTS/$w-$kernel-$ranks-$m.log"
        SECONDS=0
        timeout 40 ./symm-run -n "$ranks" --backend "$BACKEND" --heap-size 4G \
          --timeout 30 "./$w" --kernel="$kernel" --variant="${VARIANTS[$w]}" \
          --m="$m" --n="$n" --k="$k" \
          > "$log" 2>&1
        rc=$?
        # Every rank prints PASS or FAIL for each variant it ran.
        pass=$(grep -c ": PASS" "$log")
        fail=$(grep -cE ": FAIL|: rank [0-9]+: " "$log")
        verdict=FAIL
        [[ $rc == 0 && $fail == 0 && $pass -gt 0 ]] && verdict=PASS
        printf '%-20s %-8s ranks=%s m=%-5s n=%-5s k=%-5s %s (%s PASS lines, exit %s, %ss)\n' \
          "$w" "$kernel" "$ranks" "$m" "$n" "$k" "$verdict" "$pass" "$rc" \
          "$SECONDS" >> "$TABLE"
        [[ $verdict == PASS ]] || grep -E "FAIL|: rank [0-9]+: " "$log" | head -3 >> "$LOG"
      done
    done
  done
done
cat "$LOG"
echo "== fused GEMM workloads, every variant (one GPU)"
cat "$TABLE"
