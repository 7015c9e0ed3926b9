#!/usr/bin/env bash
# The collectives under several settings, on several rank counts, in one
# command: where a default (a size limit, a workgroup count) should move, it
# shows each setting's time beside NCCL's from the same run.
#
# There, in the folder `bench/collectives/run.sh bundle` made:
#   ./settings.sh DIR "NAME:VAR=VALUE,VAR=VALUE NAME2:..." [RANKS...]
# e.g. ./settings.sh . "default: ll1m:SYMM_COLLECTIVES_LL_MAX=1M" 2 4
# runs collectives-bench from SYMM_BENCH_MIN to SYMM_BENCH_MAX bytes (default
# 256K..4M) once per setting on the first RANKS GPUs (default all), writes
# settings-RANKS-NAME.csv to $OUT or DIR/results and prints, per rank count,
# each collective and size with NCCL's time and each setting's (stream and
# graph) last. A setting runs on the cuda backend unless it names another
# (SYMM_BACKEND=nvshmem, with NVSHMEM_SYMMETRIC_SIZE above the 4G heap and
# SYMM_NVSHMEM_HOME where the bundle has no libnvshmem_host.so.3).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench.sh"
DIR="$(realpath "${1:?usage: settings.sh DIR SETTINGS [RANKS...]}")"
SETTINGS="${2:?usage: settings.sh DIR SETTINGS [RANKS...]}"
shift 2
source "$DIR/gpu-bundle.sh"
gpu_run_setup "$DIR"
MIN="${SYMM_BENCH_MIN:-262144}"
MAX="${SYMM_BENCH_MAX:-4194304}"
RANKS=("$@")
((${#RANKS[@]})) || RANKS=("$(nvidia-smi -L | wc -l)")
for n in "${RANKS[@]}"; do
  for setting in $SETTINGS; do
    name=${setting%%:*}
    vars=()
    [[ $setting == *:?* ]] && IFS=, read -ra vars <<< "${setting#*:}"
    csv="$RESULTS/settings-$n-$name.csv"
    collectives_bench . "$n" "$RESULTS/settings-$n-$name.err" "$MIN" "$MAX" "${vars[@]}" > "$csv" ||
      { echo "FAILED: $n ranks, $setting"; tail -5 "$RESULTS/settings-$n-$name.err"; }
  done
done
for n in "${RANKS[@]}"; do
  python3 compare.py "$n GPUs" "$RESULTS"/settings-"$n"-*.csv
done
