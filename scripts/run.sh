#!/usr/bin/env bash
# Sets up and builds (scripts/setup.sh), then runs the main job: the fused
# all-gather example on SYMM_RANKS ranks (default 4) of the CPU backend, or
# on GPUs with SYMM_BACKEND=cuda.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
BUILD="${SYMM_BUILD_DIR:-$ROOT/build}"
exec "$BUILD/bin/symm-run" -n "${SYMM_RANKS:-4}" \
  --backend "${SYMM_BACKEND:-host}" "$ROOT/examples/allgather.mlir"
