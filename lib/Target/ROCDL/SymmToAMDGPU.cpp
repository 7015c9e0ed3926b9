//===- SymmToAMDGPU.cpp - Lower symm device ops for AMD GPUs ----*- C++ -*-===//
//
// AMD decisions: the AMDGPU syncscopes of each symm scope, the context in the
// constant address space, s_sleep for back-off. Atomics stay LLVM atomics: the
// backend implements the AMDGPU memory model for them, as long as nothing
// claims the memory is neither remote nor fine-grained.
//
//===----------------------------------------------------------------------===//

#include "symm/Conversion/SymmToLLVM.h"
#include "symm/Target/ROCDL/Passes.h"
#include "symm/Target/ROCDL/ROCDLTarget.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::symm {
#define GEN_PASS_DEF_CONVERTSYMMTOAMDGPU
#include "symm/Target/ROCDL/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

namespace {

/// Field `offset` (bytes, `bits` wide) of the HSA dispatch packet, as an i64.
Value dispatchField(OpBuilder &b, Location loc, int32_t offset, unsigned bits) {
  auto constant = LLVM::LLVMPointerType::get(b.getContext(), 4);
  Value packet = LLVM::CallIntrinsicOp::create(
                     b, loc, constant,
                     b.getStringAttr("llvm.amdgcn.dispatch.ptr"), ValueRange{})
                     .getResult(0);
  Value field = LLVM::GEPOp::create(b, loc, constant, b.getI8Type(), packet,
                                    ArrayRef<LLVM::GEPArg>{offset});
  Value value = LLVM::LoadOp::create(b, loc, b.getIntegerType(bits), field,
                                     /*alignment=*/bits / 8,
                                     /*isVolatile=*/false,
                                     /*isNonTemporal=*/false,
                                     /*isInvariant=*/true);
  return LLVM::ZExtOp::create(b, loc, b.getI64Type(), value);
}

/// The workgroup size in `dim` (u16 workgroup_size_{x,y,z} at byte 4).
Value blockDim(OpBuilder &b, Location loc, gpu::Dimension dim) {
  return dispatchField(b, loc, 4 + 2 * static_cast<int32_t>(dim), 16);
}

/// Block and grid sizes come from the dispatch packet instead of the ROCm
/// device library's __ockl_get_local_size / __ockl_get_num_groups, so that
/// HSACO builds without ROCm; gpu.global_id, which upstream lowers through
/// them, is expanded first.
void lowerDispatchDims(ModuleOp module) {
  SmallVector<Operation *> ops;
  module.walk([&](Operation *op) {
    if (isa<gpu::BlockDimOp, gpu::GridDimOp, gpu::GlobalIdOp>(op) &&
        op->getParentOfType<gpu::GPUModuleOp>())
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Type index = b.getIndexType();
    Value result;
    if (auto dim = dyn_cast<gpu::BlockDimOp>(op)) {
      result = arith::IndexCastUIOp::create(
          b, loc, index, blockDim(b, loc, dim.getDimension()));
    } else if (auto grid = dyn_cast<gpu::GridDimOp>(op)) {
      // u32 grid_size_{x,y,z} at byte 12 counts work-items, not workgroups.
      gpu::Dimension d = grid.getDimension();
      Value items = dispatchField(b, loc, 12 + 4 * static_cast<int32_t>(d), 32);
      Value groups = LLVM::UDivOp::create(b, loc, items, blockDim(b, loc, d));
      result = arith::IndexCastUIOp::create(b, loc, index, groups);
    } else {
      gpu::Dimension d = cast<gpu::GlobalIdOp>(op).getDimension();
      Value size =
          arith::IndexCastUIOp::create(b, loc, index, blockDim(b, loc, d));
      Value block = gpu::BlockIdOp::create(b, loc, d);
      Value thread = gpu::ThreadIdOp::create(b, loc, d);
      result = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, block, size), thread);
    }
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
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
  target.subgroupSize = 64;
  target.fenceBeforeReleaseBarrier = true;
  target.emitBackoff = [](OpBuilder &b, Location loc,
                          std::optional<int64_t> ns) {
    if (!ns)
      return;
    // s_sleep N waits about 64 * N cycles; at ~2 GHz that is 32 * N ns.
    int64_t count = std::clamp<int64_t>((*ns + 31) / 32, 1, 127);
    ROCDL::SSleepOp::create(b, loc, b.getI32IntegerAttr(count));
  };
  target.readClock = [](OpBuilder &b, Location loc) -> Value {
    Type i64 = b.getI64Type();
    // s_memrealtime counts at a constant 100 MHz on CDNA 3 (gfx942).
    Value ticks = LLVM::CallIntrinsicOp::create(
                      b, loc, i64, b.getStringAttr("llvm.amdgcn.s.memrealtime"),
                      ValueRange{})
                      .getResult(0);
    return LLVM::MulOp::create(b, loc, ticks,
                               LLVM::ConstantOp::create(b, loc, i64, 10));
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
    // lowerDispatchDims: its gpu.block_dim would need the ROCm device
    // libraries.
    RewritePatternSet allReduce(&getContext());
    populateGpuAllReducePatterns(allReduce);
    if (failed(applyPatternsGreedily(getOperation(), std::move(allReduce))))
      return signalPassFailure();
    // The dispatch's LDS (u32 group_segment_size at byte 28) less the
    // kernel's static LDS.
    sizeDynamicSharedMemory(getOperation(), [](OpBuilder &b, Location loc) {
      Value group = dispatchField(b, loc, 28, 32);
      Value fixed =
          LLVM::CallIntrinsicOp::create(
              b, loc, b.getI32Type(),
              b.getStringAttr("llvm.amdgcn.groupstaticsize"), ValueRange{})
              .getResult(0);
      return LLVM::SubOp::create(
          b, loc, group, LLVM::ZExtOp::create(b, loc, b.getI64Type(), fixed));
    });
    if (failed(lowerSymmProgram(getOperation(),
                                getAMDGPUTargetInfo({checkRanks}))))
      return signalPassFailure();
    // After the symm lowering, whose trace events take block sizes too.
    lowerDispatchDims(getOperation());
  }
};

} // namespace
