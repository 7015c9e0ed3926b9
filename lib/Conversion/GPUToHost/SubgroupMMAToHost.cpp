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

#include "symm/Conversion/Passes.h"
#include "symm/Conversion/SubgroupMMA.h"
#include "symm/abi.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

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

Value index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

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

/// A and B replicated (row-major, every lane), C round-robin: lane `l`
/// holds the row-major elements l, l + 32, l + 64, ...
struct HostLayout : public FragmentLayout {
  LogicalResult checkFragment(Operation *op,
                              gpu::MMAMatrixType type) const override {
    if (numElements(type) % kLanes)
      return op->emitOpError()
             << "fragment " << type << " has " << numElements(type)
             << " elements; the CPU target needs a multiple of " << kLanes
             << " (the subgroup size)";
    return success();
  }

  LogicalResult checkCompute(gpu::SubgroupMmaComputeOp) const override {
    return success();
  }

  VectorType laneType(gpu::MMAMatrixType type) const override {
    int64_t n = numElements(type);
    return VectorType::get({isReplicated(type) ? n : n / kLanes},
                           scalarType(type.getElementType()));
  }

  int64_t elementCount(gpu::MMAMatrixType type) const override {
    return laneType(type).getNumElements();
  }

  FragmentElement element(OpBuilder &b, Location loc, gpu::MMAMatrixType type,
                          Value lane, Value t) const override {
    Value e = t;
    if (!isReplicated(type))
      e = arith::AddIOp::create(
          b, loc, lane,
          arith::MulIOp::create(b, loc, t, index(b, loc, kLanes)));
    Value cols = index(b, loc, type.getShape()[1]);
    return {t, arith::DivUIOp::create(b, loc, e, cols),
            arith::RemUIOp::create(b, loc, e, cols)};
  }

  /// c = C[i][j]; for k in 0..K: c = c + A[i][k] * B[k][j], each product
  /// and sum rounded to the accumulation type; the result rounded once to
  /// C's type. The transpose attributes only say how A and B were loaded:
  /// the fragments hold the logical matrices either way.
  Value compute(OpBuilder &builder, Location loc, gpu::SubgroupMmaComputeOp op,
                Value a, Value b, Value c) const override {
    auto aType = cast<gpu::MMAMatrixType>(op.getOpA().getType());
    auto bType = cast<gpu::MMAMatrixType>(op.getOpB().getType());
    auto cType = cast<gpu::MMAMatrixType>(op.getOpC().getType());
    int64_t n = cType.getShape()[1], k = aType.getShape()[1];
    Type acc = accumulationType(cType.getElementType());
    bool isFloat = isa<FloatType>(acc);
    Value lane =
        gpu::LaneIdOp::create(builder, loc, /*upper_bound=*/IntegerAttr());
    auto loop = scf::ForOp::create(
        builder, loc, index(builder, loc, 0),
        index(builder, loc, elementCount(cType)), index(builder, loc, 1),
        ValueRange{c},
        [&](OpBuilder &bld, Location loc, Value t, ValueRange cVec) {
          FragmentElement e = element(bld, loc, cType, lane, t);
          Value c0 = vector::ExtractOp::create(bld, loc, cVec[0],
                                               ArrayRef<OpFoldResult>{t});
          Value sum0 = convert(bld, loc, c0, cType.getElementType(), acc);
          auto kLoop = scf::ForOp::create(
              bld, loc, index(bld, loc, 0), index(bld, loc, k),
              index(bld, loc, 1), ValueRange{sum0},
              [&](OpBuilder &bld, Location loc, Value kk, ValueRange sum) {
                Value aAt = arith::AddIOp::create(
                    bld, loc,
                    arith::MulIOp::create(bld, loc, e.row, index(bld, loc, k)),
                    kk);
                Value bAt = arith::AddIOp::create(
                    bld, loc,
                    arith::MulIOp::create(bld, loc, kk, index(bld, loc, n)),
                    e.col);
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
          Value result = convert(bld, loc, kLoop.getResult(0), acc,
                                 scalarType(cType.getElementType()));
          scf::YieldOp::create(
              bld, loc,
              vector::InsertOp::create(bld, loc, result, cVec[0],
                                       ArrayRef<OpFoldResult>{t})
                  .getResult());
        });
    return loop.getResult(0);
  }
};

struct SymmConvertSubgroupMmaToHost
    : public symm::impl::SymmConvertSubgroupMmaToHostBase<
          SymmConvertSubgroupMmaToHost> {
  void runOnOperation() override {
    HostLayout layout;
    if (failed(lowerSubgroupMma(getOperation(), layout, "the CPU target")))
      signalPassFailure();
  }
};

} // namespace
