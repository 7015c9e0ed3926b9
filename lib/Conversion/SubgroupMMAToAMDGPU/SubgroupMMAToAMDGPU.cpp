//===- SubgroupMMAToAMDGPU.cpp - gpu.subgroup_mma_* to amdgpu.mfma --------===//
//
// Fragments live in the registers of v_mfma_f32_16x16x16f16, as the CDNA3
// ISA lays them out for a 64-lane wavefront: the subgroup's lanes together
// hold each 16x16 matrix once, 4 elements a lane, and one MFMA computes
// D = A·B + C.
//
//===----------------------------------------------------------------------===//

#include "symm/Conversion/Passes.h"
#include "symm/Conversion/SubgroupMMA.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::symm {
#define GEN_PASS_DEF_SYMMCONVERTSUBGROUPMMATOAMDGPU
#include "symm/Conversion/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

namespace {

/// The one MFMA shape the lowering uses, and the elements a lane holds.
constexpr int64_t kDim = 16, kPerLane = 4;

Value index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

struct MfmaLayout : public FragmentLayout {
  LogicalResult checkFragment(Operation *op,
                              gpu::MMAMatrixType type) const override {
    Type element = type.getElementType();
    bool okType =
        element.isF16() || (type.getOperand() == "COp" && element.isF32());
    if (type.getShape() != ArrayRef<int64_t>{kDim, kDim} || !okType)
      return op->emitOpError()
             << "fragment " << type
             << " has no MFMA lowering; AMD GPUs take 16x16 f16 A and B "
                "fragments and 16x16 f32 or f16 accumulators";
    return success();
  }

  LogicalResult checkCompute(gpu::SubgroupMmaComputeOp) const override {
    return success();
  }

  VectorType laneType(gpu::MMAMatrixType type) const override {
    return VectorType::get({kPerLane}, type.getElementType());
  }

  int64_t elementCount(gpu::MMAMatrixType) const override { return kPerLane; }

  /// A: lane l holds row l mod 16, columns 4 (l / 16) + t. B and C: column
  /// l mod 16, rows 4 (l / 16) + t.
  FragmentElement element(OpBuilder &b, Location loc, gpu::MMAMatrixType type,
                          Value lane, Value t) const override {
    Value inner = arith::RemUIOp::create(b, loc, lane, index(b, loc, kDim));
    Value outer = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(
            b, loc, arith::DivUIOp::create(b, loc, lane, index(b, loc, kDim)),
            index(b, loc, kPerLane)),
        t);
    if (type.getOperand() == "AOp")
      return {t, inner, outer};
    return {t, outer, inner};
  }

  Value compute(OpBuilder &b, Location loc, gpu::SubgroupMmaComputeOp op,
                Value a, Value bValue, Value c) const override {
    auto cType = cast<gpu::MMAMatrixType>(op.getOpC().getType());
    auto f32 = VectorType::get({kPerLane}, b.getF32Type());
    Value acc = c;
    if (!cType.getElementType().isF32())
      acc = arith::ExtFOp::create(b, loc, f32, c);
    Value d = amdgpu::MFMAOp::create(b, loc, f32, kDim, kDim, kDim,
                                     /*blocks=*/1, a, bValue, acc);
    if (!cType.getElementType().isF32())
      d = arith::TruncFOp::create(b, loc, laneType(cType), d);
    return d;
  }
};

struct SymmConvertSubgroupMmaToAMDGPU
    : public symm::impl::SymmConvertSubgroupMmaToAMDGPUBase<
          SymmConvertSubgroupMmaToAMDGPU> {
  void runOnOperation() override {
    MfmaLayout layout;
    if (failed(lowerSubgroupMma(getOperation(), layout, "AMD GPUs")))
      signalPassFailure();
  }
};

} // namespace
