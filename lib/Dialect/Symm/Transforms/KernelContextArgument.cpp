//===- KernelContextArgument.cpp - Context as an argument ------*- C++ -*-===//
//
// The `kernel-context=argument` ABI: kernels that read the kernel context take
// it as a trailing `!llvm.ptr<1>` argument instead of the module's global.
//
//===----------------------------------------------------------------------===//

#include "symm/Dialect/Symm/IR/SymmOps.h"
#include "symm/Dialect/Symm/Transforms/Passes.h"

namespace mlir::symm {
#define GEN_PASS_DEF_SYMMKERNELCONTEXTARGUMENT
#include "symm/Dialect/Symm/Transforms/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

/// Whether the kernel context is needed to run `op`.
static bool needsContext(Operation *op) {
  return isa<TranslateOp, RankOp, WorldSizeOp>(op);
}

LogicalResult symm::addKernelContextArguments(ModuleOp module) {
  auto contextType = LLVM::LLVMPointerType::get(module.getContext(), 1);
  WalkResult result = module.walk([&](gpu::GPUFuncOp func) {
    Operation *user = nullptr;
    func.walk([&](Operation *op) {
      if (needsContext(op)) {
        user = op;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (!user)
      return WalkResult::advance();
    if (!func.isKernel()) {
      user->emitOpError()
          << "needs the kernel context in device function '" << func.getName()
          << "', which kernel-context=argument cannot reach; inline it into "
             "its kernel or use kernel-context=global";
      return WalkResult::interrupt();
    }
    unsigned index = func.getNumArguments();
    if (failed(func.insertArgument(index, contextType, DictionaryAttr(),
                                   func.getLoc())))
      return WalkResult::interrupt();
    func->setAttr(kContextArgAttrName, UnitAttr::get(func.getContext()));
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

namespace {
struct KernelContextArgument
    : public symm::impl::SymmKernelContextArgumentBase<KernelContextArgument> {
  void runOnOperation() override {
    if (failed(addKernelContextArguments(getOperation())))
      signalPassFailure();
  }
};
} // namespace
