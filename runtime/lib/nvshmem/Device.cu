//===- Device.cu - NVSHMEM's device functions for linking -------*- C++ -*-===//
//
// NVSHMEM's device API is inline functions in its headers, which a CUDA
// program compiles into its own kernels. Kernels compiled by Symm call them
// by name instead (symm/nvshmem.h), so the nvshmem backend links each such
// module with this file's PTX: taking every function's address makes nvcc
// emit it (as a weak definition, with its C name) for the linker to resolve
// the module's calls. What they call in turn is in libnvshmem_device.a.
//
//===----------------------------------------------------------------------===//

#include "symm/nvshmem.h"

#include <nvshmem.h>
#include <nvshmemx.h>

#define SYMM_NVSHMEM_ADDRESS(fn) reinterpret_cast<void *>(&fn),
__device__ void *symm_nvshmem_device_functions[] = {
    SYMM_NVSHMEM_DEVICE_FUNCTIONS(SYMM_NVSHMEM_ADDRESS)};
#undef SYMM_NVSHMEM_ADDRESS
