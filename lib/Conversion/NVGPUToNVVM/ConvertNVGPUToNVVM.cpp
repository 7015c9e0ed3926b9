//===- ConvertNVGPUToNVVM.cpp - Upstream's nvgpu lowering where needed ----===//
//
// Upstream's convert-nvgpu-to-nvvm marks scf operations with types it cannot
// convert illegal, which fails on loops that carry WMMA fragments; only the
// gpu.modules that use nvgpu operations go through it. Before it, warpgroup
// accumulators stored into bf16 or f16 memrefs are lowered here: upstream
// stores the f32 elements as they are, so it takes only f32 destinations.
//
//===----------------------------------------------------------------------===//

#include "symm/Conversion/Passes.h"
#include "symm/Conversion/SymmToLLVM.h"

#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::symm {
#define GEN_PASS_DEF_SYMMCONVERTNVGPUTONVVM
#include "symm/Conversion/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

namespace {

/// Rows of one wgmma: an accumulator holds one block of registers per 64
/// rows.
constexpr int64_t kWgmmaM = 64;

/// A store the hardware cannot take as it is: a float accumulator into a
/// memref of another float type.
bool isNarrowingStore(nvgpu::WarpgroupMmaStoreOp op) {
  Type acc = op.getMatrixD().getType().getFragmented().getElementType();
  Type dst = op.getDstMemref().getType().getElementType();
  return acc.isF32() && isa<FloatType>(dst) && dst.getIntOrFloatBitWidth() < 32;
}

/// The LLVM struct upstream's lowering makes of an f32 accumulator of M x N:
/// a struct of N/2 f32 registers per 64 rows.
Type accumulatorStruct(nvgpu::WarpgroupAccumulatorType type) {
  VectorType v = type.getFragmented();
  MLIRContext *ctx = type.getContext();
  auto block = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(v.getDimSize(1) / 2, v.getElementType()));
  return LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(v.getDimSize(0) / kWgmmaM, block));
}

/// Stores each pair of neighbouring accumulator elements as one 2-element
/// vector of the destination's type, rounded once. Elements go where
/// upstream's f32 store puts them, so that a kernel may store either way:
/// lane l of warp w (its index in the block, not in the warpgroup) holds
/// registers 4j + 2i + {0, 1} of each 64-row block b at row l/4 + 16w + 8i
/// + b N/2 and columns 8j + 2(l mod 4) + {0, 1}.
struct NarrowingStoreLowering
    : public OpConversionPattern<nvgpu::WarpgroupMmaStoreOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(nvgpu::WarpgroupMmaStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isNarrowingStore(op))
      return failure();
    Location loc = op.getLoc();
    Value dst = op.getDstMemref();
    Type element = op.getDstMemref().getType().getElementType();
    VectorType v = op.getMatrixD().getType().getFragmented();
    int64_t cols = v.getDimSize(1);
    auto index = [&](int64_t value) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, value);
    };
    Value tid = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
    Value lane = arith::RemUIOp::create(rewriter, loc, tid, index(32));
    Value warp = arith::DivUIOp::create(rewriter, loc, tid, index(32));
    Value laneRow = arith::AddIOp::create(
        rewriter, loc, arith::DivUIOp::create(rewriter, loc, lane, index(4)),
        arith::MulIOp::create(rewriter, loc, warp, index(16)));
    Value laneCol = arith::MulIOp::create(
        rewriter, loc, arith::RemUIOp::create(rewriter, loc, lane, index(4)),
        index(2));
    auto pairType = VectorType::get({2}, v.getElementType());
    auto storedType = VectorType::get({2}, element);
    int64_t alignment = 2 * element.getIntOrFloatBitWidth() / 8;
    for (int64_t b = 0; b < v.getDimSize(0) / kWgmmaM; ++b) {
      Value block =
          LLVM::ExtractValueOp::create(rewriter, loc, adaptor.getMatrixD(), b);
      for (int64_t i = 0; i < 2; ++i) {
        Value row = arith::AddIOp::create(rewriter, loc, laneRow,
                                          index(8 * i + b * cols / 2));
        for (int64_t j = 0; j < cols / 8; ++j) {
          Value col =
              arith::AddIOp::create(rewriter, loc, laneCol, index(8 * j));
          Value lo =
              LLVM::ExtractValueOp::create(rewriter, loc, block, 4 * j + 2 * i);
          Value hi = LLVM::ExtractValueOp::create(rewriter, loc, block,
                                                  4 * j + 2 * i + 1);
          Value pair = vector::FromElementsOp::create(rewriter, loc, pairType,
                                                      ValueRange{lo, hi});
          Value narrow =
              arith::TruncFOp::create(rewriter, loc, storedType, pair);
          auto store = vector::StoreOp::create(rewriter, loc, narrow, dst,
                                               ValueRange{row, col});
          store.setAlignment(alignment);
        }
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// Lowers the narrowing accumulator stores of `module`. Their accumulators
/// become upstream's structs through casts that fold away once upstream's
/// lowering has converted the values they cast.
LogicalResult lowerNarrowingStores(gpu::GPUModuleOp module) {
  MLIRContext *ctx = module.getContext();
  TypeConverter converter;
  addCastBridgedConversions(converter);
  converter.addConversion([](nvgpu::WarpgroupAccumulatorType type) -> Type {
    return accumulatorStruct(type);
  });
  RewritePatternSet patterns(ctx);
  patterns.add<NarrowingStoreLowering>(converter, ctx);
  ConversionTarget target(*ctx);
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  target.addDynamicallyLegalOp<nvgpu::WarpgroupMmaStoreOp>(
      [](nvgpu::WarpgroupMmaStoreOp op) { return !isNarrowingStore(op); });
  return applyPartialConversion(module, target, std::move(patterns));
}

struct SymmConvertNVGPUToNVVM
    : public symm::impl::SymmConvertNVGPUToNVVMBase<SymmConvertNVGPUToNVVM> {
  void runOnOperation() override {
    bool usesNVGPU = getOperation()
                         .walk([](Operation *op) {
                           return isa<nvgpu::NVGPUDialect>(op->getDialect())
                                      ? WalkResult::interrupt()
                                      : WalkResult::advance();
                         })
                         .wasInterrupted();
    if (!usesNVGPU)
      return;
    if (failed(lowerNarrowingStores(getOperation())))
      return signalPassFailure();
    OpPassManager pm(gpu::GPUModuleOp::getOperationName());
    pm.addPass(createConvertNVGPUToNVVMPass());
    if (failed(runPipeline(pm, getOperation())))
      signalPassFailure();
  }
};

} // namespace
