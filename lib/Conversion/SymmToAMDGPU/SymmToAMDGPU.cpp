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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::symm {
#define GEN_PASS_DEF_CONVERTSYMMTOAMDGPU
#include "symm/Conversion/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

namespace {

/// gpu.block_dim from the HSA dispatch packet (workgroup_size_x/y/z are
/// 16-bit fields at byte 4, 6, 8). convert-gpu-to-rocdl would call
/// __ockl_get_local_size, which needs the ROCm device libraries; the tile
/// loops use block_dim, and HSACO must build without ROCm.
void lowerBlockDims(ModuleOp module) {
  SmallVector<gpu::BlockDimOp> dims;
  module.walk([&](gpu::BlockDimOp op) {
    if (op->getParentOfType<gpu::GPUModuleOp>())
      dims.push_back(op);
  });
  for (gpu::BlockDimOp op : dims) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto constant = LLVM::LLVMPointerType::get(ctx, 4);
    Value packet =
        LLVM::CallIntrinsicOp::create(
            b, loc, constant, b.getStringAttr("llvm.amdgcn.dispatch.ptr"),
            ValueRange{})
            .getResult(0);
    int32_t offset = 4 + 2 * static_cast<int32_t>(op.getDimension());
    Value field = LLVM::GEPOp::create(b, loc, constant, b.getI8Type(), packet,
                                      ArrayRef<LLVM::GEPArg>{offset});
    Value size = LLVM::LoadOp::create(b, loc, b.getI16Type(), field,
                                      /*alignment=*/2, /*isVolatile=*/false,
                                      /*isNonTemporal=*/false,
                                      /*isInvariant=*/true);
    Value wide = LLVM::ZExtOp::create(b, loc, b.getI64Type(), size);
    op.replaceAllUsesWith(
        arith::IndexCastUIOp::create(b, loc, b.getIndexType(), wide)
            .getResult());
    op.erase();
  }
}

} // namespace

SymmTargetInfo
mlir::symm::getAMDGPUTargetInfo(const GPUTargetOptions &options) {
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
  // AMD GPUs have no printf without the ROCm device libraries: the trap
  // ends the kernel, and the launch reports the fault.
  if (options.checkRanks)
    target.reportPeerOutOfRange = [](OpBuilder &b, Location loc, StringRef,
                                     Value, Value,
                                     Value) { LLVM::Trap::create(b, loc); };
  return target;
}

namespace {

struct ConvertSymmToAMDGPU
    : public symm::impl::ConvertSymmToAMDGPUBase<ConvertSymmToAMDGPU> {
  using Base::Base;
  void runOnOperation() override {
    // convert-gpu-to-rocdl would rewrite gpu.all_reduce too, but after
    // lowerBlockDims: its gpu.block_dim would need the ROCm device libraries.
    RewritePatternSet allReduce(&getContext());
    populateGpuAllReducePatterns(allReduce);
    if (failed(applyPatternsGreedily(getOperation(), std::move(allReduce))))
      return signalPassFailure();
    lowerBlockDims(getOperation());
    if (failed(lowerSymmProgram(getOperation(),
                                getAMDGPUTargetInfo({checkRanks}))))
      signalPassFailure();
  }
};

} // namespace
