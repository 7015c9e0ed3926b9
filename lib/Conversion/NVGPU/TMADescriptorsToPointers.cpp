//===- TMADescriptorsToPointers.cpp - TMA descriptors between host and GPU ===//
//
// Host code makes TMA descriptors with a runtime call; kernels take them as
// pointers. Upstream lowers the descriptor type inside functions, but not in
// gpu.func signatures or gpu.launch_func operands, and its pass converts
// device code too (and, nested on functions, races to declare the runtime
// function in the module), so the host side is done here, once, for every
// target.
//
//===----------------------------------------------------------------------===//

#include "symm/Conversion/Passes.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

namespace mlir::symm {
#define GEN_PASS_DEF_SYMMTMADESCRIPTORSTOPOINTERS
#include "symm/Conversion/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

namespace {

bool isDescriptor(Type type) {
  return isa<nvgpu::TensorMapDescriptorType>(type);
}

/// The kernel takes a pointer where it took a descriptor, and casts it back
/// for the operations that use it.
void convertKernel(gpu::GPUFuncOp func, Type ptr) {
  if (func.isExternal())
    return;
  Block &entry = func.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  SmallVector<Type> inputs(func.getArgumentTypes());
  for (auto [index, type] : llvm::enumerate(inputs)) {
    if (!isDescriptor(type))
      continue;
    BlockArgument arg = entry.getArgument(index);
    arg.setType(ptr);
    auto cast = UnrealizedConversionCastOp::create(b, arg.getLoc(), type, arg);
    arg.replaceAllUsesExcept(cast.getResult(0), cast);
    type = ptr;
  }
  func.setFunctionType(
      FunctionType::get(func.getContext(), inputs, func.getResultTypes()));
}

/// The launch passes the pointer the descriptor is.
void convertLaunch(gpu::LaunchFuncOp launch, Type ptr) {
  OpBuilder b(launch);
  for (OpOperand &operand : launch.getKernelOperandsMutable()) {
    if (!isDescriptor(operand.get().getType()))
      continue;
    operand.set(UnrealizedConversionCastOp::create(b, launch.getLoc(), ptr,
                                                   operand.get())
                    .getResult(0));
  }
}

/// Host code's nvgpu.tma.create.descriptor to the runtime call, with
/// upstream's pattern; nothing else is touched.
LogicalResult lowerHostDescriptors(ModuleOp module) {
  SmallVector<Operation *> hostFunctions;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal())
      hostFunctions.push_back(func);
  MLIRContext *ctx = module.getContext();
  LLVMTypeConverter converter(ctx);
  converter.addConversion([](nvgpu::TensorMapDescriptorType type) -> Type {
    return LLVM::LLVMPointerType::get(type.getContext());
  });
  RewritePatternSet patterns(ctx);
  populateNVGPUToNVVMConversionPatterns(converter, patterns);
  ConversionTarget target(*ctx);
  target.addIllegalOp<nvgpu::TmaCreateDescriptorOp>();
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  return applyPartialConversion(hostFunctions, target, std::move(patterns));
}

struct SymmTMADescriptorsToPointers
    : public symm::impl::SymmTMADescriptorsToPointersBase<
          SymmTMADescriptorsToPointers> {
  void runOnOperation() override {
    auto ptr = LLVM::LLVMPointerType::get(&getContext());
    getOperation().walk([&](Operation *op) {
      if (auto func = dyn_cast<gpu::GPUFuncOp>(op); func && func.isKernel())
        convertKernel(func, ptr);
      else if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op))
        convertLaunch(launch, ptr);
    });
    if (failed(lowerHostDescriptors(getOperation())))
      signalPassFailure();
  }
};

} // namespace
