//===- Passes.h - Passes of the NVIDIA target -------------------*- C++ -*-===//

#ifndef SYMM_TARGET_NVVM_PASSES_H
#define SYMM_TARGET_NVVM_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::symm {

#define GEN_PASS_DECL
#include "symm/Target/NVVM/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "symm/Target/NVVM/Passes.h.inc"

} // namespace mlir::symm

#endif // SYMM_TARGET_NVVM_PASSES_H
