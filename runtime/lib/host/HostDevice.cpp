//===- HostDevice.cpp - Running kernels on CPU threads ----------*- C++ -*-===//
//
// One OS thread per GPU thread; the functions below are what kernels compiled
// for the CPU target call for thread ids, gpu.barrier, workgroup memory and
// gpu.shuffle.
//
//===----------------------------------------------------------------------===//

#include "HostDevice.h"
#include "../core/Runtime.h"

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <vector>

using namespace symm;

namespace {

class Barrier {
public:
  explicit Barrier(int count) : count(count) {}
  void wait() {
    std::unique_lock<std::mutex> lock(mutex);
    uint64_t generation = this->generation;
    if (++waiting == count) {
      waiting = 0;
      ++this->generation;
      arrived.notify_all();
      return;
    }
    arrived.wait(lock, [&] { return this->generation != generation; });
  }

private:
  std::mutex mutex;
  std::condition_variable arrived;
  int count, waiting = 0;
  uint64_t generation = 0;
};

struct Block {
  explicit Block(int threads, size_t sharedBytes)
      : barrier(threads), shared(sharedBytes), slots(threads) {
    for (int first = 0; first < threads; first += kHostSubgroupSize)
      subgroups.push_back(std::make_unique<Barrier>(
          std::min(kHostSubgroupSize, threads - first)));
  }
  Barrier barrier;
  std::vector<char> shared;
  std::vector<int64_t> slots;
  std::vector<std::unique_ptr<Barrier>> subgroups;
};

struct Thread {
  const LaunchShape *shape;
  unsigned tid[3], bid[3];
  int linear;
  Block *block;
  void (*entry)(void **);
  void **params;
};

thread_local Thread *current = nullptr;

void *threadMain(void *arg) {
  current = static_cast<Thread *>(arg);
  current->entry(current->params);
  return nullptr;
}

Thread &self() {
  if (!current) {
    fprintf(stderr, "symm: a CPU-target device function was called outside a "
                    "kernel launch\n");
    abort();
  }
  return *current;
}

} // namespace

symm_status symm::runKernel(const char *name, void (*entry)(void **),
                            const LaunchShape &shape, void **params) {
  unsigned perBlock = shape.block[0] * shape.block[1] * shape.block[2];
  unsigned blocks = shape.grid[0] * shape.grid[1] * shape.grid[2];
  std::vector<std::unique_ptr<Block>> blockStates;
  for (unsigned b = 0; b < blocks; ++b)
    blockStates.push_back(std::make_unique<Block>(
        perBlock, kHostStaticSharedBytes + shape.dynamicShared));
  std::vector<Thread> threads(size_t(blocks) * perBlock);
  std::vector<pthread_t> handles(threads.size());
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 512 * 1024);
  size_t started = 0;
  symm_status status = SYMM_SUCCESS;
  for (unsigned b = 0; b < blocks && status == SYMM_SUCCESS; ++b) {
    for (unsigned t = 0; t < perBlock; ++t) {
      Thread &th = threads[size_t(b) * perBlock + t];
      th.shape = &shape;
      th.tid[0] = t % shape.block[0];
      th.tid[1] = (t / shape.block[0]) % shape.block[1];
      th.tid[2] = t / (shape.block[0] * shape.block[1]);
      th.bid[0] = b % shape.grid[0];
      th.bid[1] = (b / shape.grid[0]) % shape.grid[1];
      th.bid[2] = b / (shape.grid[0] * shape.grid[1]);
      th.linear = static_cast<int>(t);
      th.block = blockStates[b].get();
      th.entry = entry;
      th.params = params;
      if (int err = pthread_create(&handles[started], &attr, threadMain, &th)) {
        // Threads already started wait at barriers for the missing ones;
        // this is unrecoverable for the process.
        fprintf(stderr,
                "symm: rank %d: cannot start thread %zu of kernel '%s': %s\n",
                currentRank(), started, name, strerror(err));
        exit(1);
      }
      ++started;
    }
  }
  for (size_t i = 0; i < started; ++i)
    pthread_join(handles[i], nullptr);
  pthread_attr_destroy(&attr);
  return status;
}

extern "C" {

/// `which` is a symm_host_id; `dim` 0..2.
SYMM_EXPORT int64_t _symm_host_id(int32_t which, int32_t dim) {
  Thread &t = self();
  switch (static_cast<symm_host_id>(which)) {
  case SYMM_HOST_ID_THREAD:
    return t.tid[dim];
  case SYMM_HOST_ID_BLOCK:
    return t.bid[dim];
  case SYMM_HOST_ID_BLOCK_DIM:
    return t.shape->block[dim];
  case SYMM_HOST_ID_GRID_DIM:
    return t.shape->grid[dim];
  case SYMM_HOST_ID_LANE:
    return t.linear % kHostSubgroupSize;
  case SYMM_HOST_ID_DYNAMIC_SHARED_BYTES:
    return t.shape->dynamicShared;
  case SYMM_HOST_ID_COUNT:
    break;
  }
  fprintf(stderr, "symm: rank %d: a kernel asked for host id %d, which this "
                  "runtime does not know (compiled by another Symm?)\n",
          currentRank(), which);
  exit(1);
}

SYMM_EXPORT void _symm_host_barrier() { self().block->barrier.wait(); }

/// The block's workgroup memory: `staticBytes` of static attributions, then
/// the launch's dynamic shared memory.
SYMM_EXPORT void *_symm_host_shared_memory(int64_t staticBytes) {
  if (static_cast<size_t>(staticBytes) > kHostStaticSharedBytes) {
    fprintf(stderr,
            "symm: rank %d: a kernel needs %lld bytes of static workgroup "
            "memory; the CPU target provides %zu\n",
            currentRank(), static_cast<long long>(staticBytes),
            kHostStaticSharedBytes);
    exit(1);
  }
  return self().block->shared.data();
}

/// gpu.shuffle over the subgroup (`mode` a symm_host_shuffle_mode). Every
/// lane of the subgroup must call it, as on a GPU.
SYMM_EXPORT int64_t _symm_host_shuffle(int64_t value, int32_t offset,
                                       int32_t width, int32_t mode,
                                       int8_t *valid) {
  Thread &t = self();
  Block &block = *t.block;
  int lane = t.linear % kHostSubgroupSize;
  int first = t.linear - lane;
  Barrier &subgroup = *block.subgroups[t.linear / kHostSubgroupSize];
  block.slots[t.linear] = value;
  subgroup.wait();
  int source;
  switch (mode) {
  case SYMM_HOST_SHUFFLE_XOR:
    source = lane ^ offset;
    break;
  case SYMM_HOST_SHUFFLE_DOWN:
    source = lane + offset;
    break;
  case SYMM_HOST_SHUFFLE_UP:
    source = lane - offset;
    break;
  default:
    source = offset;
    break;
  }
  int size = static_cast<int>(block.slots.size()) - first;
  bool ok = source >= 0 && source < width && source < size;
  int64_t result = ok ? block.slots[first + source] : value;
  subgroup.wait();
  *valid = ok;
  return result;
}

} // extern "C"
