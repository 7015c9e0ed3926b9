#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then configures, builds and runs
# a separate project that finds it with find_package(Symm CONFIG).
set -euo pipefail
build="$1" src="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -G Ninja -S "$src/project" -B "$work/consumer" \
  -DCMAKE_C_COMPILER="$(grep -m1 '^CMAKE_C_COMPILER:' "$build/CMakeCache.txt" | cut -d= -f2)" \
  -DCMAKE_CXX_COMPILER="$(grep -m1 '^CMAKE_CXX_COMPILER:' "$build/CMakeCache.txt" | cut -d= -f2)" \
  -DSymm_DIR="$work/prefix/lib/cmake/symm" > "$work/configure.log" ||
  { cat "$work/configure.log"; exit 1; }
cmake --build "$work/consumer" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
"$work/consumer/symm-consumer"
"$work/consumer/symm-consumer-c"
