/*===- manifest.h - The kernel manifest's schema ------------------*- C -*-===*\
|*                                                                            *|
|* symm-compile writes a JSON manifest next to every device object: what a   *|
|* launcher needs to pack each kernel's parameters. The compiler's writer    *|
|* (lib/Driver/Manifest.cpp) and the runtime's reader                        *|
|* (runtime/lib/core/Manifest.cpp) both spell the schema with these names.   *|
|*                                                                            *|
|*   {                                                                        *|
|*     "schema": 1,                                                           *|
|*     "target": "sm_90", "format": "cubin",                                  *|
|*     "context": {"kind": "global", "symbol": "__symm_context",              *|
|*                 "size": 520, "max_ranks": 64, "layout": "..."},            *|
|*     "kernels": [{                                                          *|
|*       "name": "k", "module": "kernels", "params": 6,                       *|
|*       "context_argument": false, "early_launch": true,                     *|
|*       "co_resident": false,                                                *|
|*       "arguments": [                                                       *|
|*         {"kind": "memref", "type": "memref<?xf32, #symm.heap>",            *|
|*          "element": "f32", "rank": 1, "heap": true, "params": 5},          *|
|*         {"kind": "scalar", "type": "i32", "params": 1}]}]                  *|
|*   }                                                                        *|
|*                                                                            *|
|* "params" of a kernel is the number of parameters it takes after lowering, *|
|* the kernel-context parameter included when "context_argument" is true.    *|
|* "early_launch" (optional, false when absent) says the kernel waits for    *|
|* the grid before it first thing, so it may be launched as a programmatic   *|
|* dependent launch (symm.early_launch, lowered for NVIDIA sm_90 and up).    *|
|* "co_resident" (optional, false when absent) says the kernel's workgroups  *|
|* wait on each other (symm.co_resident): the runtime refuses a launch whose *|
|* grid exceeds the workgroups the device can hold at once.                  *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef SYMM_MANIFEST_H
#define SYMM_MANIFEST_H

/* Raised whenever a key changes meaning or a required key is added; readers
 * reject manifests of another version. */
#define SYMM_MANIFEST_SCHEMA_VERSION 1

/* Top-level keys. */
#define SYMM_MANIFEST_SCHEMA "schema"
#define SYMM_MANIFEST_TARGET "target"
#define SYMM_MANIFEST_FORMAT "format"
#define SYMM_MANIFEST_CONTEXT "context"
#define SYMM_MANIFEST_KERNELS "kernels"

/* Keys of "context". */
#define SYMM_MANIFEST_CONTEXT_KIND "kind"
#define SYMM_MANIFEST_CONTEXT_SYMBOL "symbol"
#define SYMM_MANIFEST_CONTEXT_SIZE "size"
#define SYMM_MANIFEST_CONTEXT_MAX_RANKS "max_ranks"
#define SYMM_MANIFEST_CONTEXT_LAYOUT "layout"
/* Values of "context"."kind": the module's context global, which the runtime
 * writes at load time, or a trailing kernel parameter the launcher passes. */
#define SYMM_MANIFEST_CONTEXT_GLOBAL "global"
#define SYMM_MANIFEST_CONTEXT_ARGUMENT "argument"

/* Keys of a kernel. */
#define SYMM_MANIFEST_KERNEL_NAME "name"
#define SYMM_MANIFEST_KERNEL_MODULE "module"
#define SYMM_MANIFEST_KERNEL_PARAMS "params"
#define SYMM_MANIFEST_KERNEL_CONTEXT_ARGUMENT "context_argument"
#define SYMM_MANIFEST_KERNEL_ARGUMENTS "arguments"
#define SYMM_MANIFEST_KERNEL_EARLY_LAUNCH "early_launch"
#define SYMM_MANIFEST_KERNEL_CO_RESIDENT "co_resident"

/* Keys of an argument. */
#define SYMM_MANIFEST_ARG_KIND "kind"
#define SYMM_MANIFEST_ARG_TYPE "type"
#define SYMM_MANIFEST_ARG_ELEMENT "element"
#define SYMM_MANIFEST_ARG_RANK "rank"
#define SYMM_MANIFEST_ARG_HEAP "heap"
#define SYMM_MANIFEST_ARG_PARAMS "params"
/* Values of an argument's "kind": a memref is SYMM_MEMREF_PARAMS(rank)
 * parameters (symm/abi.h), a scalar one. */
#define SYMM_MANIFEST_ARG_MEMREF "memref"
#define SYMM_MANIFEST_ARG_SCALAR "scalar"

#endif /* SYMM_MANIFEST_H */
