//===- Clock.cpp - The CPU target's clock for trace events ------*- C++ -*-===//
//
// Trace events of CPU-target kernels (symm-compile --trace) are stamped with
// CLOCK_MONOTONIC, which every rank of a node shares.
//
//===----------------------------------------------------------------------===//

#include "symm/abi.h"
#include "symm/runtime.h"

#include <time.h>

extern "C" SYMM_EXPORT int64_t _symm_host_clock_ns() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return int64_t(now.tv_sec) * 1000000000 + now.tv_nsec;
}
