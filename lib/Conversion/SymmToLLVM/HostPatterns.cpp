//===- HostPatterns.cpp - symm host ops to the LLVM dialect -----*- C++ -*-===//
//-*-===//
//
// Host code (outside gpu.modules) calls the runtime's program entry points
// (symm/abi.h) for symm.alloc, symm.dealloc, symm.barrier, symm.rank and
// symm.world_size, on every target.
//
//===----------------------------------------------------------------------===//

#include "symm/Conversion/SymmToLLVM.h"
#include "symm/abi.h"

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"

using namespace mlir;
using namespace mlir::symm;

namespace {

/// Calls runtime function `name`, declaring it in the module if needed.
Value callRuntime(ConversionPatternRewriter &rewriter, Operation *op,
                  StringRef name, Type result, ValueRange args) {
  SmallVector<Type> argTypes(args.getTypes());
  LLVM::LLVMFuncOp fn = getRuntimeFunction(
      rewriter, op->getParentOfType<ModuleOp>(), name, argTypes, result);
  auto call = LLVM::CallOp::create(rewriter, op->getLoc(), fn, args);
  return isa<LLVM::LLVMVoidType>(result) ? Value() : call.getResult();
}

struct AllocLowering : public ConvertOpToLLVMPattern<AllocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(AllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MemRefType type = op.getType();
    SmallVector<Value> sizes, strides;
    Value unchecked;
    getMemRefDescriptorSizes(op.getLoc(), type, adaptor.getDynamicSizes(),
                             rewriter, sizes, strides, unchecked);
    Value bytes = checkedBytes(op.getLoc(), type, sizes, rewriter);
    Value ptr =
        callRuntime(rewriter, op, SYMM_PROGRAM_ALLOC_FN, getPtrType(), {bytes});
    Value desc = createMemRefDescriptor(op.getLoc(), type, ptr, ptr, sizes,
                                        strides, rewriter);
    rewriter.replaceOp(op, desc);
    return success();
  }

  /// The element size times every dimension, or -1 when a dynamic size is
  /// negative or the product does not fit in 63 bits: the runtime reports
  /// that, where a wrapped product would allocate a small block.
  Value checkedBytes(Location loc, MemRefType type, ArrayRef<Value> sizes,
                     ConversionPatternRewriter &rewriter) const {
    Type i64 = getIndexType();
    Type i1 = rewriter.getI1Type();
    auto product = LLVM::LLVMStructType::getLiteral(getContext(), {i64, i1});
    Value zero = LLVM::ConstantOp::create(rewriter, loc, i64, 0);
    Value bytes = getSizeInBytes(loc, type.getElementType(), rewriter);
    Value bad = LLVM::ConstantOp::create(rewriter, loc, i1, 0);
    for (Value size : sizes) {
      Value negative = LLVM::ICmpOp::create(
          rewriter, loc, LLVM::ICmpPredicate::slt, size, zero);
      Value mul =
          LLVM::UMulWithOverflowOp::create(rewriter, loc, product, bytes, size);
      bytes = LLVM::ExtractValueOp::create(rewriter, loc, mul, 0);
      Value overflow = LLVM::ExtractValueOp::create(rewriter, loc, mul, 1);
      bad = LLVM::OrOp::create(rewriter, loc, bad, negative);
      bad = LLVM::OrOp::create(rewriter, loc, bad, overflow);
    }
    Value beyond = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::slt,
                                        bytes, zero);
    bad = LLVM::OrOp::create(rewriter, loc, bad, beyond);
    Value invalid = LLVM::ConstantOp::create(rewriter, loc, i64, -1);
    return LLVM::SelectOp::create(rewriter, loc, bad, invalid, bytes);
  }
};

struct DeallocLowering : public ConvertOpToLLVMPattern<DeallocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(DeallocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MemRefDescriptor desc(adaptor.getMemref());
    callRuntime(rewriter, op, SYMM_PROGRAM_FREE_FN,
                LLVM::LLVMVoidType::get(op.getContext()),
                {desc.allocatedPtr(rewriter, op.getLoc())});
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierLowering : public ConvertOpToLLVMPattern<BarrierOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    callRuntime(rewriter, op, SYMM_PROGRAM_BARRIER_FN,
                LLVM::LLVMVoidType::get(op.getContext()), {});
    rewriter.eraseOp(op);
    return success();
  }
};

template <typename OpT>
struct QueryLowering : public ConvertOpToLLVMPattern<OpT> {
  QueryLowering(const LLVMTypeConverter &converter, StringRef function)
      : ConvertOpToLLVMPattern<OpT>(converter), function(function) {}
  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, callRuntime(rewriter, op, function, rewriter.getI32Type(), {}));
    return success();
  }
  std::string function;
};

} // namespace

void mlir::symm::populateSymmHostToLLVMConversionPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<AllocLowering, DeallocLowering, BarrierLowering>(converter);
  patterns.add<QueryLowering<RankOp>>(converter, SYMM_PROGRAM_RANK_FN);
  patterns.add<QueryLowering<WorldSizeOp>>(converter,
                                           SYMM_PROGRAM_WORLD_SIZE_FN);
}

LogicalResult mlir::symm::lowerSymmHostCode(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  LLVMTypeConverter converter(ctx);
  converter.addTypeAttributeConversion(
      [](BaseMemRefType, HeapAttr) -> Attribute {
        // Host code holds heap pointers in the default address space.
        return Attribute();
      });
  RewritePatternSet patterns(ctx);
  populateSymmHostToLLVMConversionPatterns(converter, patterns);
  ConversionTarget target(*ctx);
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  target.addDynamicallyLegalDialect<SymmDialect>([](Operation *op) {
    return op->getParentOfType<gpu::GPUModuleOp>() != nullptr;
  });
  if (failed(applyPartialConversion(module, target, std::move(patterns))))
    return failure();
  for (Operation &op : module.getBody()->getOperations())
    if (!isa<gpu::GPUModuleOp>(op))
      replaceHeapMemorySpace(&op, 0);
  return success();
}
