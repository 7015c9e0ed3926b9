//===- Pipelines.cpp - End-to-end Symm lowering pipelines -------*- C++ -*-===//

#include "symm/Pipelines/Pipelines.h"
#include "symm/Conversion/Passes.h"
#include "symm/Dialect/Symm/Transforms/Passes.h"
#include "symm/Target/Host/Passes.h"
#include "symm/abi.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Async/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"

using namespace mlir;
using namespace mlir::symm;

std::string mlir::symm::getDefaultChip(TargetKind kind) {
  switch (kind) {
  case TargetKind::NVVM:
    return SYMM_DEFAULT_NVIDIA_TARGET;
  case TargetKind::ROCDL:
    return SYMM_DEFAULT_AMD_TARGET;
  case TargetKind::Host:
    return SYMM_TARGET_HOST;
  }
  llvm_unreachable("unknown target kind");
}

std::optional<TargetKind> mlir::symm::getTargetKind(StringRef target) {
  if (target == SYMM_TARGET_HOST)
    return TargetKind::Host;
  if (target.starts_with("sm_"))
    return TargetKind::NVVM;
  if (target.starts_with("gfx"))
    return TargetKind::ROCDL;
  return std::nullopt;
}

/// The PTX version each NVIDIA architecture needs at least.
static std::string defaultFeatures(TargetKind kind, StringRef chip) {
  if (kind != TargetKind::NVVM)
    return "";
  unsigned sm = 0;
  chip.drop_front(3)
      .take_while([](char c) { return isdigit(c); })
      .getAsInteger(10, sm);
  if (sm >= 100)
    return "+ptx86";
  if (sm >= 90)
    return "+ptx80";
  return "+ptx70";
}

namespace {

/// CPUs have no bf16 arithmetic, and the x86 backend rounds f32 to bf16
/// through __truncsfbf2, which libgcc before GCC 13 lacks: CPU code computes
/// bf16 in f32 and rounds with integer operations, to nearest even as GPUs
/// do. That is host code on every target (the func.funcs outside
/// gpu.modules), and the kernels too on the CPU target.
void addBf16OnCPU(OpPassManager &pm) {
  math::MathExtendToSupportedTypesOptions extend;
  extend.targetTypeStr = "f32";
  pm.addPass(math::createMathExtendToSupportedTypes(extend));
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16"};
  emulate.targetTypeStr = "f32";
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
}

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

/// The target's symm lowering and bf16 on the CPU.
void addSymmToTargetPhase(OpPassManager &pm, TargetKind kind,
                          const SymmPipelineOptions &o) {
  // TMA descriptors are pointers from host code to kernels on every target;
  // each target lowers device code's nvgpu operations its own way.
  pm.addPass(createSymmTMADescriptorsToPointers());
  switch (kind) {
  case TargetKind::NVVM: {
    ConvertSymmToNVVMOptions nvvm;
    nvvm.checkRanks = o.checkRanks;
    pm.addPass(createConvertSymmToNVVM(nvvm));
    // Hopper's TMA, mbarrier and warpgroup-MMA ops, before the memrefs they
    // take are lowered.
    pm.addNestedPass<gpu::GPUModuleOp>(createSymmConvertNVGPUToNVVM());
    addBf16OnCPU(pm.nest<func::FuncOp>());
    break;
  }
  case TargetKind::ROCDL: {
    ConvertSymmToAMDGPUOptions amdgpu;
    amdgpu.checkRanks = o.checkRanks;
    pm.addPass(createConvertSymmToAMDGPU(amdgpu));
    pm.addNestedPass<gpu::GPUModuleOp>(createSymmConvertSubgroupMmaToAMDGPU());
    addBf16OnCPU(pm.nest<func::FuncOp>());
    break;
  }
  case TargetKind::Host: {
    ConvertSymmToHostOptions host;
    host.checkRaces = o.checkRaces;
    pm.addPass(createConvertSymmToHost(host));
    pm.addNestedPass<gpu::GPUModuleOp>(createSymmConvertSubgroupMmaToHost());
    // Kernels' Hopper operations, then the host's nvgpu.tma.create.descriptor
    // (upstream's call of mgpuTensorMapEncodeTiledMemref).
    pm.addPass(createSymmConvertNvgpuToHost());
    pm.addPass(createConvertNVGPUToNVVMPass());
    addBf16OnCPU(pm);
    break;
  }
  }
}

/// Host code (and the generic parts of device code) to the LLVM dialect, the
/// target attached to every gpu.module.
void addToLLVMPhase(OpPassManager &pm, TargetKind kind,
                    const SymmPipelineOptions &o, StringRef chip) {
  // async.execute regions (with GPU work inside) as coroutines over MLIR's
  // async runtime, before func-to-llvm converts their signatures.
  pm.addPass(createAsyncToAsyncRuntimePass());
  pm.addPass(createAsyncRuntimeRefCountingPass());
  pm.addPass(createAsyncRuntimeRefCountingOptPass());
  pm.addPass(createConvertAsyncToLLVMPass());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  if (kind == TargetKind::NVVM)
    pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  switch (kind) {
  case TargetKind::NVVM: {
    GpuNVVMAttachTargetOptions attach;
    attach.chip = chip.str();
    attach.features = o.features.empty() ? defaultFeatures(kind, chip)
                                         : o.features.getValue();
    attach.optLevel = o.optLevel;
    // NVSHMEM's functions are resolved when the runtime links the module:
    // ptxas makes a relocatable object.
    if (o.remote != "direct")
      attach.cmdOptions = "-c";
    pm.addPass(createGpuNVVMAttachTarget(attach));
    break;
  }
  case TargetKind::ROCDL: {
    GpuROCDLAttachTargetOptions attach;
    attach.chip = chip.str();
    attach.optLevel = o.optLevel;
    pm.addPass(createGpuROCDLAttachTarget(attach));
    break;
  }
  case TargetKind::Host: {
    SymmHostAttachTargetOptions attach;
    attach.optLevel = o.optLevel;
    pm.addPass(createSymmHostAttachTarget(attach));
    break;
  }
  }
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// Device code to the target's LLVM dialect (NVVM, ROCDL or plain LLVM).
void addDevicePhase(OpPassManager &pm, TargetKind kind, StringRef chip,
                    const SymmPipelineOptions &o) {
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  switch (kind) {
  case TargetKind::NVVM:
    device.addPass(createConvertGpuOpsToNVVMOps());
    break;
  case TargetKind::ROCDL: {
    ConvertGpuOpsToROCDLOpsOptions rocdl;
    rocdl.chipset = chip.str();
    device.addPass(createConvertGpuOpsToROCDLOps(rocdl));
    break;
  }
  case TargetKind::Host:
    device.addPass(createSymmConvertGpuToHost());
    if (o.checkRaces)
      device.addPass(createSymmInstrumentRaces());
    break;
  }
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

std::string chipOf(TargetKind kind, const SymmPipelineOptions &o) {
  return o.chip.empty() ? getDefaultChip(kind) : o.chip.getValue();
}

} // namespace

void mlir::symm::buildSymmLoweringPipeline(OpPassManager &pm, TargetKind kind,
                                           const SymmPipelineOptions &o) {
  std::string chip = chipOf(kind, o);
  addLinkPhase(pm, o);
  // GPUs cannot reach device memory from host code; the CPU target can, so
  // there the check is what keeps a program portable.
  if (kind != TargetKind::Host || o.checkHostAccess)
    pm.addPass(createSymmCheckHostAccess());
  SymmCheckHopperOpsOptions hopper;
  hopper.chip = chip;
  pm.addPass(createSymmCheckHopperOps(hopper));
  addHeapBasePhase(pm, o);
  addSymmToTargetPhase(pm, kind, o);
  addToLLVMPhase(pm, kind, o, chip);
  addDevicePhase(pm, kind, chip, o);
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

void mlir::symm::buildSymmPipeline(OpPassManager &pm, TargetKind kind,
                                   const SymmPipelineOptions &options,
                                   PipelinePart part) {
  if (part != PipelinePart::Serialization)
    buildSymmLoweringPipeline(pm, kind, options);
  if (part != PipelinePart::Lowering)
    buildSymmSerializationPipeline(pm, options);
}

void mlir::symm::buildSymmToNVVMPipeline(OpPassManager &pm,
                                         const SymmPipelineOptions &options) {
  buildSymmPipeline(pm, TargetKind::NVVM, options);
}

void mlir::symm::buildSymmToROCDLPipeline(OpPassManager &pm,
                                          const SymmPipelineOptions &options) {
  buildSymmPipeline(pm, TargetKind::ROCDL, options);
}

void mlir::symm::buildSymmToHostPipeline(OpPassManager &pm,
                                         const SymmPipelineOptions &options) {
  buildSymmPipeline(pm, TargetKind::Host, options);
}

std::string mlir::symm::getPipelineString(TargetKind kind,
                                          const SymmPipelineOptions &options) {
  OpPassManager pm(ModuleOp::getOperationName());
  buildSymmPipeline(pm, kind, options);
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  return text;
}

/// Rejects chips LLVM does not know, and NVIDIA chips without scoped atomics.
static LogicalResult
checkChip(TargetKind kind, StringRef chip,
          llvm::function_ref<void(const Twine &)> emitError) {
  if (kind == TargetKind::Host)
    return success();
  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  llvm::Triple triple(kind == TargetKind::NVVM ? "nvptx64-nvidia-cuda"
                                               : "amdgcn-amd-amdhsa");
  std::string message;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, message);
  if (!target) {
    emitError("this LLVM has no " + triple.str() + " backend: " + message);
    return failure();
  }
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      target->createMCSubtargetInfo(triple, "", ""));
  if (!info->isCPUStringValid(chip)) {
    emitError("unknown chip '" + chip + "' for " + triple.str());
    return failure();
  }
  unsigned sm = 0;
  if (kind == TargetKind::NVVM && !chip.drop_front(3).getAsInteger(10, sm) &&
      sm < 70) {
    emitError("'" + chip +
              "' has no scoped atomics (.acquire/.release/.sys); Symm needs "
              "sm_70 or newer");
    return failure();
  }
  return success();
}

LogicalResult mlir::symm::validateSymmPipelineOptions(
    TargetKind kind, const SymmPipelineOptions &o,
    llvm::function_ref<void(const Twine &)> emitError) {
  std::string chip = o.chip.empty() ? getDefaultChip(kind) : o.chip.getValue();
  if (failed(checkChip(kind, chip, emitError)))
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
  if (o.checkRaces && kind != TargetKind::Host) {
    emitError("check-races applies to the CPU target (--target=host), not '" +
              chip + "'");
    return failure();
  }
  if (o.kernelContext != "global" && o.kernelContext != "argument") {
    emitError("kernel-context must be 'global' or 'argument', got '" +
              o.kernelContext + "'");
    return failure();
  }
  if (!llvm::is_contained({"direct", "nvshmem", "auto"}, o.remote)) {
    emitError("remote must be 'direct', 'nvshmem' or 'auto', got '" + o.remote +
              "'");
    return failure();
  }
  if (o.remote != "direct" && kind != TargetKind::NVVM) {
    emitError("remote=" + o.remote +
              " reaches peers through NVSHMEM, which needs an NVIDIA target "
              "(sm_<N>), not " +
              chip);
    return failure();
  }
  // gpu-module-to-binary links HSACO with <toolkit>/llvm/bin/ld.lld and
  // reports a missing one only after lowering, with the module attached.
  if (kind == TargetKind::ROCDL && o.format == "bin") {
    if (o.toolkit.empty()) {
      emitError("format=bin for AMD GPUs links with <toolkit>/llvm/bin/ld.lld: "
                "pass toolkit=<folder> (a ROCm install, or a folder whose "
                "llvm/bin/ld.lld is the system's ld.lld), or use format=isa");
      return failure();
    }
    SmallString<128> lld(o.toolkit.getValue());
    llvm::sys::path::append(lld, "llvm", "bin", "ld.lld");
    if (!llvm::sys::fs::can_execute(lld)) {
      emitError("toolkit=" + o.toolkit + " has no " + lld +
                "; point toolkit= at a folder with llvm/bin/ld.lld");
      return failure();
    }
  }
  return success();
}

void mlir::symm::registerSymmPipelines() {
  using Builder = void (*)(OpPassManager &, const SymmPipelineOptions &);
  // PassPipelineRegistration's builder cannot fail; a bad chip or format must
  // be a one-line error, so the options are validated here first.
  auto reg = [](const char *name, const char *desc, TargetKind kind,
                Builder build) {
    registerPassPipeline(
        name, desc,
        [name, kind,
         build](OpPassManager &pm, StringRef text,
                function_ref<LogicalResult(const Twine &)> errorHandler) {
          SymmPipelineOptions options;
          if (failed(options.parseFromString(text)))
            return failure();
          std::string message;
          if (failed(validateSymmPipelineOptions(
                  kind, options, [&](const Twine &m) { message = m.str(); })))
            return errorHandler(Twine(name) + ": " + message);
          build(pm, options);
          return success();
        },
        [](function_ref<void(const mlir::detail::PassOptions &)> handler) {
          handler(SymmPipelineOptions());
        });
  };
  reg("symm-to-nvvm",
      "Lower a symm program for NVIDIA GPUs: PTX/cubin kernels, LLVM host code",
      TargetKind::NVVM, buildSymmToNVVMPipeline);
  reg("symm-to-rocdl",
      "Lower a symm program for AMD GPUs: HSACO kernels, LLVM host code",
      TargetKind::ROCDL, buildSymmToROCDLPipeline);
  reg("symm-to-host",
      "Lower a symm program for the CPU target: shared-object kernels, LLVM "
      "host code",
      TargetKind::Host, buildSymmToHostPipeline);
}
