// What the link between GPU 0 and GPU 1 can carry, by the means the
// collectives have: copy-engine copies (cudaMemcpyAsync to the peer's memory,
// pushed from a stream of the source or pulled from one of the destination,
// on one stream or split over several) and SM stores from every multiprocessor
// or from a few, alone and beside a local copy of the same size (what the
// copy-engine collectives' copies out of their slots add), one way and both
// ways at once. The ceiling the collectives' times are read against
// (docs/Collectives.md); bench/collectives/run.sh gpu runs it first.
//
//   peer-bandwidth        (needs 2 GPUs with peer access)
//
// Prints GB/s (10^9 bytes a second) per direction, the best of 5 timed
// repetitions after 2, at 32 MiB, 256 MiB and 1 GiB, then the copy engine's
// rate once under way and its cost per copy, fitted to one copy of 256 MiB
// and of 1 GiB: t = a + S / B.
#include "../check.h"

#include <vector>

namespace {

__global__ void copyKernel(int4 *dst, const int4 *src, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

constexpr int kStreams = 8;
constexpr size_t kMax = size_t(1) << 30;

struct Gpu {
  cudaStream_t streams[kStreams];
  cudaEvent_t done[kStreams];
  char *src, *dst, *localSrc, *localDst; // kMax bytes each
};
Gpu gpus[2];

/// How a part of the transfer moves: by a copy engine pushed from the
/// source's stream or pulled from the destination's, by SM stores from the
/// source, or, beside the transfer, a local copy on the source GPU by its
/// copy engine or by SMs.
enum Way { Push, Pull, Stores, LocalCopy, LocalStores };
struct Part {
  Way way;
  double share; // of the transfer (a local copy: of its size, beside it)
  int blocks;   // SM stores: workgroups of 512 threads
};

/// GB/s per direction of `plan` moving `bytes` from GPU 0 to GPU 1 (and at
/// once from 1 to 0 with `both`).
double measure(const std::vector<Part> &plan, size_t bytes, bool both) {
  cudaEvent_t start, stop;
  CUDA(cudaSetDevice(0));
  CUDA(cudaEventCreate(&start));
  CUDA(cudaEventCreate(&stop));
  float best = 1e30f;
  for (int rep = 0; rep < 7; ++rep) {
    CUDA(cudaSetDevice(0));
    CUDA(cudaEventRecord(start, gpus[0].streams[0]));
    for (Gpu &g : gpus)
      for (cudaStream_t s : g.streams)
        if (s != gpus[0].streams[0])
          CUDA(cudaStreamWaitEvent(s, start));
    for (int from = 0; from < (both ? 2 : 1); ++from) {
      int to = 1 - from;
      size_t at = 0;
      int used[2] = {0, 0}; // streams taken on each GPU
      for (size_t p = 0; p < plan.size(); ++p) {
        const Part &part = plan[p];
        int on = part.way == Pull ? to : from;
        cudaStream_t s = gpus[on].streams[used[on]++ % kStreams];
        CUDA(cudaSetDevice(on));
        Gpu &g = gpus[from];
        if (part.way == LocalCopy || part.way == LocalStores) {
          size_t len = size_t(bytes * part.share) / 4096 * 4096;
          if (part.way == LocalCopy)
            CUDA(cudaMemcpyAsync(g.localDst, g.localSrc, len, cudaMemcpyDefault,
                                 s));
          else
            copyKernel<<<part.blocks, 512, 0, s>>>(
                (int4 *)g.localDst, (const int4 *)g.localSrc, len / 16);
          continue;
        }
        bool last = true;
        for (size_t q = p + 1; q < plan.size(); ++q)
          last &= plan[q].way == LocalCopy || plan[q].way == LocalStores;
        size_t len =
            last ? bytes - at : size_t(bytes * part.share) / 4096 * 4096;
        char *dst = gpus[to].dst + at;
        const char *src = g.src + at;
        if (part.way == Stores)
          copyKernel<<<part.blocks, 512, 0, s>>>((int4 *)dst, (const int4 *)src,
                                                 len / 16);
        else
          CUDA(cudaMemcpyAsync(dst, src, len, cudaMemcpyDefault, s));
        at += len;
      }
    }
    for (int d = 0; d < 2; ++d)
      for (int k = 0; k < kStreams; ++k) {
        if (d == 0 && k == 0)
          continue;
        CUDA(cudaSetDevice(d));
        CUDA(cudaEventRecord(gpus[d].done[k], gpus[d].streams[k]));
        CUDA(cudaSetDevice(0));
        CUDA(cudaStreamWaitEvent(gpus[0].streams[0], gpus[d].done[k]));
      }
    CUDA(cudaSetDevice(0));
    CUDA(cudaEventRecord(stop, gpus[0].streams[0]));
    CUDA(cudaEventSynchronize(stop));
    float ms;
    CUDA(cudaEventElapsedTime(&ms, start, stop));
    if (rep >= 2 && ms < best)
      best = ms;
  }
  CUDA(cudaEventDestroy(start));
  CUDA(cudaEventDestroy(stop));
  return bytes / (best * 1e-3) / 1e9;
}

} // namespace

int main() {
  int count = 0;
  CUDA(cudaGetDeviceCount(&count));
  if (count < 2) {
    fprintf(stderr, "peer-bandwidth: needs 2 GPUs, found %d\n", count);
    return 1;
  }
  for (int d = 0; d < 2; ++d) {
    int can = 0;
    CUDA(cudaDeviceCanAccessPeer(&can, d, 1 - d));
    if (!can) {
      fprintf(stderr, "peer-bandwidth: GPU %d cannot access GPU %d\n", d,
              1 - d);
      return 1;
    }
    CUDA(cudaSetDevice(d));
    CUDA(cudaDeviceEnablePeerAccess(1 - d, 0));
    Gpu &g = gpus[d];
    for (int k = 0; k < kStreams; ++k) {
      CUDA(cudaStreamCreateWithFlags(&g.streams[k], cudaStreamNonBlocking));
      CUDA(cudaEventCreateWithFlags(&g.done[k], cudaEventDisableTiming));
    }
    for (char **p : {&g.src, &g.dst, &g.localSrc, &g.localDst}) {
      CUDA(cudaMalloc(p, kMax));
      CUDA(cudaMemset(*p, 1, kMax));
    }
  }
  int sms = 0;
  CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  auto split = [](Way way, int k) {
    return std::vector<Part>(k, Part{way, 1.0 / k, 0});
  };
  struct Case {
    const char *name;
    std::vector<Part> plan;
  };
  std::vector<Case> cases = {
      {"copy engine, pushed", split(Push, 1)},
      {"copy engine, pushed on 2 streams", split(Push, 2)},
      {"copy engine, pushed on 4 streams", split(Push, 4)},
      {"copy engine, pulled", split(Pull, 1)},
      {"copy engine, half pushed, half pulled", {{Push, .5, 0}, {Pull, .5, 0}}},
      {"SM stores, every SM", {{Stores, 1, sms * 4}}},
      {"SM stores, 32 SMs", {{Stores, 1, 32 * 4}}},
      {"copy engine 90% + SM stores 10% (16 SMs)",
       {{Push, .9, 0}, {Stores, .1, 16 * 4}}},
      {"local copy alone, copy engine", {{LocalCopy, 1, 0}}},
      {"local copy alone, every SM", {{LocalStores, 1, sms * 4}}},
      {"copy engine + local copy by copy engine",
       {{Push, 1, 0}, {LocalCopy, 1, 0}}},
      {"copy engine + local copy by every SM",
       {{Push, 1, 0}, {LocalStores, 1, sms * 4}}},
      {"SM stores + local copy by copy engine",
       {{Stores, 1, sms * 4}, {LocalCopy, 1, 0}}},
      {"SM stores + local copy by every SM",
       {{Stores, 1, sms * 4}, {LocalStores, 1, sms * 4}}},
  };
  const size_t sizes[] = {size_t(32) << 20, size_t(256) << 20, kMax};
  printf("| GB/s, GPU 0 to 1 | 32M | 256M | 1G | both ways: 32M | 256M | 1G "
         "|\n| --- | --- | --- | --- | --- | --- | --- |\n");
  for (const Case &c : cases) {
    printf("| %s |", c.name);
    for (bool both : {false, true})
      for (size_t b : sizes)
        printf(" %.1f |", measure(c.plan, b, both));
    printf("\n");
  }
  // One copy's time at two sizes: t = a + S / B.
  double s1 = double(size_t(256) << 20), s2 = double(kMax);
  double t1 = s1 / (measure(split(Push, 1), size_t(s1), false) * 1e3);
  double t2 = s2 / (measure(split(Push, 1), size_t(s2), false) * 1e3);
  double rate = (s2 - s1) / (t2 - t1); // bytes per us
  printf("copy engine once under way: %.1f GB/s, %.1f us per copy "
         "(256M in %.0f us, 1G in %.0f us)\n",
         rate / 1e3, t1 - s1 / rate, t1, t2);
  return 0;
}
