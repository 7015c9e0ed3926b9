//===- SymmUtils.h - Helpers shared by Symm's passes ------------*- C++ -*-===//
//
// Small IR-building helpers that more than one Symm pass needs.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_DIALECT_SYMM_IR_SYMMUTILS_H
#define SYMM_DIALECT_SYMM_IR_SYMMUTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

namespace mlir::symm {

/// The byte address (an index) of `memref[indices]` in this process's view
/// of the memref: its aligned pointer plus (offset + sum(index * stride))
/// elements.
Value buildElementAddress(OpBuilder &b, Location loc, Value memref,
                          ValueRange indices);

} // namespace mlir::symm

#endif // SYMM_DIALECT_SYMM_IR_SYMMUTILS_H
