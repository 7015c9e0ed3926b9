//===- DeviceChecks.cpp - Checks compiled kernels call ----------*- C++ -*-===//
//
// Run-time checks that CPU-target kernels call when they find a fault the
// compiler could not rule out. A kernel cannot return an error, so these
// report it with the rank and end the process.
//
//===----------------------------------------------------------------------===//

#include "symm/abi.h"
#include "symm/runtime.h"

#include <cstdint>
#include <cstdio>
#include <unistd.h>

extern "C" SYMM_EXPORT void _symm_peer_out_of_range(const char *op,
                                                    int32_t peer) {
  int size = symm_world_size();
  fprintf(stderr,
          "symm: rank %d: %s: peer %d is out of range; valid peers are 0 to "
          "%d (world size %d)\n",
          symm_rank(), op, peer, size - 1, size);
  fflush(stderr);
  // Other threads of this kernel may still run, and exit handlers would wait
  // for them: end the process at once.
  _exit(1);
}
