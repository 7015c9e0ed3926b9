# Sourced by bench/workloads/<name>.sh (which sets HERE to its folder): the
# settings every workload script shares, and the start of every bundle step.

# One rank per GPU (SYMM_BENCH_RANKS overrides; 2 where no GPU is listed).
N="${SYMM_BENCH_RANKS:-$(nvidia-smi -L 2>/dev/null | wc -l)}"
[[ $N -ge 1 ]] || N=2
ROOT="$(cd "$HERE/../.." && pwd)"
MODE="${1:-gpu}"
DIR="$(realpath -m "${2:-$ROOT/.device-workloads}")"
BUILD="${SYMM_BUILD_DIR:-$ROOT/build}"

# bundle_workload NAME [FILE...]: builds the runtime, symm-run and NAME's
# driver, compiles NAME's kernels to sm_90 PTX into DIR (and its Hopper
# kernels, NAME_hopper.mlir where there is one, to sm_90a PTX), and copies
# the runtime, symm-run, the driver, the baselines' timing module and each
# FILE there.
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
  cp "$BUILD/lib/libsymm_runtime.so" "$BUILD/bin/symm-run" \
    "$BUILD/bin/$name" "$HERE/torch_timing.py" "$@" "$DIR/"
}
