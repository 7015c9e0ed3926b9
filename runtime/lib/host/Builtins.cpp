//===- Builtins.cpp - What CPU-target kernels call --------------*- C++ -*-===//
//
// The runtime functions the CPU target's lowering calls (symm/abi.h): a GPU
// thread's ids, gpu.barrier, workgroup memory, gpu.shuffle and the back-off of
// spin loops, on the calling fiber.
//
// LLVM's x86-64 backend calls __truncsfbf2/__truncdfbf2 for bf16 values it
// keeps in registers across blocks (a bf16 phi or select), even after the
// CPU pipeline has emulated bf16 arithmetic. libgcc before GCC 13 has no such
// functions, so the runtime, which every CPU-target module and whole program
// is loaded with, defines them: round to nearest even, NaNs stay quiet NaNs.
//
//===----------------------------------------------------------------------===//

#include "HostDeviceImpl.h"
#include "Races.h"
#include "symm/runtime.h"

#include <cstdint>
#include <cstring>
#include <sched.h>

using namespace symm;
using namespace symm::host;

namespace {

uint16_t toBF16Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fffu + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

__bf16 fromBits(uint16_t bits) {
  __bf16 result;
  std::memcpy(&result, &bits, sizeof(result));
  return result;
}

} // namespace

extern "C" {

SYMM_EXPORT __bf16 __truncsfbf2(float value) {
  return fromBits(toBF16Bits(value));
}

/// Through float: a double within 2^-24 (relative) of a tie between two bf16
/// values can round the other way than a direct rounding would.
SYMM_EXPORT __bf16 __truncdfbf2(double value) {
  return fromBits(toBF16Bits(static_cast<float>(value)));
}

/// `which` is a symm_host_id; `dim` 0..2.
SYMM_EXPORT int64_t _symm_host_id(int32_t which, int32_t dim) {
  Fiber &f = self();
  const LaunchShape &shape = f.block->launch->shape;
  switch (static_cast<symm_host_id>(which)) {
  case SYMM_HOST_ID_THREAD:
    return f.tid[dim];
  case SYMM_HOST_ID_BLOCK:
    return f.block->bid[dim];
  case SYMM_HOST_ID_BLOCK_DIM:
    return shape.block[dim];
  case SYMM_HOST_ID_GRID_DIM:
    return shape.grid[dim];
  case SYMM_HOST_ID_LANE:
    return f.linear % kHostSubgroupSize;
  case SYMM_HOST_ID_DYNAMIC_SHARED_BYTES:
    return shape.dynamicShared;
  case SYMM_HOST_ID_COUNT:
    break;
  }
  failLaunch(f, "asked for host id " + std::to_string(which) +
                    ", which this runtime does not know (compiled by another "
                    "Symm?)");
}

/// Waits for every thread of the block that has not returned.
SYMM_EXPORT void _symm_host_barrier() {
  Fiber &f = self();
  Block &block = *f.block;
  bump(thisWorker->progress);
  if (f.race)
    races::arriveAtBarrier(*f.race);
  if (++block.atBarrier == block.live) {
    releaseBarrier(block);
  } else {
    f.state = FiberState::AtBarrier;
    suspend(f);
  }
  if (f.race)
    races::leaveBarrier(*f.race);
}

/// The block's workgroup memory: `staticBytes` of static attributions, then
/// the launch's dynamic shared memory.
SYMM_EXPORT void *_symm_host_shared_memory(int64_t staticBytes) {
  Fiber &f = self();
  if (static_cast<size_t>(staticBytes) > kHostStaticSharedBytes)
    failLaunch(f, "needs " + std::to_string(staticBytes) +
                      " bytes of static workgroup memory; the CPU target "
                      "provides " +
                      std::to_string(kHostStaticSharedBytes));
  return f.block->shared.data();
}

/// gpu.shuffle over the subgroup (`mode` a symm_host_shuffle_mode). Every
/// lane of the subgroup that has not returned must call it, as on a GPU.
SYMM_EXPORT int64_t _symm_host_shuffle(int64_t value, int32_t offset,
                                       int32_t width, int32_t mode,
                                       int8_t *valid) {
  Fiber &f = self();
  Block &block = *f.block;
  int lane = f.linear % kHostSubgroupSize;
  int first = f.linear - lane;
  int subgroup = f.linear / kHostSubgroupSize;
  Subgroup &s = block.subgroups[subgroup];
  int64_t *slots = block.slots.data() + s.parity * block.fibers.size();
  slots[f.linear] = value;
  bump(thisWorker->progress);
  if (++s.arrived == s.live) {
    releaseShuffle(block, subgroup);
  } else {
    f.state = FiberState::AtShuffle;
    suspend(f);
  }
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
  int size = static_cast<int>(block.fibers.size()) - first;
  bool ok = source >= 0 && source < width && source < size;
  *valid = ok;
  return ok ? slots[first + source] : value;
}

/// The back-off of a spin loop: lets the block's other threads, the worker's
/// other blocks and then other workers and ranks run.
SYMM_EXPORT void _symm_host_yield() {
  Worker *worker = thisWorker;
  if (!worker || !worker->current) {
    // Host code spinning on device memory.
    sched_yield();
    return;
  }
  Fiber &f = *worker->current;
  const void *site = __builtin_return_address(0);
  if (site != f.backoffSite) {
    f.backoffSite = site;
    bump(worker->progress);
  }
  suspend(f);
}

} // extern "C"
