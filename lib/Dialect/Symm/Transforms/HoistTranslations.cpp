//===- HoistTranslations.cpp - Translations out of loops -------*- C++ -*-===//
//
// Hoists `symm.translate` out of loops and de-duplicates translations: they
// are usually loop-invariant, and each one costs kernel-context loads. Only
// translations and the pure computations of their operands move; the rest of
// the code is left to the generic passes that run later.
//
//===----------------------------------------------------------------------===//

#include "symm/Dialect/Symm/IR/SymmOps.h"
#include "symm/Dialect/Symm/Transforms/Passes.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::symm {
#define GEN_PASS_DEF_SYMMHOISTTRANSLATIONS
#include "symm/Dialect/Symm/Transforms/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

/// Whether `op` only computes its results, so that running it once before the
/// loop is the same as running it on every iteration.
static bool onlyComputes(Operation *op) {
  return op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
         isSpeculatable(op);
}

/// Moves `translate` out of `loop` together with the ops of the loop body
/// that compute its operands, when all of them are pure and nothing they use
/// varies in the loop.
static void hoistOutOf(LoopLikeOpInterface loop, TranslateOp translate) {
  SetVector<Operation *> slice;
  SmallVector<Operation *> worklist{translate};
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!slice.insert(op))
      continue;
    if (!onlyComputes(op))
      return;
    for (Value operand : op->getOperands()) {
      if (loop.isDefinedOutsideOfLoop(operand))
        continue;
      Operation *def = operand.getDefiningOp();
      // Induction variables and values of nested regions vary in the loop.
      if (!def || !loop->isProperAncestor(def) ||
          def->getParentOp() != loop.getOperation())
        return;
      worklist.push_back(def);
    }
  }
  for (Operation *op : topologicalSort(slice))
    loop.moveOutOfLoop(op);
}

/// Replaces each translation by an equal one that dominates it.
static void mergeTranslations(Operation *root) {
  DominanceInfo dominance(root);
  SmallVector<TranslateOp> kept;
  SmallVector<TranslateOp> merged;
  root->walk<WalkOrder::PreOrder>([&](TranslateOp translate) {
    for (TranslateOp other : kept) {
      if (OperationEquivalence::isEquivalentTo(
              other, translate, OperationEquivalence::IgnoreLocations) &&
          dominance.properlyDominates(other.getOperation(), translate)) {
        translate.getResult().replaceAllUsesWith(other.getResult());
        merged.push_back(translate);
        return;
      }
    }
    kept.push_back(translate);
  });
  for (TranslateOp translate : merged)
    translate.erase();
}

void symm::hoistTranslations(Operation *root) {
  // Inner loops first, so that a translation can leave a whole nest.
  root->walk([](LoopLikeOpInterface loop) {
    SmallVector<TranslateOp> translates;
    for (Region *region : loop.getLoopRegions())
      for (Block &block : *region)
        for (auto translate : block.getOps<TranslateOp>())
          translates.push_back(translate);
    for (TranslateOp translate : translates)
      hoistOutOf(loop, translate);
  });
  mergeTranslations(root);
}

namespace {
struct HoistTranslations
    : public symm::impl::SymmHoistTranslationsBase<HoistTranslations> {
  void runOnOperation() override { hoistTranslations(getOperation()); }
};
} // namespace
