#!/usr/bin/env bash
# The one step between this machine (LLVM, the build) and a GPU machine (CUDA,
# PyTorch, no LLVM): every GPU benchmark and GPU test script calls it to fill
# the folder the device tool carries, and sources it there to run.
#
#   scripts/gpu-bundle.sh [OPTION...] DIR
#
# builds symm_runtime, symm-run and symm-compile (and each --build target),
# then fills DIR with libsymm_runtime.so, symm-run, this script and what the
# options ask for, in their order:
#   --build TARGET       also build the ninja target TARGET first
#   --no-build           build nothing (the build tree is up to date)
#   --chip CHIP          the chip of the --compile, --programs and --nccl-program
#                        options after it (default $SYMM_CHIP, else sm_90)
#   --flags FLAGS        symm-compile flags (one word each) of the --compile and
#                        --programs options after it; '' clears them
#   --compile SRC OUT    symm-compile SRC into DIR/OUT (OUT.ptx: --emit=ptx)
#   --programs SUFFIX    every test/Integration program and example that runs
#                        on GPUs (and test/Target/NVVM/hopper-gemm.mlir as
#                        nvvm-hopper-gemm) into DIR/NAME.SUFFIX; those with
#                        Hopper's TMA or warpgroup MMA for sm_90a
#   --portable-programs SUFFIX   the same without the Hopper ones
#   --cxxflags FLAGS     compiler flags of the --nccl-program options after it
#   --nccl-program SRC OUT   a CUDA (.cu, nvcc) or C++ (clang++) program that
#                        links the runtime and NCCL, into DIR/OUT
#   --bin NAME           BUILD/bin/NAME (and its manifest NAME.json, if any)
#   --copy PATH          a file or folder (a folder's files that git does not
#                        ignore) into DIR
# SRC and PATH are relative to the repository unless absolute. Environment:
# SYMM_BUILD_DIR (default build/), SYMM_NCCL_LIB (NCCL's library folder,
# default: found under /usr/local/cuda*, /usr/lib), SYMM_CUDA_INCLUDE.
#
# On the GPU machine, a script sources DIR/gpu-bundle.sh and calls
# gpu_run_setup DIR (below).

# gpu_run_setup DIR: the start of every run on the GPU machine. RESULTS is
# $OUT (the device machine's output folder) or DIR/results; DIR is the working
# directory and comes first in LD_LIBRARY_PATH, then PyTorch's NCCL where its
# wheel is installed (the benchmarks that link NCCL load that copy); multicast
# is off for NCCL, torch's symmetric memory and NVSHMEM.
gpu_run_setup() {
  cd "$1" || exit 1
  RESULTS="${OUT:-$PWD/results}"
  mkdir -p "$RESULTS"
  export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
  local nccl
  nccl="$(python3 -c 'import nvidia.nccl as m, os; print(os.path.join(list(m.__path__)[0], "lib"))' 2>/dev/null || true)"
  export LD_LIBRARY_PATH="$PWD${nccl:+:$nccl}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}

# Sourced: the functions above, nothing else.
[[ ${BASH_SOURCE[0]} == "$0" ]] || return 0
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${SYMM_BUILD_DIR:-$ROOT/build}"
SELF="gpu-bundle.sh"

fail() {
  echo "$SELF: $*" >&2
  exit 1
}
usage() {
  sed -n '6,31p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
# source PATH: PATH made absolute against the repository; it must exist.
source_path() {
  local path=$1
  [[ $path == /* ]] || path="$ROOT/$path"
  [[ -e $path ]] || fail "no such file: $1"
  printf '%s\n' "$path"
}

# The options, checked before anything is built; the steps run after.
build=(symm_runtime symm-run symm-compile)
steps=()
dir=""
need() { (($2 > $1)) || fail "$3 needs $1 argument(s)"; }
while (($#)); do
  case $1 in
  --build) need 1 $# "$1"; build+=("$2"); shift 2 ;;
  --no-build) build=(); shift ;;
  --chip | --flags | --cxxflags | --bin | --copy | --programs | --portable-programs)
    need 1 $# "$1"; steps+=("$1" "$2"); shift 2 ;;
  --compile | --nccl-program) need 2 $# "$1"; steps+=("$1" "$2" "$3"); shift 3 ;;
  -h | --help) usage ;;
  -*) fail "unknown option $1 (--help lists them)" ;;
  *)
    [[ -z $dir ]] || fail "one folder only: $dir and $1"
    dir=$1
    shift
    ;;
  esac
done
[[ -n $dir ]] || fail "no folder given (usage: $SELF [OPTION...] DIR)"
DIR="$(realpath -m "$dir")"

if ((${#build[@]})); then
  ninja -C "$BUILD" "${build[@]}"
fi
[[ -x $BUILD/bin/symm-compile ]] || fail "no $BUILD/bin/symm-compile: run scripts/setup.sh first"
mkdir -p "$DIR"
cp "$BUILD/lib/libsymm_runtime.so" "$BUILD/bin/symm-run" "${BASH_SOURCE[0]}" "$DIR/"

chip="${SYMM_CHIP:-sm_90}"
flags=()
cxxflags=()

# compile CHIP SRC OUT: symm-compile with the current flags.
compile() {
  local emit=()
  [[ $3 == *.ptx ]] && emit=(--emit=ptx)
  "$BUILD/bin/symm-compile" --target="$1" "${emit[@]}" ${flags[@]+"${flags[@]}"} \
    "$2" -o "$DIR/$3"
}

# programs SUFFIX HOPPER: the GPU programs (HOPPER=1: with the Hopper ones).
# Programs that test the CPU target itself (its limits, its fault reports,
# MLIR's runner libraries, which need LLVM) are not GPU programs;
# test/Integration/example-allgather.mlir only runs examples/allgather.mlir.
# One that does not compile is reported and the rest go on.
programs() {
  local f name c
  for f in "$ROOT"/test/Integration/*.mlir "$ROOT"/examples/*.mlir \
    "$ROOT"/test/Target/NVVM/hopper-gemm.mlir; do
    name=$(basename "$f" .mlir)
    [[ $f == */Target/NVVM/* ]] && name=nvvm-$name
    [[ $name == example-allgather ]] && continue
    grep -q "REQUIRES: backend-host\|printMemref\|async.execute" "$f" && continue
    c=$chip
    if grep -q "nvgpu\.tma\.\|nvgpu\.warpgroup\.\|nvvm\.wgmma\." "$f"; then
      (($2)) || continue
      c=sm_90a
    fi
    compile "$c" "$f" "$name.$1" ||
      echo "$SELF: $name does not compile for $c${flags[*]:+ with ${flags[*]}}" >&2
  done
}

# nccl_program SRC OUT: nvcc for CUDA, clang++ for C++, against the runtime
# and NCCL.
nccl_program() {
  local lib="${SYMM_NCCL_LIB:-}" cc
  if [[ -z $lib ]]; then
    lib="$(find /usr/local/cuda*/lib* /usr/lib -name 'libnccl.so*' 2>/dev/null | head -1)"
    [[ -n $lib ]] || fail "no libnccl.so under /usr/local/cuda*, /usr/lib: set SYMM_NCCL_LIB"
    lib="$(dirname "$lib")"
  fi
  if [[ $1 == *.cu ]]; then
    cc=(nvcc -O2 -std=c++17 -arch="$chip")
  else
    cc=(/usr/lib/llvm-22/bin/clang++ -O2 -std=c++17
      -I "${SYMM_CUDA_INCLUDE:-/usr/local/cuda/include}")
  fi
  "${cc[@]}" ${cxxflags[@]+"${cxxflags[@]}"} -I "$ROOT/runtime/include" \
    -I "$BUILD/runtime/include" -I "$ROOT/examples/common" "$1" \
    -L "$BUILD/lib" -lsymm_runtime -L "$lib" -lnccl -o "$DIR/$2"
}

# copy PATH: a file, or a folder's files that git does not ignore (no build
# outputs, no Python caches).
copy() {
  local to
  to="$DIR/$(basename "$1")"
  if [[ -f $1 ]]; then
    cp "$1" "$DIR/"
    return
  fi
  git -C "$1" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
    fail "$1 is a folder outside a git work tree: copy its files one by one"
  local files=()
  mapfile -d '' files < <(cd "$1" && git ls-files -co --exclude-standard -z)
  ((${#files[@]})) || fail "$1 holds no file that git does not ignore"
  rm -rf "$to"
  mkdir -p "$to"
  local f
  for f in "${files[@]}"; do
    [[ ! -e $1/$f ]] || (cd "$1" && cp --parents "$f" "$to/")
  done
}

set -- ${steps[@]+"${steps[@]}"}
while (($#)); do
  case $1 in
  --chip) chip=$2; shift 2 ;;
  --flags) read -r -a flags <<<"$2"; shift 2 ;;
  --cxxflags) read -r -a cxxflags <<<"$2"; shift 2 ;;
  --compile)
    src="$(source_path "$2")"
    compile "$chip" "$src" "$3"
    shift 3
    ;;
  --programs) programs "$2" 1; shift 2 ;;
  --portable-programs) programs "$2" 0; shift 2 ;;
  --nccl-program)
    src="$(source_path "$2")"
    nccl_program "$src" "$3"
    shift 3
    ;;
  --bin)
    [[ -f $BUILD/bin/$2 ]] || fail "no $BUILD/bin/$2 (build its target with --build)"
    cp "$BUILD/bin/$2" "$DIR/"
    [[ ! -f $BUILD/bin/$2.json ]] || cp "$BUILD/bin/$2.json" "$DIR/"
    shift 2
    ;;
  --copy)
    src="$(source_path "$2")"
    copy "$src"
    shift 2
    ;;
  esac
done
echo "bundle in $DIR ($(du -sh "$DIR" | cut -f1))"
