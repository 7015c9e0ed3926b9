/*===- Symm.h - C API of the symm dialect -------------------------*- C -*-===*\
|*                                                                            *|
|* Registers the dialect and the passes of Symm from C and other languages.   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef SYMM_C_DIALECT_SYMM_H
#define SYMM_C_DIALECT_SYMM_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Symm, symm);

/// Registers every Symm pass and pipeline with the global pass registry, so
/// that textual pipelines can name them.
MLIR_CAPI_EXPORTED void mlirSymmRegisterPasses(void);

/// Everything Symm's pipelines need, in one call (mlir::symm::registerAllSymm):
/// adds Symm's dialects and every upstream dialect, extension and LLVM IR
/// translation that kernels and their lowerings use to `registry`, and
/// registers every pass and pipeline. A context created with `registry`
/// parses any kernel symmCompileModule compiles.
MLIR_CAPI_EXPORTED void mlirSymmRegisterAll(MlirDialectRegistry registry);

/// Returns the `#symm.heap` memory-space attribute.
MLIR_CAPI_EXPORTED MlirAttribute mlirSymmHeapAttrGet(MlirContext ctx);

/// Whether `type` is a memref in the `#symm.heap` memory space.
MLIR_CAPI_EXPORTED bool mlirSymmTypeIsHeapMemRef(MlirType type);

#ifdef __cplusplus
}
#endif

#endif // SYMM_C_DIALECT_SYMM_H
