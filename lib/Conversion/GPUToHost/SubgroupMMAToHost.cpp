//===- SubgroupMMAToHost.cpp - gpu.subgroup_mma_* for the CPU target -----===//
//
// A subgroup's 32 lanes are threads of the CPU target that share nothing but
// memory, so a fragment is laid out such that no lane ever needs another
// lane's registers: A and B operands are replicated in every lane, and the
// accumulator's elements are dealt out to the lanes round-robin. Each lane
// then loads, computes and stores its own part; no barrier or shuffle is
// needed, and the result does not depend on how the lanes are scheduled.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

#include "symm/Conversion/Passes.h"
#include "symm/abi.h"

namespace mlir::symm {
#define GEN_PASS_DEF_SYMMCONVERTSUBGROUPMMATOHOST
#include "symm/Conversion/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

namespace {

constexpr int64_t kLanes = SYMM_HOST_SUBGROUP_SIZE;

bool isReplicated(gpu::MMAMatrixType type) {
  return type.getOperand() != "COp";
}

int64_t numElements(gpu::MMAMatrixType type) {
  return type.getShape()[0] * type.getShape()[1];
}

/// Signless: arith works on signless integers; the signedness of an si8/ui8
/// operand is read from the fragment type where it matters (compute).
Type scalarType(Type type) {
  if (auto i = dyn_cast<IntegerType>(type))
    return IntegerType::get(type.getContext(), i.getWidth());
  return type;
}

/// What each lane holds of a fragment.
VectorType laneVectorType(gpu::MMAMatrixType type) {
  int64_t n = numElements(type);
  return VectorType::get({isReplicated(type) ? n : n / kLanes},
                         scalarType(type.getElementType()));
}

/// Reports what the lowering cannot do before it starts, so that each
/// problem is one error on the operation that has it.
LogicalResult checkSupported(Operation *op) {
  if (isa<gpu::SubgroupMmaExtractThreadLocalOp,
          gpu::SubgroupMmaInsertThreadLocalOp>(op))
    return op->emitOpError(
        "has no lowering for the CPU target: its per-thread layout is the "
        "GPU's; use subgroup_mma_load_matrix/store_matrix instead");
  if (!isa<gpu::SubgroupMmaLoadMatrixOp, gpu::SubgroupMmaStoreMatrixOp,
           gpu::SubgroupMmaComputeOp, gpu::SubgroupMmaConstantMatrixOp,
           gpu::SubgroupMmaElementwiseOp>(op))
    return success();
  for (Type t :
       llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes())) {
    if (auto memref = dyn_cast<MemRefType>(t);
        memref && !memref.getElementType().isIntOrFloat())
      return op->emitOpError()
             << "on a memref of " << memref.getElementType()
             << " has no lowering for the CPU target; use a memref of "
                "scalars";
    auto type = dyn_cast<gpu::MMAMatrixType>(t);
    if (type && numElements(type) % kLanes)
      return op->emitOpError()
             << "fragment " << type << " has " << numElements(type)
             << " elements; the CPU target needs a multiple of " << kLanes
             << " (the subgroup size)";
  }
  return success();
}

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
Value position(OpBuilder &b, Location loc, Value i, Value j, int64_t ld,
               bool transpose) {
  Value major = transpose ? j : i, minor = transpose ? i : j;
  return arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, major, index(b, loc, ld)), minor);
}

/// Calls `body(b, t, e)` for every element this lane owns of a fragment of
/// `type`: `t` its position in the lane's vector, `e` its row-major index
/// in the matrix. Threads `init` through the loop and returns the result.
Value forEachOwned(
    OpBuilder &b, Location loc, gpu::MMAMatrixType type, Value lane, Value init,
    function_ref<Value(OpBuilder &, Location, Value, Value, Value)> body) {
  int64_t owned = numElements(type) / kLanes;
  auto loop = scf::ForOp::create(
      b, loc, index(b, loc, 0), index(b, loc, owned), index(b, loc, 1),
      ValueRange{init},
      [&](OpBuilder &b, Location loc, Value t, ValueRange acc) {
        Value e = arith::AddIOp::create(
            b, loc, lane,
            arith::MulIOp::create(b, loc, t, index(b, loc, kLanes)));
        Value at = isReplicated(type) ? e : t;
        scf::YieldOp::create(b, loc, body(b, loc, at, e, acc[0]));
      });
  return loop.getResult(0);
}

Value laneId(OpBuilder &b, Location loc) {
  return gpu::LaneIdOp::create(b, loc, /*upper_bound=*/IntegerAttr());
}

struct LoadLowering : public OpConversionPattern<gpu::SubgroupMmaLoadMatrixOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaLoadMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<gpu::MMAMatrixType>(op.getRes().getType());
    Location loc = op.getLoc();
    VectorType vecType = laneVectorType(type);
    Value view =
        linearView(rewriter, loc, adaptor.getSrcMemref(), adaptor.getIndices());
    int64_t cols = type.getShape()[1];
    int64_t ld = op.getLeadDimension().getSExtValue();
    bool transpose = op.getTranspose().has_value();
    Value init = arith::ConstantOp::create(rewriter, loc, vecType,
                                           rewriter.getZeroAttr(vecType));
    auto loadAt = [&](OpBuilder &b, Location loc, Value at, Value e,
                      Value acc) -> Value {
      Value c = index(b, loc, cols);
      Value i = arith::DivUIOp::create(b, loc, e, c);
      Value j = arith::RemUIOp::create(b, loc, e, c);
      Value v = memref::LoadOp::create(
          b, loc, view, ValueRange{position(b, loc, i, j, ld, transpose)});
      return vector::InsertOp::create(b, loc, v, acc,
                                      ArrayRef<OpFoldResult>{at});
    };
    Value result;
    if (isReplicated(type)) {
      // Every lane loads the whole matrix.
      auto loop = scf::ForOp::create(
          rewriter, loc, index(rewriter, loc, 0),
          index(rewriter, loc, numElements(type)), index(rewriter, loc, 1),
          ValueRange{init},
          [&](OpBuilder &b, Location loc, Value e, ValueRange acc) {
            scf::YieldOp::create(b, loc, loadAt(b, loc, e, e, acc[0]));
          });
      result = loop.getResult(0);
    } else {
      result = forEachOwned(rewriter, loc, type, laneId(rewriter, loc), init,
                            loadAt);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct StoreLowering
    : public OpConversionPattern<gpu::SubgroupMmaStoreMatrixOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaStoreMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<gpu::MMAMatrixType>(op.getSrc().getType());
    Location loc = op.getLoc();
    Value view =
        linearView(rewriter, loc, adaptor.getDstMemref(), adaptor.getIndices());
    int64_t cols = type.getShape()[1];
    int64_t ld = op.getLeadDimension().getSExtValue();
    bool transpose = op.getTranspose().has_value();
    Value src = adaptor.getSrc();
    // Each lane stores the elements it would own in a COp fragment, so every
    // element is written once even from a replicated fragment.
    forEachOwned(
        rewriter, loc, type, laneId(rewriter, loc), src,
        [&](OpBuilder &b, Location loc, Value at, Value e, Value acc) -> Value {
          Value c = index(b, loc, cols);
          Value i = arith::DivUIOp::create(b, loc, e, c);
          Value j = arith::RemUIOp::create(b, loc, e, c);
          Value v = vector::ExtractOp::create(b, loc, acc,
                                              ArrayRef<OpFoldResult>{at});
          memref::StoreOp::create(
              b, loc, v, view,
              ValueRange{position(b, loc, i, j, ld, transpose)});
          return acc;
        });
    rewriter.eraseOp(op);
    return success();
  }
};

/// Converts a scalar between the operand and accumulation types.
Value convert(OpBuilder &b, Location loc, Value v, Type from, Type to) {
  Type fromScalar = scalarType(from);
  if (fromScalar == to)
    return v;
  if (isa<FloatType>(to)) {
    if (fromScalar.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
      return arith::ExtFOp::create(b, loc, to, v);
    return arith::TruncFOp::create(b, loc, to, v);
  }
  if (fromScalar.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
    return arith::TruncIOp::create(b, loc, to, v);
  if (from.isUnsignedInteger())
    return arith::ExtUIOp::create(b, loc, to, v);
  return arith::ExtSIOp::create(b, loc, to, v);
}

/// The type products and sums are computed in: f32 for floats of 32 bits or
/// fewer (as tensor cores accumulate), f64 for f64, i32 for integers.
Type accumulationType(Type cType) {
  MLIRContext *ctx = cType.getContext();
  if (isa<IntegerType>(cType))
    return IntegerType::get(ctx, 32);
  if (cType.isF64())
    return Float64Type::get(ctx);
  return Float32Type::get(ctx);
}

struct ComputeLowering : public OpConversionPattern<gpu::SubgroupMmaComputeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaComputeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto aType = cast<gpu::MMAMatrixType>(op.getOpA().getType());
    auto bType = cast<gpu::MMAMatrixType>(op.getOpB().getType());
    auto cType = cast<gpu::MMAMatrixType>(op.getOpC().getType());
    Location loc = op.getLoc();
    int64_t n = cType.getShape()[1], k = aType.getShape()[1];
    Type acc = accumulationType(cType.getElementType());
    bool isFloat = isa<FloatType>(acc);
    Value a = adaptor.getOpA(), b = adaptor.getOpB();
    // The transpose attributes only say how A and B were loaded; the
    // fragments hold the logical matrices either way.
    Value result = forEachOwned(
        rewriter, loc, cType, laneId(rewriter, loc), adaptor.getOpC(),
        [&](OpBuilder &bld, Location loc, Value t, Value e,
            Value cVec) -> Value {
          Value i = arith::DivUIOp::create(bld, loc, e, index(bld, loc, n));
          Value j = arith::RemUIOp::create(bld, loc, e, index(bld, loc, n));
          Value c0 = vector::ExtractOp::create(bld, loc, cVec,
                                               ArrayRef<OpFoldResult>{t});
          Value sum0 = convert(bld, loc, c0, cType.getElementType(), acc);
          auto kLoop = scf::ForOp::create(
              bld, loc, index(bld, loc, 0), index(bld, loc, k),
              index(bld, loc, 1), ValueRange{sum0},
              [&](OpBuilder &bld, Location loc, Value kk, ValueRange sum) {
                Value aAt = arith::AddIOp::create(
                    bld, loc,
                    arith::MulIOp::create(bld, loc, i, index(bld, loc, k)), kk);
                Value bAt = arith::AddIOp::create(
                    bld, loc,
                    arith::MulIOp::create(bld, loc, kk, index(bld, loc, n)), j);
                Value av =
                    convert(bld, loc,
                            vector::ExtractOp::create(
                                bld, loc, a, ArrayRef<OpFoldResult>{aAt}),
                            aType.getElementType(), acc);
                Value bv =
                    convert(bld, loc,
                            vector::ExtractOp::create(
                                bld, loc, b, ArrayRef<OpFoldResult>{bAt}),
                            bType.getElementType(), acc);
                Value next;
                if (isFloat)
                  next = arith::AddFOp::create(
                      bld, loc, sum[0],
                      arith::MulFOp::create(bld, loc, av, bv));
                else
                  next = arith::AddIOp::create(
                      bld, loc, sum[0],
                      arith::MulIOp::create(bld, loc, av, bv));
                scf::YieldOp::create(bld, loc, next);
              });
          Value c = convert(bld, loc, kLoop.getResult(0), acc,
                            scalarType(cType.getElementType()));
          return vector::InsertOp::create(bld, loc, c, cVec,
                                          ArrayRef<OpFoldResult>{t});
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConstantLowering
    : public OpConversionPattern<gpu::SubgroupMmaConstantMatrixOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaConstantMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<gpu::MMAMatrixType>(op.getRes().getType());
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, laneVectorType(type),
                                                     adaptor.getValue());
    return success();
  }
};

struct ElementwiseLowering
    : public OpConversionPattern<gpu::SubgroupMmaElementwiseOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaElementwiseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<gpu::MMAMatrixType>(op.getRes().getType());
    Location loc = op.getLoc();
    ValueRange args = adaptor.getArgs();
    VectorType resultType = laneVectorType(type);
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

struct SymmConvertSubgroupMmaToHost
    : public symm::impl::SymmConvertSubgroupMmaToHostBase<
          SymmConvertSubgroupMmaToHost> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    if (getOperation()
            ->walk([](Operation *op) {
              return failed(checkSupported(op)) ? WalkResult::interrupt()
                                                : WalkResult::advance();
            })
            .wasInterrupted())
      return signalPassFailure();
    TypeConverter converter;
    converter.addConversion([](Type type) { return type; });
    converter.addConversion(
        [](gpu::MMAMatrixType type) -> Type { return laneVectorType(type); });

    RewritePatternSet patterns(ctx);
    patterns.add<LoadLowering, StoreLowering, ComputeLowering, ConstantLowering,
                 ElementwiseLowering>(converter, ctx);
    ConversionTarget target(*ctx);
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addIllegalOp<
        gpu::SubgroupMmaLoadMatrixOp, gpu::SubgroupMmaStoreMatrixOp,
        gpu::SubgroupMmaComputeOp, gpu::SubgroupMmaConstantMatrixOp,
        gpu::SubgroupMmaElementwiseOp>();
    // Fragments carried through loops and branches of scf.
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
