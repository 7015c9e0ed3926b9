//===- SubgroupMMA.cpp - gpu.subgroup_mma_* on per-lane vectors -----------===//
//
// Loads, stores, constants and elementwise operations of fragments held as
// a vector in each lane, for any FragmentLayout: each lane moves the
// elements the layout gives it between memory and its vector.
//
//===----------------------------------------------------------------------===//

#include "symm/Conversion/SubgroupMMA.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::symm;

namespace {

Value index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// A 1-D view of `memref` starting at `memref[indices]`, so that fragment
/// element (i, j) is at `i * leadDimension + j` (or `j * leadDimension + i`
/// when transposed), as the GPU lowerings address it.
Value linearView(OpBuilder &b, Location loc, Value memref, ValueRange indices) {
  auto type = cast<MemRefType>(memref.getType());
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value offset = meta.getOffset();
  for (auto [i, idx] : llvm::enumerate(indices))
    offset = arith::AddIOp::create(
        b, loc, offset,
        arith::MulIOp::create(b, loc, idx, meta.getStrides()[i]));
  auto viewType = MemRefType::get(
      {ShapedType::kDynamic}, type.getElementType(),
      StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, {1}),
      type.getMemorySpace());
  // The size is not used to address; any extent that covers the tile does.
  return memref::ReinterpretCastOp::create(
      b, loc, viewType, meta.getBaseBuffer(), OpFoldResult(offset),
      ArrayRef<OpFoldResult>{
          b.getIndexAttr(std::numeric_limits<int32_t>::max())},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
}

/// The memory position of fragment element (i, j).
Value position(OpBuilder &b, Location loc, FragmentElement e, int64_t ld,
               bool transpose) {
  Value major = transpose ? e.col : e.row, minor = transpose ? e.row : e.col;
  return arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, major, index(b, loc, ld)), minor);
}

/// Threads `init` through a loop over the elements the lane holds; `body`
/// returns the next value.
Value forEachElement(
    OpBuilder &b, Location loc, const FragmentLayout &layout,
    gpu::MMAMatrixType type, Value init,
    function_ref<Value(OpBuilder &, Location, FragmentElement, Value)> body) {
  Value lane = gpu::LaneIdOp::create(b, loc, /*upper_bound=*/IntegerAttr());
  auto loop = scf::ForOp::create(
      b, loc, index(b, loc, 0), index(b, loc, layout.elementCount(type)),
      index(b, loc, 1), ValueRange{init},
      [&](OpBuilder &b, Location loc, Value t, ValueRange acc) {
        FragmentElement e = layout.element(b, loc, type, lane, t);
        scf::YieldOp::create(b, loc, body(b, loc, e, acc[0]));
      });
  return loop.getResult(0);
}

/// A lowering of one subgroup-MMA op for a target's fragment layout.
template <typename OpT>
struct LayoutPattern : public OpConversionPattern<OpT> {
  LayoutPattern(TypeConverter &converter, MLIRContext *ctx,
                const FragmentLayout &layout)
      : OpConversionPattern<OpT>(converter, ctx), layout(layout) {}
  const FragmentLayout &layout;
};

struct LoadLowering : public LayoutPattern<gpu::SubgroupMmaLoadMatrixOp> {
  using LayoutPattern::LayoutPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaLoadMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<gpu::MMAMatrixType>(op.getRes().getType());
    Location loc = op.getLoc();
    VectorType vecType = layout.laneType(type);
    Value view =
        linearView(rewriter, loc, adaptor.getSrcMemref(), adaptor.getIndices());
    int64_t ld = op.getLeadDimension().getSExtValue();
    bool transpose = op.getTranspose().has_value();
    Value init = arith::ConstantOp::create(rewriter, loc, vecType,
                                           rewriter.getZeroAttr(vecType));
    rewriter.replaceOp(
        op, forEachElement(
                rewriter, loc, layout, type, init,
                [&](OpBuilder &b, Location loc, FragmentElement e,
                    Value acc) -> Value {
                  Value v = memref::LoadOp::create(
                      b, loc, view,
                      ValueRange{position(b, loc, e, ld, transpose)});
                  return vector::InsertOp::create(
                      b, loc, v, acc, ArrayRef<OpFoldResult>{e.vectorIndex});
                }));
    return success();
  }
};

struct StoreLowering : public LayoutPattern<gpu::SubgroupMmaStoreMatrixOp> {
  using LayoutPattern::LayoutPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaStoreMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<gpu::MMAMatrixType>(op.getSrc().getType());
    Location loc = op.getLoc();
    Value view =
        linearView(rewriter, loc, adaptor.getDstMemref(), adaptor.getIndices());
    int64_t ld = op.getLeadDimension().getSExtValue();
    bool transpose = op.getTranspose().has_value();
    forEachElement(
        rewriter, loc, layout, type, adaptor.getSrc(),
        [&](OpBuilder &b, Location loc, FragmentElement e, Value acc) -> Value {
          Value v = vector::ExtractOp::create(
              b, loc, acc, ArrayRef<OpFoldResult>{e.vectorIndex});
          memref::StoreOp::create(
              b, loc, v, view, ValueRange{position(b, loc, e, ld, transpose)});
          return acc;
        });
    rewriter.eraseOp(op);
    return success();
  }
};

struct ComputeLowering : public LayoutPattern<gpu::SubgroupMmaComputeOp> {
  using LayoutPattern::LayoutPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaComputeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, layout.compute(rewriter, op.getLoc(), op,
                                          adaptor.getOpA(), adaptor.getOpB(),
                                          adaptor.getOpC()));
    return success();
  }
};

struct ConstantLowering : public LayoutPattern<gpu::SubgroupMmaConstantMatrixOp> {
  using LayoutPattern::LayoutPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaConstantMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<gpu::MMAMatrixType>(op.getRes().getType());
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, layout.laneType(type),
                                                     adaptor.getValue());
    return success();
  }
};

/// Elementwise operations do not care which elements a lane holds.
struct ElementwiseLowering : public LayoutPattern<gpu::SubgroupMmaElementwiseOp> {
  using LayoutPattern::LayoutPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaElementwiseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ValueRange args = adaptor.getArgs();
    VectorType resultType =
        layout.laneType(cast<gpu::MMAMatrixType>(op.getRes().getType()));
    Value result;
    switch (op.getOpType()) {
    case gpu::MMAElementwiseOp::ADDF:
      result = arith::AddFOp::create(rewriter, loc, args[0], args[1]);
      break;
    case gpu::MMAElementwiseOp::MULF:
      result = arith::MulFOp::create(rewriter, loc, args[0], args[1]);
      break;
    case gpu::MMAElementwiseOp::SUBF:
      result = arith::SubFOp::create(rewriter, loc, args[0], args[1]);
      break;
    // NaN in, NaN out, as the NVVM lowering does.
    case gpu::MMAElementwiseOp::MAXF:
      result = arith::MaximumFOp::create(rewriter, loc, args[0], args[1]);
      break;
    case gpu::MMAElementwiseOp::MINF:
      result = arith::MinimumFOp::create(rewriter, loc, args[0], args[1]);
      break;
    case gpu::MMAElementwiseOp::DIVF:
      result = arith::DivFOp::create(rewriter, loc, args[0], args[1]);
      break;
    case gpu::MMAElementwiseOp::ADDI:
      result = arith::AddIOp::create(rewriter, loc, args[0], args[1]);
      break;
    case gpu::MMAElementwiseOp::MULI:
      result = arith::MulIOp::create(rewriter, loc, args[0], args[1]);
      break;
    case gpu::MMAElementwiseOp::SUBI:
      result = arith::SubIOp::create(rewriter, loc, args[0], args[1]);
      break;
    case gpu::MMAElementwiseOp::DIVS:
      result = arith::DivSIOp::create(rewriter, loc, args[0], args[1]);
      break;
    case gpu::MMAElementwiseOp::DIVU:
      result = arith::DivUIOp::create(rewriter, loc, args[0], args[1]);
      break;
    case gpu::MMAElementwiseOp::NEGATEF:
      result = arith::NegFOp::create(rewriter, loc, args[0]);
      break;
    case gpu::MMAElementwiseOp::NEGATES:
      result = arith::SubIOp::create(
          rewriter, loc,
          arith::ConstantOp::create(rewriter, loc, resultType,
                                    rewriter.getZeroAttr(resultType)),
          args[0]);
      break;
    case gpu::MMAElementwiseOp::EXTF:
      result = arith::ExtFOp::create(rewriter, loc, resultType, args[0]);
      break;
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

LogicalResult checkOne(Operation *op, const FragmentLayout &layout,
                       StringRef targetName) {
  if (isa<gpu::SubgroupMmaExtractThreadLocalOp,
          gpu::SubgroupMmaInsertThreadLocalOp>(op))
    return op->emitOpError() << "has no lowering for " << targetName
                             << ": its per-thread layout is NVIDIA's; use "
                                "subgroup_mma_load_matrix/store_matrix instead";
  if (!isa<gpu::SubgroupMmaLoadMatrixOp, gpu::SubgroupMmaStoreMatrixOp,
           gpu::SubgroupMmaComputeOp, gpu::SubgroupMmaConstantMatrixOp,
           gpu::SubgroupMmaElementwiseOp>(op))
    return success();
  for (Type t :
       llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes())) {
    if (auto memref = dyn_cast<MemRefType>(t);
        memref && !memref.getElementType().isIntOrFloat())
      return op->emitOpError() << "on a memref of " << memref.getElementType()
                               << " has no lowering for " << targetName
                               << "; use a memref of scalars";
    if (auto type = dyn_cast<gpu::MMAMatrixType>(t))
      if (failed(layout.checkFragment(op, type)))
        return failure();
  }
  if (auto compute = dyn_cast<gpu::SubgroupMmaComputeOp>(op))
    return layout.checkCompute(compute);
  return success();
}

} // namespace

void mlir::symm::populateSubgroupMmaTypeConversion(
    TypeConverter &converter, const FragmentLayout &layout) {
  converter.addConversion([&layout](gpu::MMAMatrixType type) -> Type {
    return layout.laneType(type);
  });
}

void mlir::symm::populateSubgroupMmaConversionPatterns(
    TypeConverter &converter, const FragmentLayout &layout,
    RewritePatternSet &patterns, ConversionTarget &target) {
  patterns.add<LoadLowering, StoreLowering, ComputeLowering, ConstantLowering,
               ElementwiseLowering>(converter, patterns.getContext(), layout);
  target
      .addIllegalOp<gpu::SubgroupMmaLoadMatrixOp, gpu::SubgroupMmaStoreMatrixOp,
                    gpu::SubgroupMmaComputeOp, gpu::SubgroupMmaConstantMatrixOp,
                    gpu::SubgroupMmaElementwiseOp>();
  // Fragments carried through loops and branches of scf.
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
}

LogicalResult mlir::symm::checkSubgroupMmaSupported(
    Operation *root, const FragmentLayout &layout, StringRef targetName) {
  bool ok = true;
  root->walk([&](Operation *op) {
    if (failed(checkOne(op, layout, targetName)))
      ok = false;
  });
  return success(ok);
}

LogicalResult mlir::symm::lowerSubgroupMma(Operation *root,
                                           const FragmentLayout &layout,
                                           StringRef targetName) {
  if (failed(checkSubgroupMmaSupported(root, layout, targetName)))
    return failure();
  MLIRContext *ctx = root->getContext();
  TypeConverter converter;
  converter.addConversion([](Type type) { return type; });
  populateSubgroupMmaTypeConversion(converter, layout);
  RewritePatternSet patterns(ctx);
  ConversionTarget target(*ctx);
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  populateSubgroupMmaConversionPatterns(converter, layout, patterns, target);
  return applyPartialConversion(root, target, std::move(patterns));
}
