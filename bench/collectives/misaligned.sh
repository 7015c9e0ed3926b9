#!/usr/bin/env bash
# The collectives at sizes whose per-rank blocks are whole 16-byte vectors
# and at sizes 4 bytes larger, where every other rank's block starts between
# vectors (a real token count), beside NCCL, on 2 GPUs; by one bundle or
# several (the code before and after a change, in one command).
#
# There, from the repository (folders that bench/collectives/run.sh bundle
# made):
#   bench/collectives/misaligned.sh NAME=DIR [NAME=DIR...]
# e.g. misaligned.sh old=.device-old new=.device-collectives. SIZES (bytes,
# default "1048576 1048580 33554432 33554436") are the sizes; prints a table
# of each collective, mode and size: NCCL's time, then each bundle's (NCCL's
# over it in brackets); the rows go to $OUT/misaligned.csv (or ./results).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench.sh"
bundle_args "$@"
CSV="$RESULTS/misaligned.csv"
: > "$CSV"
names=()
for arg in "$@"; do
  name=${arg%%=*} dir=$(realpath "${arg#*=}")
  names+=("$name")
  for b in ${SIZES:-1048576 1048580 33554432 33554436}; do
    collectives_bench "$dir" 2 "$RESULTS/misaligned-$name-$b.err" "$b" "$b" |
      grep -v '^collective' | sed "s/^/$name,/" >> "$CSV"
  done
done
python3 - "$CSV" "${names[@]}" <<'PY'
import sys
csv_path, names = sys.argv[1], sys.argv[2:]
t = {}
for line in open(csv_path):
    r = line.strip().split(',')
    if len(r) >= 6:
        t[(r[0], r[1], r[2], r[3], int(r[4]))] = float(r[5])
keys = sorted({k[1:] for k in t if k[2] == 'symm'})
print("| collective | mode | bytes | NCCL | " + " | ".join(names) + " |")
print("| --- " * (4 + len(names)) + "|")
for c, impl, mode, b in keys:
    n = t.get((names[-1], c, 'nccl', mode, b))
    cells = []
    for name in names:
        us = t.get((name, c, impl, mode, b))
        cells.append("%.2f (%.2f)" % (us, n / us) if us and n else "-")
    print("| %s | %s | %d | %s | %s |" % (c, mode, b, "%.2f" % n if n else "-", " | ".join(cells)))
PY
