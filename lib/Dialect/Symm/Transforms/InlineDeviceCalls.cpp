//===- InlineDeviceCalls.cpp - Calls in gpu.modules inlined ------*- C++
//-*-===//
//
// Every call between functions of a gpu.module is inlined, kernels included.
// Upstream's inliner asks the dialect of the destination region, and the GPU
// dialect does not allow inlining into gpu.func; nor do some dialects whose
// ops device code holds (nvgpu) declare themselves inlinable. Device code has
// no op that refers to its enclosing function, so every op may move.
//
//===----------------------------------------------------------------------===//

#include "symm/Dialect/Symm/Transforms/Passes.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/InliningUtils.h"

namespace mlir::symm {
#define GEN_PASS_DEF_SYMMINLINEDEVICECALLS
#include "symm/Dialect/Symm/Transforms/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

namespace {

struct DeviceInliner : public InlinerInterface {
  using InlinerInterface::InlinerInterface;

  bool isLegalToInline(Operation *, Operation *, bool) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }

  /// A return of a callee with several blocks branches to the code after the
  /// call.
  void handleTerminator(Operation *op, Block *newDest) const final {
    OpBuilder builder(op);
    cf::BranchOp::create(builder, op->getLoc(), newDest, op->getOperands());
    op->erase();
  }
  /// A return of a single-block callee stands for the call's results.
  void handleTerminator(Operation *op, ValueRange valuesToRepl) const final {
    for (auto [result, value] : llvm::zip(valuesToRepl, op->getOperands()))
      result.replaceAllUsesWith(value);
  }
};

struct SymmInlineDeviceCalls
    : public symm::impl::SymmInlineDeviceCallsBase<SymmInlineDeviceCalls> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    SymbolTable table(module);
    DeviceInliner inliner(&getContext());
    // Each round inlines the calls present when it starts; calls the inlined
    // bodies bring are taken by the next. A call of the function it is in,
    // directly or through others, would never end: the rounds are bounded by
    // the number of functions, and what is left is left as calls.
    size_t rounds = 0;
    size_t maxRounds = llvm::range_size(module.getOps<func::FuncOp>()) + 1;
    bool changed = true;
    while (changed && rounds++ < maxRounds) {
      changed = false;
      SmallVector<func::CallOp> calls;
      module.walk([&](func::CallOp call) { calls.push_back(call); });
      for (func::CallOp call : calls) {
        auto callee = table.lookup<func::FuncOp>(call.getCallee());
        if (!callee || callee.isExternal() ||
            callee->isAncestor(call.getOperation()))
          continue;
        if (failed(inlineCall(inliner, defaultClone, call, callee,
                              &callee.getBody())))
          continue;
        call.erase();
        changed = true;
      }
    }
    // Private functions nothing calls any more.
    for (auto fn : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (fn.isPrivate() && SymbolTable::symbolKnownUseEmpty(fn, module))
        fn.erase();
  }

  static void defaultClone(OpBuilder &builder, Region *src, Block *inlineBlock,
                           Block *postInsertBlock, IRMapping &mapper,
                           bool shouldCloneInlinedRegion) {
    // What upstream's inliner does by default: clone the callee's region
    // into the block after the call, then move the ops after it there.
    Region *insertRegion = inlineBlock->getParent();
    if (shouldCloneInlinedRegion)
      src->cloneInto(insertRegion, postInsertBlock->getIterator(), mapper);
    else
      insertRegion->getBlocks().splice(postInsertBlock->getIterator(),
                                       src->getBlocks(), src->begin(),
                                       src->end());
  }
};

} // namespace
