#!/usr/bin/env bash
# Prints docs/MemoryModel.md's instruction tables from what symm-compile emits
# for every ordered op x ordering x scope (the kernels of the lit tests in
# test/Target). Usage: scripts/memory-model-table.sh [build-dir]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
SRC="$ROOT/test/Target/NVVM/scopes.mlir"

# The instructions of one kernel, joined with "; ", from an assembly file.
# Kernels that return a value end with a plain store of it, which is dropped.
body() { # file label-regex end-regex filter drop-last
  awk -v start="$2" -v stop="$3" '$0 ~ start {on=1; next} on && $0 ~ stop {exit} on' "$1" |
    grep -E "$4" | grep -vE 'ld\.param|ld\.const' |
    sed -E 's/^[[:space:]]+//; s/[[:space:]]+/ /g; s/ ?%[a-z]+[0-9]+//g; s/ v\[?[0-9:]+\]?//g; s/ s\[[0-9:]+\]//g; s/\[[^]]*\]/[]/g; s/,//g; s/;$//; s/ +$//' |
    grep -v '^$' | { if [[ "$5" == 1 ]]; then sed '$d'; else cat; fi; } |
    paste -sd ';' - | sed 's/;/; /g'
}

"$BUILD/bin/symm-compile" --target=sm_90 --emit=ptx "$SRC" -o "$TMP/k.ptx"
"$BUILD/bin/symm-compile" --target=gfx942 --emit=isa "$SRC" -o "$TMP/k942.s"
"$BUILD/bin/symm-compile" --target=gfx90a --emit=isa "$SRC" -o "$TMP/k90a.s"

echo "| op | ordering | scope | PTX (sm_90) | gfx942 | gfx90a |"
echo "| --- | --- | --- | --- | --- | --- |"
for op in load store rmw red cas fence; do
  for ordering in relaxed acquire release acq_rel seq_cst; do
    for scope in workgroup device system; do
      name="${op}_${ordering}_${scope}"
      grep -q "@$name(" "$SRC" || continue
      drop=0
      [[ $op == load || $op == rmw || $op == cas ]] && drop=1
      ptx=$(body "$TMP/k.ptx" "\\.entry $name\\(" "^}" 'ld\.|st\.|atom|red\.|fence|membar' $drop)
      g942=$(body "$TMP/k942.s" "^$name:" "s_endpgm" 'global_|buffer_' $drop)
      g90a=$(body "$TMP/k90a.s" "^$name:" "s_endpgm" 'global_|buffer_' $drop)
      echo "| $op | $ordering | $scope | \`$ptx\` | \`$g942\` | \`$g90a\` |"
    done
  done
done
