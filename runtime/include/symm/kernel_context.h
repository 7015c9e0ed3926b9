/*===- kernel_context.h - ABI of the kernel context ---------------*- C -*-===*\
|*                                                                            *|
|* Compiled modules read the rank, the world size and every rank's heap base  *|
|* from one context structure: by default the module global named            *|
|* SYMM_CONTEXT_SYMBOL (in constant memory on GPUs), which the runtime writes *|
|* when it loads the module; with kernel-context=argument, a pointer to it    *|
|* passed as the kernel's last argument.                                      *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef SYMM_KERNEL_CONTEXT_H
#define SYMM_KERNEL_CONTEXT_H

#include <stdint.h>

#define SYMM_MAX_RANKS 64
#define SYMM_CONTEXT_SYMBOL "__symm_context"

typedef struct symm_kernel_context {
  int32_t rank;
  int32_t world_size;
  /* heap_bases[r]: where rank r's heap is mapped in this process. */
  uint64_t heap_bases[SYMM_MAX_RANKS];
} symm_kernel_context;

/* The position of each field in the structure, as compiled code indexes it. */
typedef enum symm_kernel_context_field {
  SYMM_CONTEXT_FIELD_RANK = 0,
  SYMM_CONTEXT_FIELD_WORLD_SIZE = 1,
  SYMM_CONTEXT_FIELD_HEAP_BASES = 2,
  SYMM_CONTEXT_FIELD_COUNT = 3
} symm_kernel_context_field;

#endif /* SYMM_KERNEL_CONTEXT_H */
