//===- Pipelines.cpp - End-to-end Symm lowering pipelines -------*- C++ -*-===//
//
// The phases every target shares, with each target's own in between; which
// targets there are and what their phases hold is the table of
// lib/Target/Targets.cpp.
//
//===----------------------------------------------------------------------===//

#include "symm/Pipelines/Pipelines.h"
#include "symm/Conversion/Passes.h"
#include "symm/Dialect/Symm/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Async/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::symm;

namespace {

/// The device library's functions that gpu.modules call, copied in and
/// inlined: library code takes values (warpgroup accumulators, mbarrier
/// groups, TMA descriptors) that only lower inside one function, and is
/// optimised and checked like the user's own code from here on.
void addLinkPhase(OpPassManager &pm, const SymmPipelineOptions &o) {
  SymmLinkLibraryOptions link;
  link.paths.assign(o.library.begin(), o.library.end());
  pm.addPass(createSymmLinkLibrary(link));
  pm.addNestedPass<gpu::GPUModuleOp>(createSymmInlineDeviceCalls());
}

/// Kernel outlining and the target-independent symm lowering.
void addHeapBasePhase(OpPassManager &pm, const SymmPipelineOptions &o) {
  pm.addPass(createGpuKernelOutliningPass());
  SymmTraceOptions trace;
  trace.record = o.trace;
  pm.addPass(createSymmTrace(trace));
  // Race reports name the source operation of each access.
  if (o.checkRaces)
    pm.addPass(createSymmNameMemoryOps());
  SymmTranslateToHeapBaseOptions heapBase;
  heapBase.kernelContext = o.kernelContext;
  pm.addPass(createSymmTranslateToHeapBase(heapBase));
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (o.remote != "direct") {
    SymmRemoteToNVSHMEMOptions nvshmem;
    nvshmem.mode = o.remote;
    pm.addPass(createSymmRemoteToNVSHMEM(nvshmem));
  }
}

/// The target's symm lowering (and its GPU operations, and bf16 on the CPU).
void addSymmToTargetPhase(OpPassManager &pm, const SymmTarget &target,
                          const SymmPipelineOptions &o) {
  // TMA descriptors are pointers from host code to kernels on every target;
  // each target lowers device code's nvgpu operations its own way.
  pm.addPass(createSymmTMADescriptorsToPointers());
  target.addSymmToTargetPasses(pm, o);
}

/// Host code (and the generic parts of device code) to the LLVM dialect, the
/// target attached to every gpu.module.
void addToLLVMPhase(OpPassManager &pm, const SymmTarget &target,
                    const SymmPipelineOptions &o, StringRef chip) {
  // async.execute regions (with GPU work inside) as coroutines over MLIR's
  // async runtime, before func-to-llvm converts their signatures.
  pm.addPass(createAsyncToAsyncRuntimePass());
  pm.addPass(createAsyncRuntimeRefCountingPass());
  pm.addPass(createAsyncRuntimeRefCountingOptPass());
  pm.addPass(createConvertAsyncToLLVMPass());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  target.addToLLVMPasses(pm);
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  target.addAttachTargetPasses(pm, o, chip);
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// Device code to the target's LLVM dialect (NVVM, ROCDL or plain LLVM).
void addDevicePhase(OpPassManager &pm, const SymmTarget &target,
                    const SymmPipelineOptions &o, StringRef chip) {
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  target.addDeviceToLLVMPasses(device, o, chip);
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());
  device.addPass(createReconcileUnrealizedCastsPass());
}

/// Kernel launches to runtime calls.
void addLaunchPhase(OpPassManager &pm) {
  pm.addPass(createSymmGpuMemoryOpsToAsync());
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

std::string chipOf(const SymmTarget &target, const SymmPipelineOptions &o) {
  return o.chip.empty() ? target.getDefaultChip().str() : o.chip.getValue();
}

/// The targets that have `feature`, as errors name them ("the CPU target
/// (--target=host)").
std::string describeTargetsWith(bool (SymmTarget::*feature)() const) {
  std::string text;
  for (const SymmTarget *target : getTargets())
    if ((target->*feature)())
      text += (text.empty() ? "" : " or ") + target->getDescription().str();
  return text;
}

} // namespace

void mlir::symm::buildSymmLoweringPipeline(OpPassManager &pm,
                                           const SymmTarget &target,
                                           const SymmPipelineOptions &o) {
  std::string chip = chipOf(target, o);
  addLinkPhase(pm, o);
  // GPUs cannot reach device memory from host code; the CPU target can, so
  // there the check is what keeps a program portable.
  if (!target.hostReachesDeviceMemory() || o.checkHostAccess)
    pm.addPass(createSymmCheckHostAccess());
  SymmCheckHopperOpsOptions hopper;
  hopper.chip = chip;
  pm.addPass(createSymmCheckHopperOps(hopper));
  addHeapBasePhase(pm, o);
  addSymmToTargetPhase(pm, target, o);
  addToLLVMPhase(pm, target, o, chip);
  addDevicePhase(pm, target, o, chip);
  addLaunchPhase(pm);
}

void mlir::symm::buildSymmSerializationPipeline(OpPassManager &pm,
                                                const SymmPipelineOptions &o) {
  GpuModuleToBinaryPassOptions toBinary;
  toBinary.compilationTarget = o.format;
  toBinary.toolkitPath = o.toolkit;
  pm.addPass(createGpuModuleToBinaryPass(toBinary));
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::symm::buildSymmPipeline(OpPassManager &pm, const SymmTarget &target,
                                   const SymmPipelineOptions &options) {
  buildSymmLoweringPipeline(pm, target, options);
  buildSymmSerializationPipeline(pm, options);
}

std::string mlir::symm::getPipelineString(const SymmTarget &target,
                                          const SymmPipelineOptions &options) {
  OpPassManager pm(ModuleOp::getOperationName());
  buildSymmPipeline(pm, target, options);
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  return text;
}

LogicalResult mlir::symm::validateSymmPipelineOptions(
    const SymmTarget &target, const SymmPipelineOptions &o,
    llvm::function_ref<void(const Twine &)> emitError) {
  if (failed(target.checkChip(chipOf(target, o), emitError)))
    return failure();
  if (o.optLevel < 0 || o.optLevel > 3) {
    emitError("optimisation level " + Twine(o.optLevel) +
              " is out of range; use 0, 1, 2 or 3");
    return failure();
  }
  if (!llvm::is_contained({"llvm", "isa", "bin", "fatbin"}, o.format)) {
    emitError("unknown format '" + o.format +
              "'; use llvm, isa, bin or fatbin");
    return failure();
  }
  std::string chip = chipOf(target, o);
  if (o.checkRaces && !target.canCheckRaces()) {
    emitError("check-races applies to " +
              describeTargetsWith(&SymmTarget::canCheckRaces) + ", not '" +
              chip + "'");
    return failure();
  }
  if (failed(checkKernelContext(o.kernelContext, emitError)))
    return failure();
  if (!llvm::is_contained({"direct", "nvshmem", "auto"}, o.remote)) {
    emitError("remote must be 'direct', 'nvshmem' or 'auto', got '" + o.remote +
              "'");
    return failure();
  }
  if (o.remote != "direct" && !target.canReachPeersThroughNVSHMEM()) {
    emitError("remote=" + o.remote + " reaches peers through NVSHMEM, which " +
              "needs " +
              describeTargetsWith(&SymmTarget::canReachPeersThroughNVSHMEM) +
              ", not " + chip);
    return failure();
  }
  return target.checkOptions(o, emitError);
}

void mlir::symm::registerSymmPipelines() {
  // PassPipelineRegistration's builder cannot fail; a bad chip or format must
  // be a one-line error, so the options are validated here first.
  for (const SymmTarget *target : getTargets()) {
    registerPassPipeline(
        target->getPipelineName(), target->getPipelineDescription(),
        [target](OpPassManager &pm, StringRef text,
                 function_ref<LogicalResult(const Twine &)> errorHandler) {
          SymmPipelineOptions options;
          if (failed(options.parseFromString(text)))
            return failure();
          std::string message;
          if (failed(validateSymmPipelineOptions(
                  *target, options,
                  [&](const Twine &m) { message = m.str(); })))
            return errorHandler(target->getPipelineName() + ": " + message);
          buildSymmPipeline(pm, *target, options);
          return success();
        },
        [](function_ref<void(const mlir::detail::PassOptions &)> handler) {
          handler(SymmPipelineOptions());
        });
  }
}
