//===- SymmOps.h - Symm operations ------------------------------*- C++ -*-===//
//
// Operations of the `symm` dialect.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_DIALECT_SYMM_IR_SYMMOPS_H
#define SYMM_DIALECT_SYMM_IR_SYMMOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "symm/Dialect/Symm/IR/SymmDialect.h"

#define GET_OP_CLASSES
#include "symm/Dialect/Symm/IR/SymmOps.h.inc"

#endif // SYMM_DIALECT_SYMM_IR_SYMMOPS_H
