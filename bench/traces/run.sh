#!/usr/bin/env bash
# Traces on one GPU: a traced fused workload with 2 ranks (its trace, checked
# and copied out), the GEMM workload traced and not, and the litmus suite at
# device and system scope.
#
# Here (after scripts/setup.sh):
#   bench/traces/run.sh bundle [DIR]          # default .device-traces
# compiles gemm_all_scatter's kernels (the portable ones to sm_90 PTX, the
# Hopper ones to sm_90a PTX) with and without --trace and the litmus kernels
# to sm_90 PTX, and copies them with the
# drivers, symm-run, the runtime, scripts/check-trace.py and this script.
#
# There (a GPU, CUDA; no LLVM), from DIR:
#   ./run.sh gpu [trace|litmus]      # default both
# writes gemm_all_scatter.json (2 ranks on GPU 0, fused_sequential), checks
# it, times the workload (every variant, --bench) untraced, traced and with the
# traced code not recording, in turn, SYMM_TRACE_ROUNDS times (checking each
# traced run's trace too), runs the litmus variants at device and system
# scope, and prints tables last: the times, and for each traced run how far
# its flows (a signal to the wait it satisfied) go back in time across ranks,
# which says how well the ranks' clocks are aligned.
# Logs and the trace go to $OUT (the device machine's output folder) or
# DIR/results.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MODE="${1:-gpu}"

if [[ $MODE == bundle ]]; then
  set -e
  ROOT="$(cd "$HERE/../.." && pwd)"
  BUILD="${SYMM_BUILD_DIR:-$ROOT/build}"
  DIR="$(realpath -m "${2:-$ROOT/.device-traces}")"
  ninja -C "$BUILD" symm_runtime symm-run symm-compile gemm_all_scatter litmus
  mkdir -p "$DIR/traced" "$DIR/code"
  for file in gemm_all_scatter:sm_90 gemm_all_scatter_hopper:sm_90a; do
    KERNELS="$ROOT/examples/gemm_all_scatter/${file%:*}.mlir"
    "$BUILD/bin/symm-compile" --target="${file#*:}" --emit=ptx "$KERNELS" \
      -o "$DIR/${file%:*}.ptx"
    "$BUILD/bin/symm-compile" --target="${file#*:}" --emit=ptx --trace \
      "$KERNELS" -o "$DIR/traced/${file%:*}.ptx"
    cp "$DIR/traced/${file%:*}".ptx* "$DIR/code/"
  done
  # code/: the traced kernels where an untraced run looks for kernels, so
  # that a run without SYMM_TRACE times their code without recording.
  cp "$BUILD/bin/gemm_all_scatter" "$DIR/code/"
  "$BUILD/bin/symm-compile" --target=sm_90 --emit=ptx \
    "$BUILD/examples/litmus/litmus.mlir" -o "$DIR/litmus.ptx"
  cp "$BUILD/lib/libsymm_runtime.so" "$BUILD/bin/symm-run" \
    "$BUILD/bin/gemm_all_scatter" "$BUILD/bin/litmus" "$HERE/run.sh" \
    "$ROOT/scripts/check-trace.py" "$DIR/"
  echo "bundle in $DIR ($(du -sh "$DIR" | cut -f1))"
  exit 0
fi
# A folder of the bundle for SYMM_TRACE_CODES: the workload with its kernels
# compiled --trace by this tree (another lowering), from SRC (default the
# examples; a copy with other trace ranges, say):
#   bench/traces/run.sh code NAME [DIR] [SRC]
if [[ $MODE == code ]]; then
  set -e
  ROOT="$(cd "$HERE/../.." && pwd)"
  BUILD="${SYMM_BUILD_DIR:-$ROOT/build}"
  NAME="${2:?usage: $0 code NAME [DIR] [SRC]}"
  DIR="$(realpath -m "${3:-$ROOT/.device-traces}")/$NAME"
  SRC="${4:-$ROOT/examples/gemm_all_scatter}"
  mkdir -p "$DIR/traced"
  for file in gemm_all_scatter:sm_90 gemm_all_scatter_hopper:sm_90a; do
    "$BUILD/bin/symm-compile" --target="${file#*:}" --emit=ptx --trace \
      "$SRC/${file%:*}.mlir" -o "$DIR/${file%:*}.ptx"
  done
  # Where the workload looks for its kernels when it records (--trace).
  cp "$DIR"/*.ptx* "$DIR/traced/"
  cp "$BUILD/bin/gemm_all_scatter" "$DIR/"
  echo "code in $DIR"
  exit 0
fi
PARTS="${2:-trace litmus}"
if [[ $MODE != gpu ]]; then
  echo "usage: $0 bundle [DIR] | code NAME [DIR] [SRC] | gpu [trace|litmus]" >&2
  exit 2
fi

RESULTS="${OUT:-$HERE/results}"
mkdir -p "$RESULTS"
cd "$HERE" || exit 1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export LD_LIBRARY_PATH="$HERE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
LOG="$RESULTS/traces-gpu.log"
nvidia-smi -L > "$LOG" 2>&1
SHAPE=(--m=8192 --n=8192 --k=8192)
run() { # run LABEL TIMEOUT ARGS...: the command's output into the log
  local label=$1 limit=$2
  shift 2
  echo "== $label: $*" >> "$LOG"
  timeout "$limit" "$@" >> "$LOG" 2>&1
  local status=$?
  echo "== $label: exit status $status" >> "$LOG"
  return $status
}

# The trace: one run of the fused variant, then checked.
[[ $PARTS == *trace* ]] && run trace 60 ./symm-run -n 2 --backend cuda --heap-size 2G --timeout 50 \
  --trace="$RESULTS/gemm_all_scatter.json" ./gemm_all_scatter \
  --kernel=hopper "${SHAPE[@]}" --variant=fused_sequential
[[ $PARTS == *trace* ]] && run check 30 python3 ./check-trace.py "$RESULTS/gemm_all_scatter.json" \
  --ranks 2 --kernel gemm --range tile
# Timing: untraced, traced, and the traced code not recording (no
# SYMM_TRACE: each event site loads the buffer's address and branches), in
# turn, SYMM_TRACE_ROUNDS times (default 3), so that drift and noise show;
# the summary takes each one's median. SYMM_TRACE_CODES names more folders
# of the bundle, each with its own gemm_all_scatter and kernels (another
# lowering of the events, say), timed in the same turn not recording (NAME)
# and recording (NAME-traced); SYMM_TRACE_WORKLOADS the variants (default
# all four).
PASSES=(plain traced code)
for extra in ${SYMM_TRACE_CODES:-}; do
  PASSES+=("$extra" "$extra-traced")
done
for round in $(seq "${SYMM_TRACE_ROUNDS:-3}"); do
  [[ $PARTS == *trace* ]] || break
  for pass in "${PASSES[@]}"; do
    trace=() program=./gemm_all_scatter
    [[ $pass == *traced ]] && trace=(--trace="$RESULTS/bench-traced.json")
    [[ $pass == code ]] && program=./code/gemm_all_scatter
    [[ $pass != plain && $pass != traced && $pass != code ]] &&
      program=./${pass%-traced}/gemm_all_scatter
    run "bench-$pass-$round" 90 ./symm-run -n 2 --backend cuda --heap-size 2G \
      --timeout 80 "$program" --kernel=hopper "${SHAPE[@]}" --bench \
      --iters=20 --variant="${SYMM_TRACE_WORKLOADS:-bulk_sync,producer_consumer,fused_sequential,wg_specialized}" \
      "${trace[@]}"
    [[ $pass == *traced ]] && run "check-$pass-$round" 120 python3 \
      ./check-trace.py "$RESULTS/bench-traced.json" --ranks 2
    rm -f "$RESULTS/bench-traced.json"
  done
done
# Litmus at device and system scope (workgroups on different SMs).
[[ $PARTS == *litmus* ]] && run litmus "${SYMM_LITMUS_TIMEOUT:-150}" ./symm-run -n 1 --backend cuda \
  --timeout 120 ./litmus --scope=device,system \
  --iterations="${SYMM_LITMUS_ITERATIONS:-1048576}" \
  --expect-weak=mp_relaxed@device,mp_relaxed@system,sb_relaxed@device,sb_relaxed@system

echo "---- trace"
grep -E "^trace ok|check-trace:|dropped" "$LOG"
echo "---- gemm_all_scatter (2 ranks), us per iteration, median of the rounds"
python3 - "$LOG" <<'PY'
import re, statistics, sys
times, label = {}, None
for line in open(sys.argv[1]):
    m = re.match(r"== bench-([\w-]+)-\d+: ", line)
    if m:
        label = m.group(1)
    m = re.search(r"\[rank 0\] gemm_all_scatter (\w+) .*: ([0-9.]+) us/iter", line)
    if m and label:
        times.setdefault((m.group(1), label), []).append(float(m.group(2)))
passes = list(dict.fromkeys(k[1] for k in times))
others = [p for p in passes if p != "plain"]
print("| variant | untraced | " + " | ".join(others) + " | "
      + " | ".join(f"{p} / untraced" for p in others) + " |")
print("| --- " * (2 + 2 * len(others)) + "|")
for v in dict.fromkeys(k[0] for k in times):
    med = {p: statistics.median(times.get((v, p), [float("nan")])) for p in passes}
    print(f"| {v} | {med['plain']:.1f} | "
          + " | ".join(f"{med[p]:.1f}" for p in others) + " | "
          + " | ".join(f"{med[p] / med['plain']:.3f}" for p in others) + " |")
PY
# The pass names: traced is --trace; code the traced kernels not recording;
# NAME and NAME-traced a SYMM_TRACE_CODES folder's, not recording and
# recording.
echo "---- clocks: each traced run's flows (check-trace.py), us"
python3 - "$LOG" <<'PY'
import re, sys
runs, label = {}, None
for line in open(sys.argv[1]):
    m = re.match(r"== (check\S*): python3", line)
    if m:
        label = m.group(1)
        continue
    if line.startswith("== "):
        label = None
    elif label:
        runs.setdefault(label, []).append(line.strip())
print("| traced run | flows | largest backward flow | shortest flow, rank to rank |")
print("| --- | --- | --- | --- |")
for label, lines in runs.items():
    text = " ".join(lines)
    ok = re.search(r"(\d+) flows, largest backward flow ([0-9.]+) us", text)
    short = re.search(r"shortest flow from rank to rank: (.*)", text)
    label = ("fused_sequential" if label == "check" else
             re.sub(r"check-(\S+)-(\d+)", r"bench \1, round \2", label))
    if ok:
        print(f"| {label} | {ok.group(1)} | {ok.group(2)} "
              f"| {short.group(1) if short else '-'} |")
    else:
        print(f"| {label} | failed: {text[:200]} | | |")
PY
echo "---- litmus"
sed -n '/variant  *scope/,$p' "$LOG" | sed 's/^\[rank 0\] //' | head -40
grep -E "^== .*exit status" "$LOG"
