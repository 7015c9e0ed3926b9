//===- NameMemoryOps.cpp - Operation names in locations ---------*- C++ -*-===//
//
// Gives every device operation that reads or writes memory a NameLoc with its
// name, which the LLVM operations it becomes inherit: after lowering, a
// report can still say which source operation an access came from.
//
//===----------------------------------------------------------------------===//

#include "symm/Dialect/Symm/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::symm {
#define GEN_PASS_DEF_SYMMNAMEMEMORYOPS
#include "symm/Dialect/Symm/Transforms/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;

namespace {

bool touchesMemory(Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  // Without the interface (a call, say) nothing says what it touches; the
  // operations it contains are named themselves.
  return effects && (effects.hasEffect<MemoryEffects::Read>() ||
                     effects.hasEffect<MemoryEffects::Write>());
}

struct SymmNameMemoryOps
    : public symm::impl::SymmNameMemoryOpsBase<SymmNameMemoryOps> {
  void runOnOperation() override {
    getOperation().walk([](gpu::GPUModuleOp module) {
      module.walk([](Operation *op) {
        if (!touchesMemory(op) || isa<NameLoc>(op->getLoc()))
          return;
        op->setLoc(NameLoc::get(
            StringAttr::get(op->getContext(), op->getName().getStringRef()),
            op->getLoc()));
      });
    });
  }
};

} // namespace
