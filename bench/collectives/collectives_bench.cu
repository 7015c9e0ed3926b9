//===- collectives_bench.cu - Symm collectives against NCCL -----*- C++ -*-===//
//
//   symm-run -n 2 --backend cuda collectives-bench [--trace=FILE]
//     [MIN MAX [GRAPH_MAX]] > csv
//
// For every collective and size (the nccl-tests size: the larger of the send
// and receive buffers per rank, bf16 elements, sum), times Symm's collective
// and NCCL's on the same GPUs, the same buffers (send and recv in the
// symmetric heap; NCCL's output in cudaMalloc memory) and the same stream:
// device events around ITERS back-to-back calls after a warm-up, median of 5
// repetitions, in two modes: "stream", the calls issued one by one (host
// dispatch in both numbers), and, up to GRAPH_MAX bytes (64M; above it
// dispatch is hidden behind the transfer), "graph", the same ITERS calls
// captured once in a CUDA graph and the graph launched (host dispatch in
// neither). Each size's outputs are compared with NCCL's (the inputs are
// small integers, so both are exact), and again after the graph replays.
// All-reduce is also timed with the ring forced (SYMM_ALL_REDUCE_ALGO=ring,
// impl "symm_ring"), which the size never picks on 2 GPUs, unless the run
// forces an algorithm for every call itself. SYMM_BENCH_COLLECTIVES (a list
// of names) times only those. Prints CSV on rank
// 0: collective,impl,mode,bytes,us,algbw,busbw,host_us (GB/s, nccl-tests
// formulas; host_us: the host's time to issue a call). --trace=FILE writes a
// trace of every rank's kernels (SYMM_TRACE, docs/Tracing.md): the runtime
// then runs its collective kernels compiled with --trace, and each subgroup
// keeps its first SYMM_TRACE_EVENTS events, so give a narrow MIN..MAX to see
// those sizes' calls.
//
//===----------------------------------------------------------------------===//

#include "../check.h"
#include "symm/collectives.h"

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#define NCCL(call)                                                             \
  do {                                                                         \
    ncclResult_t r_ = (call);                                                  \
    if (r_ != ncclSuccess) {                                                   \
      fprintf(stderr, "%s: %s\n", #call, ncclGetErrorString(r_));              \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

namespace {

int rank, world;

__global__ void fill(__nv_bfloat16 *p, size_t n, int seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    p[i] = __float2bfloat16(float(int((i * 7 + seed * 13) % 15) - 7));
}

/// Microseconds per call: median over repetitions of events around `iters`
/// calls, issued one by one or (`graph`) captured once in a CUDA graph; and
/// in `host`, the host's time to issue them (its median), per call: where it
/// is near the device time, the calls are bound by host dispatch.
double timeCalls(cudaStream_t stream, int iters,
                 const std::function<void()> &call, bool graph, double *host) {
  for (int i = 0; i < 3; ++i)
    call();
  CUDA(cudaStreamSynchronize(stream));
  cudaGraphExec_t exec = nullptr;
  if (graph) {
    cudaGraph_t g;
    CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < iters; ++i)
      call();
    CUDA(cudaStreamEndCapture(stream, &g));
    CUDA(cudaGraphInstantiate(&exec, g, 0));
    CUDA(cudaGraphDestroy(g));
    CUDA(cudaGraphLaunch(exec, stream));
    CUDA(cudaStreamSynchronize(stream));
  }
  cudaEvent_t start, stop;
  CUDA(cudaEventCreate(&start));
  CUDA(cudaEventCreate(&stop));
  std::vector<double> us, hostUs;
  for (int rep = 0; rep < 5; ++rep) {
    CHECK(symm_barrier());
    CUDA(cudaEventRecord(start, stream));
    auto issue = std::chrono::steady_clock::now();
    if (graph)
      CUDA(cudaGraphLaunch(exec, stream));
    else
      for (int i = 0; i < iters; ++i)
        call();
    hostUs.push_back(std::chrono::duration<double, std::micro>(
                         std::chrono::steady_clock::now() - issue)
                         .count() /
                     iters);
    CUDA(cudaEventRecord(stop, stream));
    CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA(cudaEventElapsedTime(&ms, start, stop));
    us.push_back(1000.0 * ms / iters);
  }
  CUDA(cudaEventDestroy(start));
  CUDA(cudaEventDestroy(stop));
  if (exec)
    CUDA(cudaGraphExecDestroy(exec));
  std::sort(hostUs.begin(), hostUs.end());
  *host = hostUs[hostUs.size() / 2];
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

bool same(const void *a, const void *b, size_t bytes) {
  std::vector<char> x(bytes), y(bytes);
  CUDA(cudaMemcpy(x.data(), a, bytes, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(y.data(), b, bytes, cudaMemcpyDeviceToHost));
  return x == y;
}

} // namespace

int main(int argc, char **argv) {
  // --trace=FILE, before symm_init reads SYMM_TRACE; the sizes follow it.
  if (argc > 1 && !strncmp(argv[1], "--trace=", 8)) {
    setenv("SYMM_TRACE", argv[1] + 8, 1);
    ++argv;
    --argc;
  }
  CHECK(symm_init());
  rank = symm_rank();
  world = symm_world_size();
  size_t minBytes = argc > 1 ? strtoull(argv[1], nullptr, 0) : 8 << 10;
  size_t maxBytes = argc > 2 ? strtoull(argv[2], nullptr, 0) : 1ull << 30;
  size_t graphMax = argc > 3 ? strtoull(argv[3], nullptr, 0) : 64ull << 20;
  const char *forcedAlgo = getenv("SYMM_ALL_REDUCE_ALGO");
  bool forced = forcedAlgo && *forcedAlgo;
  // SYMM_BENCH_COLLECTIVES=all_reduce,...: only those.
  const char *only = getenv("SYMM_BENCH_COLLECTIVES");
  if (only && !*only)
    only = nullptr;

  // NCCL's id travels through rank 0's heap.
  ncclUniqueId id;
  void *idSlot;
  CHECK(symm_malloc(sizeof(id), &idSlot));
  if (rank == 0) {
    NCCL(ncclGetUniqueId(&id));
    CUDA(cudaMemcpy(idSlot, &id, sizeof(id), cudaMemcpyHostToDevice));
  }
  CHECK(symm_barrier());
  void *rootSlot;
  CHECK(symm_translate(idSlot, 0, &rootSlot));
  CUDA(cudaMemcpy(&id, rootSlot, sizeof(id), cudaMemcpyDeviceToHost));
  ncclComm_t comm;
  NCCL(ncclCommInitRank(&comm, world, id, rank));

  // On the cuda backend a symm_stream is the CUstream itself.
  cudaStream_t stream;
  CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  auto *sstream = reinterpret_cast<symm_stream *>(stream);

  const size_t es = 2;
  // send and recv in the symmetric heap, as symmetric tensors are: Symm's
  // exchanges store straight into recv there; NCCL uses the same memory.
  __nv_bfloat16 *send, *recv, *ref;
  CHECK(symm_malloc(maxBytes, reinterpret_cast<void **>(&send)));
  CHECK(symm_malloc(maxBytes, reinterpret_cast<void **>(&recv)));
  CUDA(cudaMalloc(&ref, maxBytes));
  fill<<<1024, 256>>>(send, maxBytes / es, rank);
  CUDA(cudaDeviceSynchronize());

  if (rank == 0)
    printf("collective,impl,mode,bytes,us,algbw,busbw,host_us\n");
  int mismatches = 0;
  const double n = world;
  for (size_t bytes = minBytes; bytes <= maxBytes; bytes *= 2) {
    size_t count = bytes / es;   // elements of the larger buffer
    size_t part = count / world; // per-rank block
    int iters = bytes <= (1 << 20) ? 200 : bytes <= (64 << 20) ? 40 : 10;
    struct Case {
      const char *name;
      double busFactor;
      std::function<void()> symm, nccl;
      // What the call writes, compared with NCCL's: all-gather and
      // all-to-all fill part * world elements, fewer than `count` where the
      // rank count does not divide it (3 GPUs).
      size_t outBytes;
      // An all-reduce algorithm forced for Symm's call, timed as
      // "symm_<algo>"; NCCL is timed once, by the case that forces none.
      const char *algo = nullptr;
    };
    auto symmAllReduce = [&] {
      CHECK(symm_all_reduce(send, recv, count, SYMM_BFLOAT16, SYMM_SUM,
                            sstream));
    };
    auto ncclAllReduceCall = [&] {
      NCCL(ncclAllReduce(send, ref, count, ncclBfloat16, ncclSum, comm,
                         stream));
    };
    std::vector<Case> cases = {
        {"all_reduce", 2 * (n - 1) / n, symmAllReduce, ncclAllReduceCall,
         bytes},
        {"all_reduce", 2 * (n - 1) / n, symmAllReduce, ncclAllReduceCall,
         bytes, "ring"},
        {"all_gather", (n - 1) / n,
         [&] {
           CHECK(symm_all_gather(send, recv, part, SYMM_BFLOAT16, sstream));
         },
         [&] {
           NCCL(ncclAllGather(send, ref, part, ncclBfloat16, comm, stream));
         },
         part * world * es},
        {"reduce_scatter", (n - 1) / n,
         [&] {
           CHECK(symm_reduce_scatter(send, recv, part, SYMM_BFLOAT16, SYMM_SUM,
                                     sstream));
         },
         [&] {
           NCCL(ncclReduceScatter(send, ref, part, ncclBfloat16, ncclSum, comm,
                                  stream));
         },
         part * es},
        {"all_to_all", (n - 1) / n,
         [&] {
           CHECK(symm_all_to_all(send, recv, part, SYMM_BFLOAT16, sstream));
         },
         [&] {
           NCCL(ncclGroupStart());
           for (int r = 0; r < world; ++r) {
             NCCL(ncclSend(send + r * part, part, ncclBfloat16, r, comm,
                           stream));
             NCCL(
                 ncclRecv(ref + r * part, part, ncclBfloat16, r, comm, stream));
           }
           NCCL(ncclGroupEnd());
         },
         part * world * es},
        {"broadcast", 1.0,
         [&] {
           CHECK(symm_broadcast(send, recv, count, SYMM_BFLOAT16, 0, sstream));
         },
         [&] {
           NCCL(ncclBroadcast(send, ref, count, ncclBfloat16, 0, comm, stream));
         },
         bytes},
    };
    for (Case &c : cases) {
      if (only && !strstr(only, c.name))
        continue;
      std::string symm = c.algo ? std::string("symm_") + c.algo : "symm";
      if (c.algo) {
        // Only when the whole run does not force an algorithm itself.
        if (forced)
          continue;
        setenv("SYMM_ALL_REDUCE_ALGO", c.algo, 1);
      }
      // Check once per size, then time.
      c.symm();
      c.nccl();
      CUDA(cudaStreamSynchronize(stream));
      if (!same(recv, ref, c.outBytes)) {
        fprintf(stderr, "rank %d: %s %s of %zu bytes differs from NCCL\n", rank,
                c.name, symm.c_str(), bytes);
        ++mismatches;
      }
      for (int graph = 0; graph < (bytes <= graphMax ? 2 : 1); ++graph)
        for (int impl = 0; impl < (c.algo ? 1 : 2); ++impl) {
          double host;
          double us =
              timeCalls(stream, iters, impl ? c.nccl : c.symm, graph, &host);
          double algbw = bytes / (us * 1e3);
          if (rank == 0)
            printf("%s,%s,%s,%zu,%.2f,%.2f,%.2f,%.2f\n", c.name,
                   impl ? "nccl" : symm.c_str(), graph ? "graph" : "stream",
                   bytes, us, algbw, algbw * c.busFactor, host);
          fflush(stdout);
        }
      // The replayed graphs ran the calls with the same arguments: the
      // results must still be NCCL's.
      if (bytes <= graphMax) {
        CUDA(cudaMemset(recv, 0, c.outBytes));
        CUDA(cudaStreamSynchronize(stream));
        CHECK(symm_barrier());
        cudaGraph_t g;
        cudaGraphExec_t exec;
        CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        c.symm();
        CUDA(cudaStreamEndCapture(stream, &g));
        CUDA(cudaGraphInstantiate(&exec, g, 0));
        for (int i = 0; i < 3; ++i)
          CUDA(cudaGraphLaunch(exec, stream));
        CUDA(cudaStreamSynchronize(stream));
        CUDA(cudaGraphExecDestroy(exec));
        CUDA(cudaGraphDestroy(g));
        if (!same(recv, ref, c.outBytes)) {
          fprintf(stderr,
                  "rank %d: %s %s of %zu bytes from a replayed graph differs "
                  "from NCCL\n",
                  rank, c.name, symm.c_str(), bytes);
          ++mismatches;
        }
      }
      if (c.algo)
        unsetenv("SYMM_ALL_REDUCE_ALGO");
    }
  }
  NCCL(ncclCommDestroy(comm));
  CUDA(cudaFree(ref));
  CHECK(symm_free(recv));
  CHECK(symm_free(send));
  CHECK(symm_free(idSlot));
  CHECK(symm_finalize());
  if (mismatches)
    fprintf(stderr, "rank %d: %d mismatches against NCCL\n", rank, mismatches);
  return mismatches ? 1 : 0;
}
