//===- Passes.h - Symm dialect transformations ------------------*- C++ -*-===//

#ifndef SYMM_DIALECT_SYMM_TRANSFORMS_PASSES_H
#define SYMM_DIALECT_SYMM_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::symm {

/// Name of the unit attribute that marks a kernel whose last argument is the
/// kernel context (`kernel-context=argument`).
constexpr llvm::StringLiteral kContextArgAttrName = "symm.context_argument";

#define GEN_PASS_DECL
#include "symm/Dialect/Symm/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "symm/Dialect/Symm/Transforms/Passes.h.inc"

} // namespace mlir::symm

#endif // SYMM_DIALECT_SYMM_TRANSFORMS_PASSES_H
