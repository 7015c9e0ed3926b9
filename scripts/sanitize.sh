#!/usr/bin/env bash
# Builds Symm with AddressSanitizer and UndefinedBehaviorSanitizer (clang 22
# and Debian's libclang-rt-22-dev) into build-sanitize/, then runs the whole
# test suite (lit and ctest) under them. Exits non-zero on a finding (every
# one is fatal) or a failing test. Slower than scripts/test.sh: a separate
# build, and every process runs instrumented.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export SYMM_BUILD_DIR="${SYMM_BUILD_DIR:-$ROOT/build-sanitize}"
export SYMM_EXTRA_PACKAGES="libclang-rt-22-dev"
# The shared runtime (-shared-libsan), so that the rank programs symm-compile
# links without sanitizers can load the instrumented libsymm_runtime.so; the
# instrumented programs find it by their run path.
RUNTIME_DIR=/usr/lib/llvm-22/lib/clang/22/lib/linux
FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all"
FLAGS+=" -fno-omit-frame-pointer -shared-libsan -gline-tables-only"
LINK="$FLAGS -Wl,-rpath,$RUNTIME_DIR"
# -O1, as the sanitizers' documentation advises: reports keep their frames,
# and an instrumented -O3 build takes twice as long on two cores.
OPT="-O1 -DNDEBUG"
"$ROOT/scripts/setup.sh" \
  -DCMAKE_C_FLAGS="$FLAGS" -DCMAKE_CXX_FLAGS="$FLAGS" \
  -DCMAKE_C_FLAGS_RELEASE="$OPT" -DCMAKE_CXX_FLAGS_RELEASE="$OPT" \
  -DCMAKE_EXE_LINKER_FLAGS="$LINK" -DCMAKE_SHARED_LINKER_FLAGS="$LINK" \
  -DCMAKE_MODULE_LINKER_FLAGS="$LINK"

# Every process gets the ASan runtime first: rank programs, Python (which
# loads the instrumented libraries) and the tools alike.
export LD_PRELOAD="$RUNTIME_DIR/libclang_rt.asan-x86_64.so"
# Every report goes to a file of its own in $REPORTS as well as failing its
# process: a test that expects a process to fail must not hide a finding.
REPORTS="$SYMM_BUILD_DIR/sanitizer-reports"
rm -rf "$REPORTS"
mkdir -p "$REPORTS"
# use_sigaltstack=0: the runtime gives its worker threads their own signal
# stack (a fault in a kernel thread is reported by the runtime's handler).
# allow_user_poisoning=0: LLVM's headers poison and unpoison the memory of
# their allocators in instrumented code only, and Debian's libMLIR, which
# allocates from the same allocators, is not instrumented.
# handle_segv=0: a rank that crashes is reported by symm-run with its signal
# (test/Runtime/crash-report.mlir), not by ASan's own report; an invalid
# access ASan sees is still reported before it faults.
# detect_leaks=0: with the runtime in every process, the uninstrumented tools
# (clang, FileCheck, Python) would be reported for what they leave at exit.
export ASAN_OPTIONS="use_sigaltstack=0:allow_user_poisoning=0:handle_segv=0"
ASAN_OPTIONS+=":detect_leaks=0:log_path=$REPORTS/report"
export UBSAN_OPTIONS="print_stacktrace=1:log_path=$REPORTS/report"

# check-symm's two halves, so that ctest runs after a failing lit test too.
status=0
cmake --build "$SYMM_BUILD_DIR" --target check-symm-lit || status=$?
ctest --test-dir "$SYMM_BUILD_DIR" --output-on-failure || status=$?
if compgen -G "$REPORTS/report.*" > /dev/null; then
  cat "$REPORTS"/report.*
  echo "sanitize: findings above (in $REPORTS)" >&2
  exit 1
fi
exit "$status"
