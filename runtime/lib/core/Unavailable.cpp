//===- Unavailable.cpp - Backends this build does not include ---*- C++ -*-===//
//
// Linked in place of the HIP and nvshmem backends when their headers were not
// found at configure time.
//
//===----------------------------------------------------------------------===//

#include "Runtime.h"

using namespace symm;

#ifndef SYMM_HAVE_HIP
Backend *symm::createHipBackend() {
  fail(SYMM_ERROR_UNAVAILABLE,
       "this Symm runtime was built without the hip backend (no HIP headers "
       "at configure time)");
  return nullptr;
}
#endif

#ifndef SYMM_HAVE_NVSHMEM
Backend *symm::createNvshmemBackend() {
  fail(SYMM_ERROR_UNAVAILABLE,
       "this Symm runtime was built without the nvshmem backend (no NVSHMEM "
       "headers at configure time: configure with "
       "-DSYMM_NVSHMEM_HOME=<NVSHMEM install or the nvidia-nvshmem wheel's "
       "folder>, with nvcc on the PATH)");
  return nullptr;
}
#endif
