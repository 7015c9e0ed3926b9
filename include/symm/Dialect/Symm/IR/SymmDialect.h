//===- SymmDialect.h - Symm dialect -----------------------------*- C++ -*-===//
//
// The `symm` dialect, its `#symm.heap` memory space and its enums.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_DIALECT_SYMM_IR_SYMMDIALECT_H
#define SYMM_DIALECT_SYMM_IR_SYMMDIALECT_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

#include "symm/Dialect/Symm/IR/SymmEnums.h.inc"
#include "symm/Dialect/Symm/IR/SymmOpsDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "symm/Dialect/Symm/IR/SymmAttrs.h.inc"

namespace mlir::symm {

/// Whether `type` is a memref in the `#symm.heap` memory space.
bool isHeapMemRef(Type type);

} // namespace mlir::symm

#endif // SYMM_DIALECT_SYMM_IR_SYMMDIALECT_H
