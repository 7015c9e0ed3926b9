#!/usr/bin/env bash
# The downstream project of docs/Embedding.md against an installed Symm:
# installs the build tree into a scratch prefix; checks that the install has
# no empty folders and that every installed program runs, and every library
# loads, with no environment at all; then writes out the guide's files, builds
# them with find_package(Symm) and runs their lit test.
#   embedding.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build="$1" src="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() {
  echo "embedding: $*"
  exit 1
}
unset LD_LIBRARY_PATH
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" > "$work/install.log"

empty="$(find "$prefix" -type d -empty)"
[[ -z "$empty" ]] || fail "empty folders installed: $empty"
# What a sanitizer build (scripts/sanitize.sh) runs every process with: its
# runtime preloaded into the uninstrumented Python, and its options.
sanitizer=()
for variable in LD_PRELOAD ASAN_OPTIONS UBSAN_OPTIONS; do
  [[ -z "${!variable:-}" ]] || sanitizer+=("$variable=${!variable}")
done
for program in "$prefix"/bin/*; do
  env -i "${sanitizer[@]}" "$program" --version > /dev/null ||
    fail "$program does not run without an environment"
done
python="$(command -v python3)"
for library in "$prefix"/lib/*.so; do
  env -i "${sanitizer[@]}" "$python" \
    -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1])' "$library" ||
    fail "$library does not load without an environment"
done

python3 "$src/test/doc-files.py" "$src/docs/Embedding.md" "$work/src"
# The example is built as Symm was: same compilers, same flags (a sanitizer
# build's libraries need the sanitizer runtime linked in).
cached() { grep -m1 "^$1:" "$build/CMakeCache.txt" | cut -d= -f2-; }
cmake -G Ninja -S "$work/src" -B "$work/build" \
  -DCMAKE_C_COMPILER="$(cached CMAKE_C_COMPILER)" \
  -DCMAKE_CXX_COMPILER="$(cached CMAKE_CXX_COMPILER)" \
  -DCMAKE_C_FLAGS="$(cached CMAKE_C_FLAGS)" \
  -DCMAKE_CXX_FLAGS="$(cached CMAKE_CXX_FLAGS)" \
  -DCMAKE_EXE_LINKER_FLAGS="$(cached CMAKE_EXE_LINKER_FLAGS)" \
  -DCMAKE_SHARED_LINKER_FLAGS="$(cached CMAKE_SHARED_LINKER_FLAGS)" \
  -DSymm_DIR="$prefix/lib/cmake/symm" > "$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; fail "configuring the example failed"; }
cmake --build "$work/build" --target check > "$work/check.log" 2>&1 ||
  { cat "$work/check.log"; fail "building or testing the example failed"; }
grep -q "Passed: 1 (100" "$work/check.log" ||
  { cat "$work/check.log"; fail "the example's lit test did not run"; }
echo "embedding: the example of docs/Embedding.md passed against $prefix"
