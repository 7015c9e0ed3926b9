/*===- Driver.h - C API of the Symm compiler driver ---------------*- C -*-===*\
|*                                                                            *|
|* Compiles MLIR text or a module of Symm kernels to a device object in       *|
|* memory, with its manifest (the schema of symm/manifest.h), without         *|
|* starting a process: what the Python package and embedding compilers call.  *|
|* Options are symm-compile's flags, as strings ("--target=sm_90", "-O3"),    *|
|* parsed by the driver. The object loads with symm_module_load_data. Whole   *|
|* programs (a func.func @main) link to executables with symm-compile.        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef SYMM_C_DRIVER_H
#define SYMM_C_DRIVER_H

#include "mlir-c/IR.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct SymmCompileResult {
  /* The object's bytes (malloc'd). */
  char *binary;
  size_t binary_size;
  /* NUL-terminated manifest JSON (symm/manifest.h schema), malloc'd. */
  char *manifest;
  /* NUL-terminated diagnostics with locations on failure, else NULL. */
  char *error;
} SymmCompileResult;

/* Compiles `length` bytes of MLIR text (need not be NUL-terminated) named
   `source_name` in diagnostics (NULL = "<source>") with the `num_flags`
   strings of `flags`, spelled as symm-compile takes them: "--target=sm_90"
   (default host), "--emit=ptx" (default: the target's object), "-O3",
   "--kernel-context=argument", "--check-ranks", "--library=PATH" (once per
   library). 0 on success; on failure non-zero and result->error set (an
   unknown flag or value included). Several threads may compile at once. */
MLIR_CAPI_EXPORTED int symmCompileSource(const char *source, size_t length,
                                         const char *source_name,
                                         const char *const *flags,
                                         size_t num_flags,
                                         SymmCompileResult *result);

/* Compiles `module`, which is lowered in place, with `flags` as for
   symmCompileSource; the dialects and translations the pipelines need are
   added to its context. */
MLIR_CAPI_EXPORTED int symmCompileModule(MlirModule module,
                                         const char *const *flags,
                                         size_t num_flags,
                                         SymmCompileResult *result);

/* Frees what a compilation returned and clears `result`. */
MLIR_CAPI_EXPORTED void symmCompileResultDestroy(SymmCompileResult *result);

#ifdef __cplusplus
}
#endif

#endif /* SYMM_C_DRIVER_H */
