//===- ROCDLTarget.cpp - The AMD target -------------------------*- C++ -*-===//
//
// gfx<N> chips, AMDGPU assembly, and HSACO linked with the system's ld.lld
// (no ROCm install); the ROCDL lowering phases.
//
//===----------------------------------------------------------------------===//

#include "symm/Target/ROCDL/ROCDLTarget.h"
#include "symm/Conversion/Passes.h"
#include "symm/Target/ROCDL/Passes.h"
#include "symm/abi.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::symm;

namespace {

/// The ROCDL serialiser runs <toolkit>/llvm/bin/ld.lld; without ROCm, a
/// private toolkit folder points at the system's ld.lld (`lld`).
FailureOr<Toolkit> makeToolkit(StringRef lld, TargetErrorFn emitError) {
  if (lld.empty()) {
    emitError("HSACO needs ld.lld: install lld-22 or set SYMM_LLD");
    return failure();
  }
  if (!llvm::sys::fs::can_execute(lld)) {
    emitError("HSACO needs ld.lld, and '" + lld +
              "' (SYMM_LLD) is not an executable");
    return failure();
  }
  SmallString<128> dir;
  if (llvm::sys::fs::createUniqueDirectory("symm-rocdl", dir)) {
    emitError("cannot create a temporary folder");
    return failure();
  }
  Toolkit toolkit = Toolkit::scratch(dir.str().str());
  SmallString<128> bin(dir);
  llvm::sys::path::append(bin, "llvm", "bin");
  llvm::sys::fs::create_directories(bin);
  llvm::sys::path::append(bin, "ld.lld");
  if (llvm::sys::fs::create_link(lld, bin)) {
    emitError("cannot link " + lld + " into " + dir);
    return failure();
  }
  return toolkit;
}

class ROCDLTarget final : public SymmTarget {
public:
  StringRef getPipelineName() const override { return "symm-to-rocdl"; }
  StringRef getPipelineDescription() const override {
    return "Lower a symm program for AMD GPUs: HSACO kernels, LLVM host code";
  }
  StringRef getSpelling() const override { return "gfx<N>"; }
  StringRef getDisplayName() const override { return "AMD"; }
  StringRef getDescription() const override { return "an AMD target (gfx<N>)"; }
  bool matches(StringRef target) const override {
    return target.starts_with("gfx");
  }
  StringRef getDefaultChip() const override { return SYMM_DEFAULT_AMD_TARGET; }
  LogicalResult checkChip(StringRef chip,
                          TargetErrorFn emitError) const override {
    return checkBackendChip("amdgcn-amd-amdhsa", chip, emitError);
  }

  ArrayRef<EmitKind> getEmitKinds() const override {
    static const EmitKind kinds[] = {{"isa", "isa"}, {"hsaco", "bin"}};
    return kinds;
  }
  std::string findToolkit() const override { return findLinker(); }
  StringRef getDefaultEmit(StringRef foundToolkit) const override {
    return "hsaco";
  }
  FailureOr<Toolkit> prepareToolkit(StringRef format, StringRef foundToolkit,
                                    TargetErrorFn emitError) const override {
    if (format != "bin")
      return Toolkit();
    return makeToolkit(foundToolkit, emitError);
  }

  LogicalResult checkModule(ModuleOp module, StringRef target) const override {
    WalkResult walk = module.walk([&](gpu::PrintfOp op) {
      op.emitError() << "'gpu.printf' has no lowering for --target=" << target
                     << ": printf on AMD GPUs needs the ROCm device libraries' "
                        "hostcall support, which Symm does not link; print "
                        "from host code, or run the kernel on the host or "
                        "NVIDIA targets";
      return WalkResult::interrupt();
    });
    return failure(walk.wasInterrupted());
  }
  LogicalResult checkOptions(const SymmPipelineOptions &o,
                             TargetErrorFn emitError) const override {
    // gpu-module-to-binary links HSACO with <toolkit>/llvm/bin/ld.lld and
    // reports a missing one only after lowering, with the module attached.
    if (o.format != "bin")
      return success();
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
    return success();
  }

  void addSymmToTargetPasses(OpPassManager &pm,
                             const SymmPipelineOptions &o) const override {
    ConvertSymmToAMDGPUOptions amdgpu;
    amdgpu.checkRanks = o.checkRanks;
    pm.addPass(createConvertSymmToAMDGPU(amdgpu));
    pm.addNestedPass<gpu::GPUModuleOp>(createSymmConvertSubgroupMmaToAMDGPU());
    addBf16OnCPUPasses(pm.nest<func::FuncOp>());
  }
  void addAttachTargetPasses(OpPassManager &pm, const SymmPipelineOptions &o,
                             StringRef chip) const override {
    GpuROCDLAttachTargetOptions attach;
    attach.chip = chip.str();
    attach.optLevel = o.optLevel;
    pm.addPass(createGpuROCDLAttachTarget(attach));
  }
  void addDeviceToLLVMPasses(OpPassManager &device,
                             const SymmPipelineOptions &o,
                             StringRef chip) const override {
    ConvertGpuOpsToROCDLOpsOptions rocdl;
    rocdl.chipset = chip.str();
    device.addPass(createConvertGpuOpsToROCDLOps(rocdl));
  }

  void registerPasses() const override { registerSymmROCDLTargetPasses(); }
};

} // namespace

const SymmTarget &mlir::symm::getROCDLTarget() {
  static const ROCDLTarget target;
  return target;
}
