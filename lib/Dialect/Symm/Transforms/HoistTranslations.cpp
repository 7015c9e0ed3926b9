//===- HoistTranslations.cpp - Translations out of loops -------*- C++ -*-===//
//
// Hoists `symm.translate` out of loops and de-duplicates translations: they
// are usually loop-invariant, and each one costs kernel-context loads.
//
//===----------------------------------------------------------------------===//

#include "symm/Dialect/Symm/IR/SymmOps.h"
#include "symm/Dialect/Symm/Transforms/Passes.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlir::symm {
#define GEN_PASS_DEF_SYMMHOISTTRANSLATIONS
#include "symm/Dialect/Symm/Transforms/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

void symm::hoistTranslations(Operation *root) {
  root->walk([](LoopLikeOpInterface loop) {
    moveLoopInvariantCode(
        loop.getLoopRegions(),
        [&](Value value, Region *) {
          return loop.isDefinedOutsideOfLoop(value);
        },
        [](Operation *op, Region *) {
          return op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
                 isSpeculatable(op);
        },
        [&](Operation *op, Region *) { loop.moveOutOfLoop(op); });
  });
  IRRewriter rewriter(root->getContext());
  DominanceInfo dominance(root);
  eliminateCommonSubExpressions(rewriter, dominance, root);
}

namespace {
struct HoistTranslations
    : public symm::impl::SymmHoistTranslationsBase<HoistTranslations> {
  void runOnOperation() override { hoistTranslations(getOperation()); }
};
} // namespace
