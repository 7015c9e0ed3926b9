//===- TranslateToHeapBase.cpp - Explicit heap-base translation -*- C++ -*-===//
//
// Runs the heap-base lowerings in order, so that each target only lowers
// translate, the rank queries and ordered scalar accesses. Tile copies go
// first because a `put ... signal` raises its flag with a `symm.signal`;
// synchronisation then leaves ordered accesses on translated memrefs, which
// the peer-access lowering keeps as they are.
//
//===----------------------------------------------------------------------===//

#include "symm/Dialect/Symm/Transforms/Passes.h"
#include "symm/manifest.h"

namespace mlir::symm {
#define GEN_PASS_DEF_SYMMTRANSLATETOHEAPBASE
#include "symm/Dialect/Symm/Transforms/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

LogicalResult mlir::symm::checkKernelContext(
    StringRef kernelContext,
    llvm::function_ref<void(const Twine &)> emitError) {
  if (kernelContext == SYMM_MANIFEST_CONTEXT_GLOBAL ||
      kernelContext == SYMM_MANIFEST_CONTEXT_ARGUMENT)
    return success();
  emitError("kernel-context must be '" SYMM_MANIFEST_CONTEXT_GLOBAL
            "' or '" SYMM_MANIFEST_CONTEXT_ARGUMENT "', got '" +
            kernelContext + "'");
  return failure();
}

namespace {

struct TranslateToHeapBase
    : public symm::impl::SymmTranslateToHeapBaseBase<TranslateToHeapBase> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkKernelContext(kernelContext, [&](const Twine &message) {
          module.emitError() << message;
        })))
      return signalPassFailure();
    if (failed(lowerTileCopies(module)))
      return signalPassFailure();
    lowerSynchronisation(module);
    lowerPeerAccesses(module);
    hoistTranslations(module);
    if (kernelContext == SYMM_MANIFEST_CONTEXT_ARGUMENT &&
        failed(addKernelContextArguments(module)))
      return signalPassFailure();
  }
};

} // namespace
