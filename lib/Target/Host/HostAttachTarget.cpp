//===- HostAttachTarget.cpp - Attach the CPU target -------------*- C++ -*-===//

#include "symm/Dialect/Symm/IR/SymmDialect.h"
#include "symm/Target/Host/Passes.h"

namespace mlir::symm {
#define GEN_PASS_DEF_SYMMHOSTATTACHTARGET
#include "symm/Target/Host/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

namespace {
struct SymmHostAttachTarget
    : public symm::impl::SymmHostAttachTargetBase<SymmHostAttachTarget> {
  using Base::Base;
  void runOnOperation() override {
    // The error names the option, not the module it was given for.
    auto target = HostTargetAttr::getChecked(
        [&] { return emitError(getOperation().getLoc()); }, &getContext(),
        int(optLevel));
    if (!target)
      return signalPassFailure();
    getOperation().walk([&](gpu::GPUModuleOp module) {
      SmallVector<Attribute> targets;
      if (ArrayAttr existing = module.getTargetsAttr())
        for (Attribute t : existing)
          if (!isa<HostTargetAttr>(t))
            targets.push_back(t);
      targets.push_back(target);
      module.setTargetsAttr(ArrayAttr::get(&getContext(), targets));
    });
  }
};
} // namespace
