//===- CheckHopperOps.cpp - Hopper operations need a Hopper chip ----------===//
//
// Warpgroup MMA is an sm_90a feature and TMA an sm_90 one. Compiled for any
// other GPU, the backend or ptxas would fail far from the source operation
// (or an AMD pipeline would just not legalize it); this names the operation
// and the chip it needs first.
//
//===----------------------------------------------------------------------===//

#include "symm/Conversion/Passes.h"

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

namespace mlir::symm {
#define GEN_PASS_DEF_SYMMCHECKHOPPEROPS
#include "symm/Conversion/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

namespace {

/// What an operation needs of an NVIDIA chip.
enum class Need { Nothing, Sm90, Sm90a };

Need needOf(Operation *op) {
  if (isa<nvgpu::WarpgroupMmaOp, nvgpu::WarpgroupMmaStoreOp,
          nvgpu::WarpgroupMmaInitAccumulatorOp,
          nvgpu::WarpgroupGenerateDescriptorOp, NVVM::WgmmaFenceAlignedOp,
          NVVM::WgmmaGroupSyncAlignedOp, NVVM::WgmmaWaitGroupSyncOp,
          NVVM::WgmmaMmaAsyncOp>(op))
    return Need::Sm90a;
  if (isa<nvgpu::TmaAsyncLoadOp, nvgpu::TmaAsyncStoreOp, nvgpu::TmaPrefetchOp,
          nvgpu::TmaFenceOp, nvgpu::TmaCreateDescriptorOp,
          nvgpu::MBarrierArriveExpectTxOp, nvgpu::MBarrierTryWaitParityOp>(op))
    return Need::Sm90;
  return Need::Nothing;
}

/// Whether `chip` (an NVIDIA chip, sm_<N>[suffix]) runs what `need` asks.
bool nvidiaChipHas(StringRef chip, Need need) {
  StringRef digits = chip.drop_front(3).take_while(llvm::isDigit);
  unsigned sm = 0;
  digits.getAsInteger(10, sm);
  if (need == Need::Sm90a)
    return chip == "sm_90a";
  return sm >= 90;
}

struct SymmCheckHopperOps
    : public symm::impl::SymmCheckHopperOpsBase<SymmCheckHopperOps> {
  using Base::Base;

  void runOnOperation() override {
    bool nvidia = StringRef(chip).starts_with("sm_");
    bool amd = StringRef(chip).starts_with("gfx");
    if (!nvidia && !amd)
      return;
    WalkResult walk = getOperation().walk([&](Operation *op) {
      Need need = needOf(op);
      if (need == Need::Nothing || (nvidia && nvidiaChipHas(chip, need)))
        return WalkResult::advance();
      StringRef what = need == Need::Sm90a ? "warpgroup MMA" : "TMA";
      InFlightDiagnostic diag = op->emitError() << "'" << op->getName() << "' ("
                                                << what << ") needs ";
      if (need == Need::Sm90a)
        diag << "--target=sm_90a";
      else
        diag << "--target=sm_90 or newer (sm_90a for warpgroup MMA)";
      diag << "; " << chip << " has no " << what;
      return WalkResult::interrupt();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
