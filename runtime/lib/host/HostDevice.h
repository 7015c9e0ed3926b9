//===- HostDevice.h - Running kernels on CPU threads ------------*- C++ -*-===//

#ifndef SYMM_RUNTIME_LIB_HOST_HOSTDEVICE_H
#define SYMM_RUNTIME_LIB_HOST_HOSTDEVICE_H

#include "symm/abi.h"
#include "symm/runtime.h"

namespace symm {

struct LaunchShape {
  unsigned grid[3], block[3];
  unsigned dynamicShared;
};

/// Runs every thread of every block of a launch to completion.
symm_status runKernel(const char *name, void (*entry)(void **),
                      const LaunchShape &shape, void **params);

constexpr size_t kHostStaticSharedBytes = SYMM_HOST_STATIC_SHARED_BYTES;
constexpr int kHostSubgroupSize = SYMM_HOST_SUBGROUP_SIZE;

} // namespace symm

#endif // SYMM_RUNTIME_LIB_HOST_HOSTDEVICE_H
