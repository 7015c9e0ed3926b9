//===- Passes.h - Passes of the AMD target ----------------------*- C++ -*-===//

#ifndef SYMM_TARGET_ROCDL_PASSES_H
#define SYMM_TARGET_ROCDL_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::symm {

#define GEN_PASS_DECL
#include "symm/Target/ROCDL/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "symm/Target/ROCDL/Passes.h.inc"

} // namespace mlir::symm

#endif // SYMM_TARGET_ROCDL_PASSES_H
