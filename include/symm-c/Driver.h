/*===- Driver.h - C API of the Symm compiler driver ---------------*- C -*-===*\
|*                                                                            *|
|* Compiles MLIR text or a module of Symm kernels to a device object in       *|
|* memory, with its manifest (the schema of symm/manifest.h), without         *|
|* starting a process: what the Python package and embedding compilers call.  *|
|* The object loads with symm_module_load_data. Whole programs (a             *|
|* func.func @main) link to executables with symm-compile --emit=exe.         *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef SYMM_C_DRIVER_H
#define SYMM_C_DRIVER_H

#include "mlir-c/IR.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct SymmCompileOptions {
  /* "host" (NULL = "host"), "sm_90", "gfx942", ... */
  const char *target;
  /* NULL = the target's default object: "so" | "cubin" (or "ptx" without
     ptxas) | "hsaco"; also "ptx", "isa", "llvm", "mlir". */
  const char *emit;
  /* 0..3; -1 = default (2). */
  int opt_level;
  /* NULL = "global"; or "argument". */
  const char *kernel_context;
  /* 0/1: on GPUs, check every peer rank against the world size. */
  int check_ranks;
  /* NULL, or device libraries (.mlir files or folders of them) separated by
     ':', searched after the one installed with Symm. */
  const char *library;
} SymmCompileOptions;

typedef struct SymmCompileResult {
  /* The object's bytes (malloc'd). */
  char *binary;
  size_t binary_size;
  /* NUL-terminated manifest JSON (symm/manifest.h schema), malloc'd. */
  char *manifest;
  /* NUL-terminated diagnostics with locations on failure, else NULL. */
  char *error;
} SymmCompileResult;

/* Sets every option to its default. */
MLIR_CAPI_EXPORTED void symmCompileOptionsInit(SymmCompileOptions *options);

/* Compiles `length` bytes of MLIR text (need not be NUL-terminated) named
   `source_name` in diagnostics (NULL = "<source>"). 0 on success; on failure
   non-zero and result->error set. Several threads may compile at once. */
MLIR_CAPI_EXPORTED int symmCompileSource(const char *source, size_t length,
                                         const char *source_name,
                                         const SymmCompileOptions *options,
                                         SymmCompileResult *result);

/* Compiles `module`, which is lowered in place; the dialects and
   translations the pipelines need are added to its context. */
MLIR_CAPI_EXPORTED int symmCompileModule(MlirModule module,
                                         const SymmCompileOptions *options,
                                         SymmCompileResult *result);

/* Frees what a compilation returned and clears `result`. */
MLIR_CAPI_EXPORTED void symmCompileResultDestroy(SymmCompileResult *result);

#ifdef __cplusplus
}
#endif

#endif /* SYMM_C_DRIVER_H */
