//===- ConvertSymmToLLVM.cpp - Host-side symm ops to runtime calls -*- C++ -*-//
//
// Host code of whole programs: collective allocation, barriers and rank
// queries call the Symm runtime's program entry points, which report errors
// with the rank and end the program.
//
//===----------------------------------------------------------------------===//

#include "symm/Conversion/Passes.h"
#include "symm/Conversion/SymmToLLVM.h"

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"

namespace mlir::symm {
#define GEN_PASS_DEF_CONVERTSYMMTOLLVM
#include "symm/Conversion/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

namespace {

/// Calls runtime function `name`, declaring it in the module if needed.
Value callRuntime(ConversionPatternRewriter &rewriter, Operation *op,
                  StringRef name, Type result, ValueRange args) {
  SmallVector<Type> argTypes(args.getTypes());
  auto module = op->getParentOfType<ModuleOp>();
  FailureOr<LLVM::LLVMFuncOp> fn =
      LLVM::lookupOrCreateFn(rewriter, module, name, argTypes, result);
  assert(succeeded(fn) && "runtime entry point declared with another type");
  auto call = LLVM::CallOp::create(rewriter, op->getLoc(), *fn, args);
  return isa<LLVM::LLVMVoidType>(result) ? Value() : call.getResult();
}

struct AllocLowering : public ConvertOpToLLVMPattern<AllocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(AllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MemRefType type = op.getType();
    SmallVector<Value> sizes, strides;
    Value bytes;
    getMemRefDescriptorSizes(op.getLoc(), type, adaptor.getDynamicSizes(),
                             rewriter, sizes, strides, bytes);
    Value ptr = callRuntime(rewriter, op, "_symm_program_alloc",
                            getPtrType(), {bytes});
    Value desc = createMemRefDescriptor(op.getLoc(), type, ptr, ptr, sizes,
                                        strides, rewriter);
    rewriter.replaceOp(op, desc);
    return success();
  }
};

struct DeallocLowering : public ConvertOpToLLVMPattern<DeallocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(DeallocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MemRefDescriptor desc(adaptor.getMemref());
    callRuntime(rewriter, op, "_symm_program_free",
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
    callRuntime(rewriter, op, "_symm_program_barrier",
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
    rewriter.replaceOp(op, callRuntime(rewriter, op, function,
                                       rewriter.getI32Type(), {}));
    return success();
  }
  std::string function;
};

struct ConvertSymmToLLVM
    : public symm::impl::ConvertSymmToLLVMBase<ConvertSymmToLLVM> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    LLVMTypeConverter converter(ctx);
    converter.addTypeAttributeConversion(
        [](BaseMemRefType, HeapAttr) -> Attribute {
          // Host code holds heap pointers in the default address space.
          return Attribute();
        });
    RewritePatternSet patterns(ctx);
    patterns.add<AllocLowering, DeallocLowering, BarrierLowering>(converter);
    patterns.add<QueryLowering<RankOp>>(converter, "_symm_program_rank");
    patterns.add<QueryLowering<WorldSizeOp>>(converter,
                                             "_symm_program_world_size");
    ConversionTarget target(*ctx);
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addDynamicallyLegalDialect<SymmDialect>([](Operation *op) {
      return op->getParentOfType<gpu::GPUModuleOp>() != nullptr;
    });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    replaceHeapMemorySpace(module, 0);
  }
};

} // namespace
