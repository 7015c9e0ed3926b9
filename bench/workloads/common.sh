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

# bundle_workload NAME [OPTION...]: fills DIR through scripts/gpu-bundle.sh
# with NAME's driver, its kernels as sm_90 PTX (and its Hopper kernels,
# NAME_hopper.mlir where there is one, as sm_90a PTX), its kernels for the
# host target (so that SYMM_BENCH_BACKEND=host can try the script on CPU
# ranks), the baselines' timing module, and what each gpu-bundle.sh OPTION
# adds (--copy FILE: the script, its baseline).
bundle_workload() {
  local name=$1 so
  shift
  local args=(--build "$name" --bin "$name" --chip sm_90
    --compile "examples/$name/$name.mlir" "$name.ptx")
  local hopper="examples/$name/${name}_hopper.mlir"
  [[ -f $ROOT/$hopper ]] &&
    args+=(--chip sm_90a --compile "$hopper" "${name}_hopper.ptx" --chip sm_90)
  for so in "$name" "${name}_hopper"; do
    [[ -f $BUILD/bin/$so.so ]] && args+=(--bin "$so.so")
  done
  "$ROOT/scripts/gpu-bundle.sh" "${args[@]}" --copy "$HERE/torch_timing.py" "$@" "$DIR"
}

# start_gpu_run NAME: checks that MODE is gpu (after a script's bundle step)
# and prepares the run on the GPU machine (gpu_run_setup of the bundle's
# gpu-bundle.sh: RESULTS, the bundle as the working directory, the
# environment); LOG (RESULTS/NAME.log) starts empty.
start_gpu_run() {
  if [[ $MODE != gpu ]]; then
    echo "usage: $0 bundle|gpu [DIR]" >&2
    exit 2
  fi
  source "$DIR/gpu-bundle.sh"
  gpu_run_setup "$DIR"
  LOG="$RESULTS/$1.log"
  : > "$LOG"
}
