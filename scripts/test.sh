#!/usr/bin/env bash
# Sets up and builds (scripts/setup.sh), then runs the whole test suite: lit
# (check-symm) and the runtime's ctest tests. Exits non-zero if any fails.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
cmake --build "${SYMM_BUILD_DIR:-$ROOT/build}" --target check-symm
