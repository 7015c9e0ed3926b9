//===- InitAllSymm.h - Register Symm's dialects and passes ------*- C++ -*-===//
//
// One entry point for tools and embedders that want everything Symm provides.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_INITALLSYMM_H
#define SYMM_INITALLSYMM_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::symm {

/// Adds the symm dialect (and the dialects its lowerings produce) to
/// `registry`.
void registerAllSymmDialects(DialectRegistry &registry);

/// Registers every Symm pass and pipeline with the global pass registry.
void registerAllSymmPasses();

} // namespace mlir::symm

#endif // SYMM_INITALLSYMM_H
