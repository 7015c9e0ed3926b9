//===- check.h - Error checks of the GPU benchmark programs -----*- C++ -*-===//
//
// A failed Symm or CUDA call ends a benchmark with the call and the reason.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_BENCH_CHECK_H
#define SYMM_BENCH_CHECK_H

#include "symm/runtime.h"

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    symm_status s_ = (call);                                                   \
    if (s_ != SYMM_SUCCESS) {                                                  \
      fprintf(stderr, "%s: %s\n", #call, symm_last_error());                   \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)
#define CUDA(call)                                                             \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));              \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

#endif // SYMM_BENCH_CHECK_H
