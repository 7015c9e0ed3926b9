//===- ConvertNVGPUToNVVM.cpp - Upstream's nvgpu lowering where needed ----===//
//
// Upstream's convert-nvgpu-to-nvvm marks scf operations with types it cannot
// convert illegal, which fails on loops that carry WMMA fragments; only the
// gpu.modules that use nvgpu operations go through it.
//
//===----------------------------------------------------------------------===//

#include "symm/Conversion/Passes.h"

#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::symm {
#define GEN_PASS_DEF_SYMMCONVERTNVGPUTONVVM
#include "symm/Conversion/Passes.h.inc"
} // namespace mlir::symm

using namespace mlir;
using namespace mlir::symm;

namespace {

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
    OpPassManager pm(gpu::GPUModuleOp::getOperationName());
    pm.addPass(createConvertNVGPUToNVVMPass());
    if (failed(runPipeline(pm, getOperation())))
      signalPassFailure();
  }
};

} // namespace
