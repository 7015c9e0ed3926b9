//===- SymmToAMDGPU.cpp - Lower symm device ops for AMD GPUs ----*- C++ -*-===//
//
// AMD decisions: the AMDGPU syncscopes of each symm scope, the context in the
// constant address space, s_sleep for back-off. Atomics stay LLVM atomics: the
// backend implements the AMDGPU memory model for them, as long as nothing
// claims the memory is neither remote nor fine-grained.
//
//===----------------------------------------------------------------------===//

#include "symm/Conversion/Passes.h"
#include "symm/Conversion/SymmToLLVM.h"

namespace mlir::symm {
#define GEN_PASS_DEF_CONVERTSYMMTOAMDGPU
#include "symm/Conversion/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

namespace {

struct ConvertSymmToAMDGPU
    : public symm::impl::ConvertSymmToAMDGPUBase<ConvertSymmToAMDGPU> {
  void runOnOperation() override {
    SymmTargetInfo target;
    target.heapAddressSpace = 1;
    target.contextAddressSpace = 4;
    target.gpuAddressSpaces = {1, 3, 5};
    target.syncScopes = {"workgroup", "agent-one-as", "one-as"};
    target.emitBackoff = [](OpBuilder &b, Location loc,
                            std::optional<int64_t> ns) {
      if (!ns)
        return;
      // s_sleep N waits about 64 * N cycles; at ~2 GHz that is 32 * N ns.
      int64_t count = std::clamp<int64_t>((*ns + 31) / 32, 1, 127);
      ROCDL::SSleepOp::create(b, loc, b.getI32IntegerAttr(count));
    };
    if (failed(lowerSymmProgram(getOperation(), target)))
      signalPassFailure();
  }
};

} // namespace
