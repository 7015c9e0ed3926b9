# Sourced by the collectives' scripts that compare runs on the GPUs
# (bundles.sh, misaligned.sh, settings.sh), there or in a folder that
# `bench/collectives/run.sh bundle` made.
#
# bundle_args NAME=DIR... checks a comparison's arguments (bundles.sh,
# misaligned.sh) and sets RESULTS ($OUT, or ./results), made.
bundle_args() {
  (($#)) || { echo "usage: $0 NAME=DIR [NAME=DIR...]" >&2; exit 2; }
  RESULTS="${OUT:-$PWD/results}"
  mkdir -p "$RESULTS"
}

# collectives_bench DIR N ERR MIN MAX [VAR=VALUE...] prints the CSV that
# collectives-bench of the bundle in DIR writes (rank 0's lines) from MIN
# to MAX bytes on the first N GPUs, with the variables given; its errors go
# to ERR. Its status is the run's (under pipefail).
collectives_bench() {
  local dir=$1 n=$2 err=$3 min=$4 max=$5
  shift 5
  ( cd "$dir" && source ./gpu-bundle.sh && gpu_run_setup . > /dev/null &&
    env SYMM_BACKEND=cuda CUDA_VISIBLE_DEVICES="$(seq -s, 0 $((n - 1)))" "$@" \
      ./symm-run -n "$n" --timeout 300 --heap-size 4G ./collectives-bench "$min" "$max" \
      2> "$err" | sed -n 's/^\[rank 0\] //p' )
}
