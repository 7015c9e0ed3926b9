# Sourced by bench/workloads/<name>.sh (which sets HERE to its folder): the
# settings every workload script shares, and the start of every bundle step.

# One rank per GPU (SYMM_BENCH_RANKS overrides; 2 where no GPU is listed).
N="${SYMM_BENCH_RANKS:-$(nvidia-smi -L 2>/dev/null | wc -l)}"
[[ $N -ge 1 ]] || N=2
ROOT="$(cd "$HERE/../.." && pwd)"
MODE="${1:-gpu}"
# The runtime backend of the runs (SYMM_BENCH_BACKEND=host tries a script on
# CPU ranks).
BACKEND="${SYMM_BENCH_BACKEND:-cuda}"
DIR="$(realpath -m "${2:-$ROOT/.device-workloads}")"
BUILD="${SYMM_BUILD_DIR:-$ROOT/build}"

# bundle_workload NAME [FILE...]: builds the runtime, symm-run and NAME's
# driver, compiles NAME's kernels to sm_90 PTX into DIR (and its Hopper
# kernels, NAME_hopper.mlir where there is one, to sm_90a PTX), and copies
# the runtime, symm-run, the driver, its kernels for the host target, the
# baselines' timing module and each FILE there.
bundle_workload() {
  local name=$1
  shift
  ninja -C "$BUILD" symm_runtime symm-run symm-compile "$name"
  mkdir -p "$DIR"
  "$BUILD/bin/symm-compile" --target=sm_90 --emit=ptx \
    "$ROOT/examples/$name/$name.mlir" -o "$DIR/$name.ptx"
  local hopper="$ROOT/examples/$name/${name}_hopper.mlir"
  if [[ -f $hopper ]]; then
    "$BUILD/bin/symm-compile" --target=sm_90a --emit=ptx "$hopper" \
      -o "$DIR/${name}_hopper.ptx"
  fi
  # The kernels for the host target too, so that SYMM_BENCH_BACKEND=host
  # can try the script on CPU ranks.
  local so
  for so in "$name" "${name}_hopper"; do
    [[ -f $BUILD/bin/$so.so ]] && cp "$BUILD/bin/$so.so" "$BUILD/bin/$so.so.json" "$DIR/"
  done
  cp "$BUILD/lib/libsymm_runtime.so" "$BUILD/bin/symm-run" \
    "$BUILD/bin/$name" "$HERE/torch_timing.py" "$@" "$DIR/"
}

# start_gpu_run NAME: checks that MODE is gpu (after a script's bundle step)
# and prepares the run on the GPU machine: RESULTS is $OUT (the device
# machine's output folder) or DIR/results, the bundle is the working
# directory and comes first in LD_LIBRARY_PATH, multicast is off, and LOG
# (RESULTS/NAME.log) starts empty.
start_gpu_run() {
  if [[ $MODE != gpu ]]; then
    echo "usage: $0 bundle|gpu [DIR]" >&2
    exit 2
  fi
  RESULTS="${OUT:-$DIR/results}"
  mkdir -p "$RESULTS"
  cd "$DIR" || exit 1
  export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
  export LD_LIBRARY_PATH="$DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  LOG="$RESULTS/$1.log"
  : > "$LOG"
}
