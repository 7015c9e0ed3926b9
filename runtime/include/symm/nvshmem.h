/*===- nvshmem.h - NVSHMEM device calls of compiled kernels -------*- C -*-===*\
|*                                                                            *|
|* Kernels compiled with --remote=nvshmem or --remote=auto reach peers        *|
|* through NVSHMEM's device API: the functions below, called by their C       *|
|* names and left unresolved in PTX (and in the relocatable cubin). The       *|
|* nvshmem backend resolves them when it loads the module: it links the       *|
|* module with a device object that defines every one of them (built from     *|
|* NVSHMEM's headers, runtime/lib/nvshmem/Device.cu) and with                 *|
|* libnvshmem_device.a, then calls nvshmemx_cumodule_init. The compiler       *|
|* emits no other NVSHMEM name (it checks each against this list), so a      *|
|* module it makes always links.                                              *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef SYMM_NVSHMEM_H
#define SYMM_NVSHMEM_H

#include <string.h>

/* Values are moved as unsigned integers of their width (floats bit-cast);
 * ordered accesses and read-modify-writes need 32 or 64 bits, the widths of
 * NVSHMEM's atomics. */
#define SYMM_NVSHMEM_DEVICE_FUNCTIONS(X)                                       \
  X(nvshmem_ptr)                                                               \
  X(nvshmem_quiet)                                                             \
  X(nvshmem_uint8_p)                                                           \
  X(nvshmem_uint16_p)                                                          \
  X(nvshmem_uint32_p)                                                          \
  X(nvshmem_uint64_p)                                                          \
  X(nvshmem_uint8_g)                                                           \
  X(nvshmem_uint16_g)                                                          \
  X(nvshmem_uint32_g)                                                          \
  X(nvshmem_uint64_g)                                                          \
  X(nvshmem_uint32_atomic_fetch)                                               \
  X(nvshmem_uint64_atomic_fetch)                                               \
  X(nvshmem_uint32_atomic_set)                                                 \
  X(nvshmem_uint64_atomic_set)                                                 \
  X(nvshmem_uint32_atomic_fetch_add)                                           \
  X(nvshmem_uint64_atomic_fetch_add)                                           \
  X(nvshmem_uint32_atomic_fetch_and)                                           \
  X(nvshmem_uint64_atomic_fetch_and)                                           \
  X(nvshmem_uint32_atomic_fetch_or)                                            \
  X(nvshmem_uint64_atomic_fetch_or)                                            \
  X(nvshmem_uint32_atomic_fetch_xor)                                           \
  X(nvshmem_uint64_atomic_fetch_xor)                                           \
  X(nvshmem_uint32_atomic_swap)                                                \
  X(nvshmem_uint64_atomic_swap)                                                \
  X(nvshmem_uint32_atomic_compare_swap)                                        \
  X(nvshmem_uint64_atomic_compare_swap)

/* The module global NVSHMEM keeps its device state in: present in a module
 * that calls NVSHMEM once it is linked, and what nvshmemx_cumodule_init
 * fills. */
#define SYMM_NVSHMEM_STATE_SYMBOL "nvshmemi_device_state_d"

/* Whether `name` is one of the functions above. */
static inline int symm_nvshmem_is_device_function(const char *name) {
#define SYMM_NVSHMEM_MATCH(fn)                                                 \
  if (strcmp(name, #fn) == 0)                                                  \
    return 1;
  SYMM_NVSHMEM_DEVICE_FUNCTIONS(SYMM_NVSHMEM_MATCH)
#undef SYMM_NVSHMEM_MATCH
  return 0;
}

#endif /* SYMM_NVSHMEM_H */
