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

/// The unit attribute of a kernel that may launch before the kernel ahead of
/// it on its stream has ended (see the dialect's description).
constexpr llvm::StringLiteral kEarlyLaunchAttrName = "symm.early_launch";
/// The unit attribute of a kernel whose workgroups wait on each other, so
/// that the runtime refuses a launch with more than can be resident at once.
constexpr llvm::StringLiteral kCoResidentAttrName = "symm.co_resident";

/// Whether `type` is a memref in the `#symm.heap` memory space.
bool isHeapMemRef(Type type);

} // namespace mlir::symm

#endif // SYMM_DIALECT_SYMM_IR_SYMMDIALECT_H
