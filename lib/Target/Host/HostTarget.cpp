//===- HostTarget.cpp - The CPU target --------------------------*- C++ -*-===//
//
// Kernels as host shared objects that the host backend runs on CPU ranks
// (docs/CPUTarget.md); the CPU lowering phases.
//
//===----------------------------------------------------------------------===//

#include "symm/Target/Host/HostTarget.h"
#include "symm/Conversion/Passes.h"
#include "symm/Target/Host/Passes.h"
#include "symm/abi.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::symm;

namespace {

class HostTarget final : public SymmTarget {
public:
  StringRef getPipelineName() const override { return "symm-to-host"; }
  StringRef getPipelineDescription() const override {
    return "Lower a symm program for the CPU target: shared-object kernels, "
           "LLVM host code";
  }
  StringRef getSpelling() const override { return SYMM_TARGET_HOST; }
  StringRef getDisplayName() const override { return SYMM_TARGET_HOST; }
  StringRef getDescription() const override {
    return "the CPU target (--target=" SYMM_TARGET_HOST ")";
  }
  bool hostReachesDeviceMemory() const override { return true; }
  bool canCheckRaces() const override { return true; }
  bool matches(StringRef target) const override {
    return target == SYMM_TARGET_HOST;
  }
  StringRef getDefaultChip() const override { return SYMM_TARGET_HOST; }
  /// The CPU is the one this compiler runs on: no chip to name.
  std::string getChip(StringRef target) const override { return ""; }
  LogicalResult checkChip(StringRef chip,
                          TargetErrorFn emitError) const override {
    return success();
  }

  ArrayRef<EmitKind> getEmitKinds() const override {
    static const EmitKind kinds[] = {{"so", "bin"}};
    return kinds;
  }
  StringRef getDefaultEmit(StringRef foundToolkit) const override {
    return "so";
  }

  void addSymmToTargetPasses(OpPassManager &pm,
                             const SymmPipelineOptions &o) const override {
    ConvertSymmToHostOptions host;
    host.checkRaces = o.checkRaces;
    pm.addPass(createConvertSymmToHost(host));
    pm.addNestedPass<gpu::GPUModuleOp>(createSymmConvertSubgroupMmaToHost());
    // Kernels' Hopper operations, then the host's nvgpu.tma.create.descriptor
    // (upstream's call of mgpuTensorMapEncodeTiledMemref).
    pm.addPass(createSymmConvertNvgpuToHost());
    pm.addPass(createConvertNVGPUToNVVMPass());
    addBf16OnCPUPasses(pm);
  }
  void addAttachTargetPasses(OpPassManager &pm, const SymmPipelineOptions &o,
                             StringRef chip) const override {
    SymmHostAttachTargetOptions attach;
    attach.optLevel = o.optLevel;
    pm.addPass(createSymmHostAttachTarget(attach));
  }
  void addDeviceToLLVMPasses(OpPassManager &device,
                             const SymmPipelineOptions &o,
                             StringRef chip) const override {
    device.addPass(createSymmConvertGpuToHost());
    if (o.checkRaces)
      device.addPass(createSymmInstrumentRaces());
  }

  void registerDialects(DialectRegistry &registry) const override {
    registerHostTargetInterfaceExternalModels(registry);
  }
  void registerPasses() const override { registerSymmHostTargetPasses(); }
};

} // namespace

const SymmTarget &mlir::symm::getHostTarget() {
  static const HostTarget target;
  return target;
}
