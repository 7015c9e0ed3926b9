//===- KernelContext.cpp - The kernel context in lowered code ---*- C++ -*-===//
//
// How device code reaches the kernel context the runtime fills
// (symm/kernel_context.h): its LLVM type, built from the header's field
// order, and where a kernel finds it (a module global the runtime writes at
// load time, or the kernel's trailing argument under kernel-context=argument).
//
//===----------------------------------------------------------------------===//

#include "symm/Conversion/SymmToLLVM.h"
#include "symm/Dialect/Symm/Transforms/Passes.h"
#include "symm/abi.h"

using namespace mlir;
using namespace mlir::symm;

LLVM::LLVMStructType mlir::symm::getKernelContextType(MLIRContext *ctx) {
  Type fields[SYMM_CONTEXT_FIELD_COUNT];
  fields[SYMM_CONTEXT_FIELD_RANK] = IntegerType::get(ctx, 32);
  fields[SYMM_CONTEXT_FIELD_WORLD_SIZE] = IntegerType::get(ctx, 32);
  fields[SYMM_CONTEXT_FIELD_HEAP_BASES] =
      LLVM::LLVMArrayType::get(IntegerType::get(ctx, 64), SYMM_MAX_RANKS);
  return LLVM::LLVMStructType::getLiteral(ctx, fields);
}

Value mlir::symm::getKernelContextPtr(OpBuilder &b, Operation *op,
                                      const SymmTargetInfo &target) {
  if (auto func = op->getParentOfType<gpu::GPUFuncOp>();
      func && func->hasAttr(kContextArgAttrName))
    return func.getArguments().back();
  Operation *module = op->getParentOfType<gpu::GPUModuleOp>();
  if (!module)
    module = SymbolTable::getNearestSymbolTable(op);
  MLIRContext *ctx = op->getContext();
  auto global = dyn_cast_or_null<LLVM::GlobalOp>(
      SymbolTable::lookupSymbolIn(module, SYMM_CONTEXT_SYMBOL));
  if (!global) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&module->getRegion(0).front());
    // Written by the runtime when it loads the module: external linkage
    // keeps the symbol, and it is not `constant` so loads are not folded
    // to the zero initialiser.
    global = LLVM::GlobalOp::create(
        b, module->getLoc(), getKernelContextType(ctx), /*isConstant=*/false,
        LLVM::Linkage::External, SYMM_CONTEXT_SYMBOL, Attribute(),
        /*alignment=*/8, target.contextAddressSpace);
    // Defined here and not preemptible (HSACO and host objects are shared
    // objects): no GOT indirection to reach it, still found by name.
    global.setDsoLocal(true);
    global.setVisibility_(LLVM::Visibility::Protected);
    Block *init = b.createBlock(&global.getInitializerRegion());
    b.setInsertionPointToStart(init);
    Value zero =
        LLVM::ZeroOp::create(b, module->getLoc(), getKernelContextType(ctx));
    LLVM::ReturnOp::create(b, module->getLoc(), zero);
  }
  return LLVM::AddressOfOp::create(b, op->getLoc(), global);
}

Value mlir::symm::loadKernelContextField(OpBuilder &b, Operation *op,
                                         const SymmTargetInfo &target,
                                         ArrayRef<LLVM::GEPArg> path,
                                         Type type) {
  Location loc = op->getLoc();
  Value base = getKernelContextPtr(b, op, target);
  SmallVector<LLVM::GEPArg> indices = {0};
  indices.append(path.begin(), path.end());
  Value field = LLVM::GEPOp::create(b, loc, base.getType(),
                                    getKernelContextType(op->getContext()),
                                    base, indices);
  // The runtime writes the context before any kernel runs.
  return LLVM::LoadOp::create(b, loc, type, field, /*alignment=*/0,
                              /*isVolatile=*/false, /*isNonTemporal=*/false,
                              /*isInvariant=*/true);
}
