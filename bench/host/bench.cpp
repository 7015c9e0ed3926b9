//===- bench.cpp - CPU-target launch and synchronisation costs -*- C++ -*-===//
//
//   symm-run -n 2 bench-host kernels.so [ITERS]
//
// Every rank measures, with the host backend:
//   - 1000 launches of an empty kernel of one 128-thread block, then one
//     synchronisation (the launch rate);
//   - launches of 64 blocks x 256 threads and 132 blocks x 128 threads;
//   - a gpu.barrier round trip in one 256-thread block (ITERS barriers, 2000);
//   - an xor gpu.shuffle in one 256-thread block (ITERS shuffles).
// bench/host/run.sh runs it against two runtimes.
// A shape the runtime rejects is reported with its error and the rest go on.
//
//===----------------------------------------------------------------------===//

#include "symm/runtime.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

symm_module *module;

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int32_t out[256];

/// Seconds for `count` launches of `kernel` and one synchronisation, or a
/// negative number after printing the error. With `n`, the kernel takes `n`
/// and, for `shuffles`, the output memref.
double time(const char *kernel, unsigned blocks, unsigned threads, int count,
            int64_t n = -1) {
  unsigned grid[3] = {blocks, 1, 1}, block[3] = {threads, 1, 1};
  // memref<?xi32>: allocated and aligned pointer, offset, size, stride.
  void *base = out;
  int64_t offset = 0, size = 256, stride = 1;
  void *params[] = {&n, &base, &base, &offset, &size, &stride};
  size_t numParams = n < 0 ? 0 : std::string(kernel) == "shuffles" ? 6 : 1;
  double start = now();
  for (int i = 0; i < count; ++i) {
    if (symm_launch(module, kernel, grid, block, 0, nullptr, params,
                    numParams) != SYMM_SUCCESS) {
      printf("%s %ux%u: %s\n", kernel, blocks, threads, symm_last_error());
      return -1;
    }
  }
  if (symm_synchronize() != SYMM_SUCCESS) {
    printf("%s %ux%u: %s\n", kernel, blocks, threads, symm_last_error());
    return -1;
  }
  return now() - start;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: bench-host KERNELS.so [ITERS]\n");
    return 2;
  }
  int64_t iters = argc == 3 ? atoll(argv[2]) : 2000;
  if (iters < 1) {
    fprintf(stderr, "bench-host: ITERS must be a positive number\n");
    return 2;
  }
  if (symm_init() != SYMM_SUCCESS ||
      symm_module_load_file(argv[1], &module) != SYMM_SUCCESS) {
    fprintf(stderr, "bench-host: %s\n", symm_last_error());
    return 1;
  }
  // The first launch of a shape also pays for mapping its stacks.
  if (time("empty", 1, 128, 1) < 0)
    return 1;
  if (double s = time("empty", 1, 128, 1000); s >= 0)
    printf("1000 launches of 1x128 empty: %.3f s (%.1f us each)\n", s, s * 1e3);
  const unsigned shapes[2][2] = {{64, 256}, {132, 128}};
  for (const unsigned *shape : shapes) {
    double first = time("empty", shape[0], shape[1], 1);
    double s = first < 0 ? first : time("empty", shape[0], shape[1], 10);
    if (s >= 0)
      printf("%ux%u empty: first launch %.2f ms, then %.2f ms per launch\n",
             shape[0], shape[1], first * 1e3, s * 100);
  }
  if (double s = time("barriers", 1, 256, 1, iters); s >= 0)
    printf("gpu.barrier in 1x256: %.2f us per barrier\n", s * 1e6 / iters);
  if (double s = time("shuffles", 1, 256, 1, iters); s >= 0)
    printf("gpu.shuffle in 1x256: %.2f us per shuffle\n", s * 1e6 / iters);
  symm_module_unload(module);
  return symm_finalize() == SYMM_SUCCESS ? 0 : 1;
}
