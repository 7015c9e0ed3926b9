//===- bench.cpp - Symm GPU benchmarks against their baselines --*- C++ -*-===//
//
//   symm-run -n 2 --backend cuda bench-gpu bench.cubin
//
// Rank 0 measures, in one run and on the same buffers:
//   - SM peer stores: the `push` kernel (symm.put from every block) moving
//     256 MiB into rank 1's heap, against the copy engine doing the same copy
//     (cudaMemcpyAsync to the peer's mapped heap) - reported as a ratio;
//   - one-way flag latency of the `pingpong` kernel (release signal, acquire
//     wait, system scope), over 100000 round trips;
//   - an 8 KiB-per-rank all-gather: the fused `allgather` kernel (one launch:
//     signalled puts to every rank, then waits) against NCCL's ncclAllGather
//     on the same GPUs, 2000 back-to-back operations each.
// Every number is the median of the repetitions after a warm-up, and the pushed
// data is checked on rank 1.
//
//===----------------------------------------------------------------------===//

#include "check.h"
#include "symm/runtime.h"

#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

static double seconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// params for a 1-D memref: allocated, aligned, offset, size, stride.
struct MemRef1D {
  void *allocated, *aligned;
  int64_t offset, size, stride;
  void push(std::vector<void *> &params) {
    params.insert(params.end(),
                  {&allocated, &aligned, &offset, &size, &stride});
  }
};

__global__ void fill(float *p, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    p[i] = float(i % 1000003);
}

__global__ void verify(const float *p, size_t n, unsigned long long *bad) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    if (p[i] != float(i % 1000003))
      atomicAdd(bad, 1ull);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: bench-gpu KERNELS.cubin\n");
    return 2;
  }
  CHECK(symm_init());
  int rank = symm_rank();
  if (symm_world_size() != 2) {
    fprintf(stderr, "run on 2 ranks\n");
    return 2;
  }
  const size_t bytes = 256ull << 20, n = bytes / sizeof(float);
  float *src, *dst;
  CHECK(symm_malloc(bytes, reinterpret_cast<void **>(&src)));
  CHECK(symm_malloc(bytes, reinterpret_cast<void **>(&dst)));
  int *flags;
  CHECK(symm_malloc(2 * sizeof(int), reinterpret_cast<void **>(&flags)));
  CUDA(cudaMemset(flags, 0, 2 * sizeof(int)));
  CUDA(cudaMemset(dst, 0, bytes));
  fill<<<1024, 256>>>(src, n);
  CUDA(cudaDeviceSynchronize());
  symm_module *module;
  CHECK(symm_module_load_file(argv[1], &module));
  CHECK(symm_barrier());

  // SM peer stores vs the copy engine, rank 0 -> rank 1.
  const unsigned blocks = 1056, threads = 512;
  MemRef1D s{src, src, 0, int64_t(n), 1}, d{dst, dst, 0, int64_t(n), 1};
  int32_t peer = 1;
  // Slices start on 16-byte boundaries, as tiles of a real kernel would.
  int64_t chunk = int64_t(n / blocks) & ~int64_t(3);
  std::vector<void *> params;
  s.push(params);
  d.push(params);
  params.push_back(&peer);
  params.push_back(&chunk);
  size_t moved = size_t(chunk) * blocks * sizeof(float);
  void *remote;
  CHECK(symm_translate(dst, 1, &remote));
  // Second variant: every slice starts one float past a 16-byte boundary on
  // both sides, which symm.put handles by peeling to the boundary.
  MemRef1D s1{src, src, 1, int64_t(n - 4), 1},
      d1{dst, dst, 1, int64_t(n - 4), 1};
  std::vector<void *> shifted;
  s1.push(shifted);
  d1.push(shifted);
  shifted.push_back(&peer);
  shifted.push_back(&chunk);
  std::vector<double> put, copy, putShifted;
  if (rank == 0) {
    unsigned grid[3] = {blocks, 1, 1}, block[3] = {threads, 1, 1};
    for (int rep = 0; rep < 23; ++rep) {
      double t0 = seconds();
      CHECK(symm_launch(module, "push", grid, block, 0, nullptr, shifted.data(),
                        shifted.size()));
      CHECK(symm_synchronize());
      double t1 = seconds();
      CHECK(symm_launch(module, "push", grid, block, 0, nullptr, params.data(),
                        params.size()));
      CHECK(symm_synchronize());
      double t2 = seconds();
      CUDA(cudaMemcpyAsync(remote, src, moved, cudaMemcpyDeviceToDevice, 0));
      CUDA(cudaDeviceSynchronize());
      double t3 = seconds();
      if (rep >= 3) {
        putShifted.push_back(t1 - t0);
        put.push_back(t2 - t1);
        copy.push_back(t3 - t2);
      }
    }
  }
  CHECK(symm_barrier());
  if (rank == 1) {
    unsigned long long *bad;
    CUDA(cudaMallocManaged(&bad, sizeof(*bad)));
    *bad = 0;
    verify<<<1024, 256>>>(dst, moved / sizeof(float), bad);
    CUDA(cudaDeviceSynchronize());
    printf("pushed data check: %s (%llu wrong of %zu)\n",
           *bad ? "FAILED" : "ok", *bad, moved / sizeof(float));
  }

  // Flag ping-pong: both ranks run the kernel at once.
  int32_t iters = 100000;
  MemRef1D f{flags, flags, 0, 2, 1};
  std::vector<void *> pp;
  f.push(pp);
  pp.push_back(&iters);
  std::vector<double> latency;
  for (int rep = 0; rep < 5; ++rep) {
    CUDA(cudaMemset(flags, 0, 2 * sizeof(int)));
    CUDA(cudaDeviceSynchronize());
    CHECK(symm_barrier());
    unsigned one[3] = {1, 1, 1};
    double t0 = seconds();
    CHECK(symm_launch(module, "pingpong", one, one, 0, nullptr, pp.data(),
                      pp.size()));
    CHECK(symm_synchronize());
    double t1 = seconds();
    if (rep >= 1)
      latency.push_back((t1 - t0) / (2.0 * iters));
  }
  CHECK(symm_barrier());

  // All-gather, 8 KiB per rank.
  const size_t count = 2048;
  const int world = symm_world_size();
  float *tile, *gather;
  int *agFlags;
  CHECK(symm_malloc(count * sizeof(float), reinterpret_cast<void **>(&tile)));
  CHECK(symm_malloc(world * count * sizeof(float),
                    reinterpret_cast<void **>(&gather)));
  CHECK(symm_malloc(64 * sizeof(int), reinterpret_cast<void **>(&agFlags)));
  CUDA(cudaMemset(agFlags, 0, 64 * sizeof(int)));
  fill<<<8, 256>>>(tile, count);
  CUDA(cudaDeviceSynchronize());
  // NCCL's id goes through rank 0's heap.
  ncclUniqueId id;
  ncclUniqueId *idSlot;
  CHECK(symm_malloc(sizeof(id), reinterpret_cast<void **>(&idSlot)));
  if (rank == 0) {
    if (ncclGetUniqueId(&id) != ncclSuccess)
      return fprintf(stderr, "ncclGetUniqueId failed\n"), 1;
    CUDA(cudaMemcpy(idSlot, &id, sizeof(id), cudaMemcpyHostToDevice));
  }
  CHECK(symm_barrier());
  void *rootSlot;
  CHECK(symm_translate(idSlot, 0, &rootSlot));
  CUDA(cudaMemcpy(&id, rootSlot, sizeof(id), cudaMemcpyDeviceToHost));
  ncclComm_t comm;
  if (ncclCommInitRank(&comm, world, id, rank) != ncclSuccess)
    return fprintf(stderr, "ncclCommInitRank failed\n"), 1;
  float *ncclOut;
  CUDA(cudaMalloc(&ncclOut, world * count * sizeof(float)));
  MemRef1D gt{tile, tile, 0, int64_t(count), 1};
  MemRef1D gg{gather, gather, 0, int64_t(world * count), 1};
  MemRef1D gf{agFlags, agFlags, 0, 64, 1};
  int32_t epoch = 0;
  int64_t countParam = int64_t(count);
  std::vector<void *> ag;
  gt.push(ag);
  gg.push(ag);
  gf.push(ag);
  ag.push_back(&epoch);
  ag.push_back(&countParam);
  const int ops = 2000;
  std::vector<double> symmAg, ncclAg;
  unsigned agGrid[3] = {1, 1, 1}, agBlock[3] = {256, 1, 1};
  for (int rep = 0; rep < 6; ++rep) {
    CHECK(symm_barrier());
    double t0 = seconds();
    for (int k = 0; k < ops; ++k) {
      ++epoch;
      CHECK(symm_launch(module, "allgather", agGrid, agBlock, 0, nullptr,
                        ag.data(), ag.size()));
    }
    CHECK(symm_synchronize());
    double t1 = seconds();
    CHECK(symm_barrier());
    double t2 = seconds();
    for (int k = 0; k < ops; ++k)
      if (ncclAllGather(tile, ncclOut, count, ncclFloat32, comm, 0) !=
          ncclSuccess)
        return fprintf(stderr, "ncclAllGather failed\n"), 1;
    CUDA(cudaStreamSynchronize(0));
    double t3 = seconds();
    if (rep >= 1) {
      symmAg.push_back((t1 - t0) / ops);
      ncclAg.push_back((t3 - t2) / ops);
    }
  }
  // Both must have gathered every rank's tile.
  std::vector<float> mine(world * count), theirs(world * count);
  CUDA(cudaMemcpy(mine.data(), gather, mine.size() * sizeof(float),
                  cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(theirs.data(), ncclOut, theirs.size() * sizeof(float),
                  cudaMemcpyDeviceToHost));
  size_t wrong = 0;
  for (size_t i = 0; i < mine.size(); ++i)
    wrong += mine[i] != float((i % count) % 1000003) || mine[i] != theirs[i];
  printf("all-gather data check: %s (%zu wrong of %zu)\n",
         wrong ? "FAILED" : "ok", wrong, mine.size());
  ncclCommDestroy(comm);
  CHECK(symm_barrier());

  if (rank == 0) {
    double putBw = moved / median(put) / 1e9,
           copyBw = moved / median(copy) / 1e9;
    printf("%-44s %10s %10s %8s\n", "benchmark (rank 0 -> rank 1)", "symm",
           "baseline", "ratio");
    double shiftedBw = moved / median(putShifted) / 1e9;
    printf("%-44s %7.1f GB/s %7.1f GB/s %7.2fx\n",
           "peer put 256 MiB: symm.put vs cudaMemcpy", putBw, copyBw,
           putBw / copyBw);
    printf("%-44s %7.1f GB/s %7.1f GB/s %7.2fx\n",
           "same, slices 4 B off 16 B (peeled) vs memcpy", shiftedBw, copyBw,
           shiftedBw / copyBw);
    double us = median(latency) * 1e6;
    printf("%-44s %8.2f us %8.2f us %7.2fx\n",
           "flag one-way latency vs DESIGN.md probe", us, 1.2, 1.2 / us);
    double symmUs = median(symmAg) * 1e6, ncclUs = median(ncclAg) * 1e6;
    printf("%-44s %8.2f us %8.2f us %7.2fx\n",
           "8 KiB/rank all-gather: fused kernel vs NCCL", symmUs, ncclUs,
           ncclUs / symmUs);
  }
  CHECK(symm_module_unload(module));
  CHECK(symm_finalize());
  return 0;
}
