//===- Passes.h - Passes of the CPU target ----------------------*- C++ -*-===//

#ifndef SYMM_TARGET_HOST_PASSES_H
#define SYMM_TARGET_HOST_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::symm {

#define GEN_PASS_DECL
#include "symm/Target/Host/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "symm/Target/Host/Passes.h.inc"

} // namespace mlir::symm

#endif // SYMM_TARGET_HOST_PASSES_H
