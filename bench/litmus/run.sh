#!/usr/bin/env bash
# The litmus suite (examples/litmus) on one GPU, and across GPUs.
#
# Here (after scripts/setup.sh):
#   bench/litmus/run.sh bundle [DIR]    # default .device-litmus
# builds the driver, compiles its kernels to sm_90 PTX, and copies them with
# symm-run, the runtime and this script into DIR.
#
# There (a GPU, CUDA; no LLVM):
#   DIR/run.sh gpu     # or bench/litmus/run.sh gpu DIR
# runs every variant 2^20 times at each scope, requires the weak outcome of
# MP and SB with relaxed accesses at device and system scope (and none where
# the orderings forbid it), and prints the table last. The log goes to $OUT
# (the device machine's output folder) or DIR/results. With two or more GPUs
# it then runs every variant across them (--across-ranks: an instance's
# roles on different GPUs, on GPU 0's memory, system scope; one rank per
# GPU), requiring no forbidden outcome, into litmus-across.log.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MODE="${1:-gpu}"

if [[ $MODE == bundle ]]; then
  ROOT="$(cd "$HERE/../.." && pwd)"
  BUILD="${SYMM_BUILD_DIR:-$ROOT/build}"
  exec "$ROOT/scripts/gpu-bundle.sh" --build litmus --bin litmus --chip sm_90 \
    --compile "$BUILD/examples/litmus/litmus.mlir" litmus.ptx \
    --copy bench/litmus/run.sh "${2:-$ROOT/.device-litmus}"
fi
if [[ $MODE != gpu ]]; then
  echo "usage: $0 bundle|gpu [DIR]" >&2
  exit 2
fi

DIR="$(realpath -m "${2:-$HERE}")"
source "$DIR/gpu-bundle.sh"
gpu_run_setup "$DIR"
LOG="$RESULTS/litmus-gpu.log"
nvidia-smi -L > "$LOG" 2>&1
WEAK=mp_relaxed@device,mp_relaxed@system,sb_relaxed@device,sb_relaxed@system
# Device scope first: a run cut short by the timeout keeps what it printed.
timeout "${SYMM_LITMUS_TIMEOUT:-300}" ./symm-run -n 1 --backend cuda \
  --timeout 120 ./litmus --scope=device,system,workgroup \
  --iterations="${SYMM_LITMUS_ITERATIONS:-1048576}" --expect-weak="$WEAK" \
  >> "$LOG" 2>&1
status=$?
grep -E "^\[rank 0\] litmus " "$LOG" | cut -c10-130
sed -n '/variant  *scope/,$p' "$LOG" | sed 's/^\[rank 0\] //'
echo "litmus exit status $status (log: $LOG)"

GPUS=$(nvidia-smi -L | wc -l)
if ((GPUS >= 2)); then
  ACROSS="$RESULTS/litmus-across.log"
  timeout "${SYMM_LITMUS_TIMEOUT:-300}" ./symm-run -n "$GPUS" --backend cuda \
    --timeout 120 ./litmus --across-ranks \
    --iterations="${SYMM_LITMUS_ITERATIONS:-1048576}" > "$ACROSS" 2>&1
  across=$?
  sed -n '/variant  *scope/,$p' "$ACROSS" | grep "^\[rank 0\]" | sed 's/^\[rank 0\] //'
  echo "litmus across $GPUS GPUs exit status $across (log: $ACROSS)"
  ((status == 0)) && status=$across
fi
exit $status
