#!/usr/bin/env bash
# Every GPU benchmark of a machine of several GPUs in as few device calls as
# possible: the collectives, the seven workloads, the litmus suite across
# GPUs, each the script docs/GPU.md names, one rank per GPU.
#
# Here (after scripts/setup.sh; needs nvcc and NCCL's header):
#   bench/scaling/run.sh bundle [DIR]     # default DIR: .device-scaling
# runs each script's bundle step into the one DIR.
#
# There (CUDA, PyTorch with NCCL; no LLVM):
#   DIR/run-scaling.sh gpu DIR            # or bench/scaling/run.sh gpu DIR
# runs the parts SYMM_SCALING_PARTS names (default "collectives workloads
# litmus"; a call of at most 10 minutes holds collectives and litmus, or the
# workloads), each workload of SYMM_SCALING_WORKLOADS (default all seven),
# each part under a time limit (SYMM_SCALING_LIMIT seconds, default 300; a
# part cut short keeps what it wrote). Each part's logs go to a folder of
# its own, its printed output to PART.out beside them; with $OUT (the device
# machine's output folder) set they come back as one file,
# $OUT/scaling-results.tgz, because the device tool returns only 8 files.
# Every script's summary table is printed last.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MODE="${1:-gpu}"
WORKLOADS=(${SYMM_SCALING_WORKLOADS:-gemv_all_reduce embedding_all_to_all
  moe_dispatch_combine flash_decode all_gather_gemm gemm_all_scatter
  gemm_reduce_scatter})

if [[ $MODE == bundle ]]; then
  ROOT="$(cd "$HERE/../.." && pwd)"
  DIR="$(realpath -m "${2:-$ROOT/.device-scaling}")"
  set -e
  "$ROOT/bench/collectives/run.sh" bundle "$DIR"
  for w in "${WORKLOADS[@]}"; do
    "$ROOT/bench/workloads/$w.sh" bundle "$DIR"
  done
  "$ROOT/bench/litmus/run.sh" bundle "$DIR"
  # The workloads' scripts run from the bundle (they read common.sh beside
  # them); the collectives' and litmus' scripts are copied as run.sh, so
  # each part gets its own name here.
  for w in "${WORKLOADS[@]}"; do cp "$ROOT/bench/workloads/$w.sh" "$DIR/"; done
  cp "$ROOT/bench/collectives/run.sh" "$DIR/run-collectives.sh"
  cp "$ROOT/bench/litmus/run.sh" "$DIR/run-litmus.sh"
  cp "$HERE/run.sh" "$DIR/run-scaling.sh"
  rm -f "$DIR/run.sh"
  du -sh "$DIR"
  exit
fi
if [[ $MODE != gpu ]]; then
  echo "usage: $0 bundle|gpu [DIR]" >&2
  exit 2
fi

DIR="$(realpath -m "${2:-$HERE}")"
FINAL="${OUT:-$DIR/results}"
STAGE="$(mktemp -d)"
LIMIT="${SYMM_SCALING_LIMIT:-300}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$STAGE/gpus.txt"

# part NAME SCRIPT...: runs SCRIPT gpu DIR with its logs in STAGE/NAME.
part() {
  local name=$1 start=$SECONDS
  shift
  mkdir -p "$STAGE/$name"
  echo "== $name"
  OUT="$STAGE/$name" timeout "$LIMIT" "$@" gpu "$DIR" > "$STAGE/$name.out" 2>&1
  local status=$?
  echo "$name: exit status $status, $((SECONDS - start)) s" | tee -a "$STAGE/parts.txt"
}

for p in ${SYMM_SCALING_PARTS:-collectives workloads litmus}; do
  case $p in
  collectives) part collectives "$DIR/run-collectives.sh" ;;
  litmus) part litmus "$DIR/run-litmus.sh" ;;
  workloads)
    for w in "${WORKLOADS[@]}"; do part "$w" "$DIR/$w.sh"; done
    ;;
  *) echo "unknown part '$p' (collectives, workloads, litmus)" | tee -a "$STAGE/parts.txt" ;;
  esac
done

mkdir -p "$FINAL"
tar -czf "$FINAL/scaling-results.tgz" -C "$STAGE" .
# The tables: each script prints its own last.
for f in "$STAGE"/*.out; do
  echo "==== $(basename "$f" .out)"
  tail -n "${SYMM_SCALING_TAIL:-30}" "$f"
done
cat "$STAGE/parts.txt"
