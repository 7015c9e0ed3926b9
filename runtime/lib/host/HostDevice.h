//===- HostDevice.h - Running kernels on CPU threads ------------*- C++ -*-===//

#ifndef SYMM_RUNTIME_LIB_HOST_HOSTDEVICE_H
#define SYMM_RUNTIME_LIB_HOST_HOSTDEVICE_H

#include "symm/runtime.h"

namespace symm {

struct LaunchShape {
  unsigned grid[3], block[3];
  unsigned dynamicShared;
};

/// Runs every thread of every block of a launch to completion.
symm_status runKernel(const char *name, void (*entry)(void **),
                      const LaunchShape &shape, void **params);

/// Static workgroup memory a CPU-target kernel may use, like NVIDIA's 48 KiB.
constexpr size_t kHostStaticSharedBytes = 48 * 1024;
/// Lanes of a subgroup (gpu.shuffle, gpu.lane_id) on the CPU target.
constexpr int kHostSubgroupSize = 32;

} // namespace symm

#endif // SYMM_RUNTIME_LIB_HOST_HOSTDEVICE_H
