#!/usr/bin/env bash
# The collectives on the GPUs in one command.
#
# Here (after scripts/setup.sh; needs nvcc and NCCL's header):
#   bench/collectives/run.sh bundle [DIR]     # default DIR: .device-collectives
# builds into DIR the runtime (with the collectives' sm_90 PTX embedded),
# symm-run, the correctness suite and the benchmark, plus the scripts.
#
# There (2x H200, CUDA 13, PyTorch with NCCL; no LLVM), from the repository:
#   bench/collectives/run.sh gpu [DIR]     # or DIR/run.sh gpu DIR (a copy)
# runs the correctness suite and the tile building-block test on every GPU (cuda
# backend), whether lines (LL128) arrive whole between two GPUs
# (line-delivery), what the link between two GPUs carries (peer-bandwidth), the
# Symm-vs-NCCL sweep (8 KB..1 GB; all-reduce also with the ring
# forced, "symm_ring"), PyTorch's NCCL and symmetric-memory all-reduce on the
# same sizes, and prints a table last; CSVs, logs and PNG plots go to $OUT (the
# device machine's output folder) or DIR/results. SYMM_BENCH_TRACE=BYTES also
# writes a trace of the calls at that size (trace.json, drawn in trace.svg,
# each kernel's phases in trace-phases.txt); SYMM_BENCH_COLLECTIVES (a list
# of names) narrows it, and the sweep, to those collectives.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
MODE="${1:-gpu}"
DIR="$(realpath -m "${2:-$ROOT/.device-collectives}")"
MIN="${SYMM_BENCH_MIN:-8192}"
MAX="${SYMM_BENCH_MAX:-1073741824}"

if [[ $MODE == bundle ]]; then
  # The user kernel that all-reduces its tiles with the library's blocks.
  exec "$ROOT/scripts/gpu-bundle.sh" --build symm-collectives-test \
    --bin symm-collectives-test --chip sm_90 \
    --nccl-program bench/collectives/collectives_bench.cu collectives-bench \
    --nccl-program bench/collectives/peer_bandwidth.cu peer-bandwidth \
    --compile test/Collectives/tile-all-reduce.mlir tile-all-reduce.exe \
    --compile test/Litmus/line-delivery.mlir line-delivery.exe \
    --copy bench/collectives/torch_symm_mem.py --copy bench/collectives/plot.py \
    --copy bench/collectives/run.sh --copy bench/collectives/settings.sh \
    --copy bench/collectives/compare.py --copy bench/collectives/misaligned.sh \
    --copy bench/collectives/bundles.sh --copy bench/collectives/bench.sh \
    --copy scripts/check-trace.py \
    --copy scripts/trace-to-svg.py --copy scripts/trace-phases.py "$DIR"
fi

# The benchmark loads PyTorch's NCCL (gpu_run_setup puts it on the path).
source "$DIR/gpu-bundle.sh"
gpu_run_setup "$DIR"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$RESULTS/gpus.txt"

# One rank per GPU unless SYMM_BENCH_RANKS says otherwise.
N="${SYMM_BENCH_RANKS:-$(nvidia-smi -L | wc -l)}"
echo "== correctness suite, $N GPUs (cuda backend)"
# A failing check is reported (the rank's exit status ends the pipe) and the
# benchmark still runs.
./symm-run -n "$N" --backend cuda --timeout 300 ./symm-collectives-test \
  2>&1 | tee "$RESULTS/correctness.log" | grep -E "collectives (ok|FAILED)|FAILED" | head -20 ||
  echo "FAILED: the correctness suite (see correctness.log)"

./symm-run -n "$N" --backend cuda --timeout 120 ./tile-all-reduce.exe \
  2>&1 | tee -a "$RESULTS/correctness.log" | grep -E "tile all-reduce" | head -4 ||
  echo "FAILED: the tile building-block test (see correctness.log)"

# The LL128 premise: a line stored by 8 lanes in one instruction arrives
# whole over NVLink (SYMM_LINE_* size it; the canary must tear).
echo "== line delivery, GPU 0 to GPU 1"
env CUDA_VISIBLE_DEVICES=0,1 SYMM_LINE_ROUNDS="${SYMM_LINE_ROUNDS:-2000}" \
  SYMM_LINE_LINES="${SYMM_LINE_LINES:-256}" \
  SYMM_LINE_WORKGROUPS="${SYMM_LINE_WORKGROUPS:-132}" \
  ./symm-run -n 2 --backend cuda --timeout 300 ./line-delivery.exe \
  2>&1 | tee "$RESULTS/line-delivery.log" | grep -E "lines|canary|line delivery" ||
  echo "FAILED: line delivery (see line-delivery.log)"

echo "== the link between GPU 0 and GPU 1 (peer-bandwidth)"
./peer-bandwidth > "$RESULTS/peer-bandwidth.txt" 2>&1 ||
  echo "FAILED: peer-bandwidth (see peer-bandwidth.txt)"
tail -1 "$RESULTS/peer-bandwidth.txt"

echo "== Symm vs NCCL, $MIN..$MAX bytes"
# send and recv (up to 1 GB each) live in the heap; 4G leaves the
# collectives their default scratch of 256M (a sixteenth of the heap).
./symm-run -n "$N" --backend cuda --timeout 600 --heap-size 4G ./collectives-bench "$MIN" "$MAX" \
  > "$RESULTS/symm-raw.log" 2> "$RESULTS/symm.err" || { tail "$RESULTS/symm.err"; }
# symm-run prefixes each line with the rank; rank 0 writes the CSV.
sed -n 's/^\[rank 0\] //p' "$RESULTS/symm-raw.log" > "$RESULTS/symm.csv"
cat "$RESULTS/symm.err" | tail -5

if [[ -n ${SYMM_BENCH_TRACE:-} ]]; then
  # One size traced (SYMM_BENCH_TRACE=BYTES): the collective kernels as the
  # sweep ran them, drawn into trace.svg.
  echo "== a trace of the calls at $SYMM_BENCH_TRACE bytes"
  ./symm-run -n "$N" --backend cuda --timeout 300 --heap-size 4G \
    ./collectives-bench --trace="$RESULTS/trace.json" "$SYMM_BENCH_TRACE" "$SYMM_BENCH_TRACE" \
    > "$RESULTS/trace-raw.log" 2>&1 || tail "$RESULTS/trace-raw.log"
  python3 check-trace.py "$RESULTS/trace.json" --ranks "$N" ||
    echo "FAILED: the trace (see trace-raw.log)"
  python3 trace-to-svg.py "$RESULTS/trace.json" "$RESULTS/trace.svg" || true
  python3 trace-phases.py "$RESULTS/trace.json" | tee "$RESULTS/trace-phases.txt"
fi

echo "== PyTorch: NCCL and symmetric memory all-reduce"
torchrun --nproc-per-node "$N" --master-port "${MASTER_PORT:-29533}" torch_symm_mem.py \
  "$MIN" "$MAX" > "$RESULTS/torch.csv" 2> "$RESULTS/torch.err" || tail "$RESULTS/torch.err"

echo "== summary"
python3 plot.py "$RESULTS" "$RESULTS/symm.csv" "$RESULTS/torch.csv"
