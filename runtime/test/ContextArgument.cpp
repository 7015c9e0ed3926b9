//===- ContextArgument.cpp - The context as a kernel argument ---*- C++ -*-===//
//
//   symm-context-driver MODULE
//
// What a compiler embedding Symm does with kernel-context=argument: it gets
// the kernel context from the runtime, puts it where the device can read it,
// and passes a pointer to it as the kernel's last parameter. MODULE's kernel
// `identify(memref<4xi32, #symm.heap>)` writes the rank and world size it
// sees into its own buffer and its rank into the next rank's; this driver
// checks all three on every rank.
//
//===----------------------------------------------------------------------===//

#include "symm/runtime.h"

#include <cstdio>
#include <vector>

#define CHECK(call)                                                            \
  do {                                                                         \
    if ((call) != SYMM_SUCCESS) {                                              \
      printf("%s: %s\n", #call, symm_last_error());                            \
      return 1;                                                                \
    }                                                                          \
  } while (0)

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: symm-context-driver MODULE\n");
    return 2;
  }
  CHECK(symm_init());
  int32_t *buf;
  CHECK(symm_malloc(4 * sizeof(int32_t), reinterpret_cast<void **>(&buf)));
  symm_kernel_context host;
  CHECK(symm_get_kernel_context(&host));
  // Device-readable copy of the context (plain memory on the CPU target).
  void *context;
  CHECK(symm_device_malloc(sizeof(host), &context));
  CHECK(symm_memcpy(context, &host, sizeof(host)));
  symm_module *module;
  CHECK(symm_module_load_file(argv[1], &module));
  CHECK(symm_barrier());

  void *allocated = buf, *aligned = buf;
  int64_t offset = 0, size = 4, stride = 1;
  std::vector<void *> params = {&allocated, &aligned, &offset,
                                &size,      &stride,  &context};
  unsigned one[3] = {1, 1, 1};
  CHECK(symm_launch(module, "identify", one, one, 0, nullptr, params.data(),
                    params.size()));
  CHECK(symm_barrier());
  int32_t seen[4];
  CHECK(symm_memcpy(seen, buf, sizeof(seen)));
  int rank = symm_rank(), n = symm_world_size();
  bool ok = seen[0] == rank && seen[1] == n && seen[2] == (rank + n - 1) % n;
  printf("context argument %s: rank %d size %d from %d\n", ok ? "ok" : "FAILED",
         seen[0], seen[1], seen[2]);
  CHECK(symm_module_unload(module));
  CHECK(symm_finalize());
  return ok ? 0 : 1;
}
