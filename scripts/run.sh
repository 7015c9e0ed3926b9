#!/usr/bin/env bash
# Sets up and builds (scripts/setup.sh), then runs the main job.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
BUILD="${SYMM_BUILD_DIR:-$ROOT/build}"
"$BUILD/bin/symm-opt" "$ROOT/test/Dialect/Symm/ops.mlir" --canonicalize --cse
