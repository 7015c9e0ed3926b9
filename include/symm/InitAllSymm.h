//===- InitAllSymm.h - Register Symm's dialects and passes ------*- C++ -*-===//
//
// Entry points for tools and embedders: registerAllSymm is the one call a
// compiler that runs Symm's pipelines needs; the other two register only what
// Symm itself defines, for tools that already register MLIR's own.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_INITALLSYMM_H
#define SYMM_INITALLSYMM_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::symm {

/// Adds the symm dialect and every target's dialects and interfaces (the CPU
/// target's #symm.host_target) to `registry`.
void registerAllSymmDialects(DialectRegistry &registry);

/// Registers every Symm pass and pipeline with the global pass registry;
/// idempotent and safe to call from several threads.
void registerAllSymmPasses();

/// Everything Symm's pipelines need, in one call: adds Symm's dialects and
/// every upstream dialect, extension and LLVM IR translation that kernels and
/// their lowerings use to `registry`, and registers every upstream and Symm
/// pass and pipeline (once, safe from several threads).
void registerAllSymm(DialectRegistry &registry);

} // namespace mlir::symm

#endif // SYMM_INITALLSYMM_H
