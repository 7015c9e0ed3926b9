#!/usr/bin/env bash
# Every collective by several bundles in turn (the code before and after a
# change), each twice and interleaved, on 2 GPUs, beside NCCL and torch
# symmetric memory's all-reduce, in one command.
#
# There, from the repository (folders that bench/collectives/run.sh bundle
# made; the first is the one whose torch_symm_mem.py and compare.py run):
#   bench/collectives/bundles.sh NAME=DIR [NAME=DIR...]
# e.g. bundles.sh old=.device-old new=.device-collectives, from
# SYMM_BENCH_MIN to SYMM_BENCH_MAX bytes (default 8K..4M). Writes
# settings-2-NAMEk.csv (k = 1, 2), torch.csv and compare.txt to $OUT (or
# ./results) and prints compare.txt: NCCL's time and each run's per
# collective, size and mode, then the all-reduce over torch's best.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench.sh"
bundle_args "$@"
MIN="${SYMM_BENCH_MIN:-8192}" MAX="${SYMM_BENCH_MAX:-4194304}"
csvs=()
for rep in 1 2; do
  for arg in "$@"; do
    name=${arg%%=*} dir=$(realpath "${arg#*=}")
    csvs+=("$RESULTS/settings-2-$name$rep.csv")
    collectives_bench "$dir" 2 "$RESULTS/bundles.err" "$MIN" "$MAX" \
      > "$RESULTS/settings-2-$name$rep.csv" ||
      { echo "FAILED: $name, run $rep"; tail -5 "$RESULTS/bundles.err"; }
  done
done
rm -f "$RESULTS/bundles.err"
first=$(realpath "${1#*=}")
cd "$first" && source ./gpu-bundle.sh && gpu_run_setup . > /dev/null
torchrun --nproc-per-node 2 --master-port "${MASTER_PORT:-29533}" torch_symm_mem.py \
  "$MIN" "$MAX" > "$RESULTS/torch.csv" 2> "$RESULTS/torch.err" || tail "$RESULTS/torch.err"
rm -f "$RESULTS/torch.err"
python3 compare.py "2 GPUs" "${csvs[@]}" "$RESULTS/torch.csv" | tee "$RESULTS/compare.txt"
