//===- NVVMTarget.cpp - The NVIDIA target -----------------------*- C++ -*-===//
//
// sm_<N> chips from sm_70 (the first with scoped atomics), PTX, and cubin
// with ptxas from a CUDA toolkit; the NVVM lowering phases.
//
//===----------------------------------------------------------------------===//

#include "symm/Target/NVVM/NVVMTarget.h"
#include "symm/Conversion/Passes.h"
#include "symm/Target/NVVM/Passes.h"
#include "symm/abi.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

using namespace mlir;
using namespace mlir::symm;

namespace {

/// The CUDA toolkit folder holding bin/ptxas, or "".
std::string findCudaToolkit() {
  for (const char *var : {"SYMM_CUDA_PATH", "CUDA_HOME", "CUDA_PATH"})
    if (const char *path = getenv(var);
        path && llvm::sys::fs::can_execute(Twine(path) + "/bin/ptxas"))
      return path;
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda";
  if (auto ptxas = llvm::sys::findProgramByName("ptxas"))
    return llvm::sys::path::parent_path(llvm::sys::path::parent_path(*ptxas))
        .str();
  return "";
}

/// N of sm_<N> (90 for sm_90a), 0 when there is none.
unsigned smVersion(StringRef chip) {
  unsigned sm = 0;
  if (chip.consume_front("sm_") &&
      chip.take_while([](char c) { return isdigit(c); }).getAsInteger(10, sm))
    return 0;
  return sm;
}

/// The PTX version each NVIDIA architecture needs at least.
std::string defaultFeatures(StringRef chip) {
  unsigned sm = smVersion(chip);
  if (sm >= 100)
    return "+ptx86";
  if (sm >= 90)
    return "+ptx80";
  return "+ptx70";
}

class NVVMTarget final : public SymmTarget {
public:
  StringRef getPipelineName() const override { return "symm-to-nvvm"; }
  StringRef getPipelineDescription() const override {
    return "Lower a symm program for NVIDIA GPUs: PTX/cubin kernels, LLVM "
           "host code";
  }
  StringRef getSpelling() const override { return "sm_<N>"; }
  StringRef getDisplayName() const override { return "NVIDIA"; }
  StringRef getDescription() const override {
    return "an NVIDIA target (sm_<N>)";
  }
  bool canReachPeersThroughNVSHMEM() const override { return true; }
  bool matches(StringRef target) const override {
    return target.starts_with("sm_");
  }
  StringRef getDefaultChip() const override {
    return SYMM_DEFAULT_NVIDIA_TARGET;
  }

  LogicalResult checkChip(StringRef chip,
                          TargetErrorFn emitError) const override {
    if (failed(checkBackendChip("nvptx64-nvidia-cuda", chip, emitError)))
      return failure();
    unsigned sm = smVersion(chip);
    if (sm && sm < 70) {
      emitError("'" + chip +
                "' has no scoped atomics (.acquire/.release/.sys); Symm "
                "needs sm_70 or newer");
      return failure();
    }
    return success();
  }

  ArrayRef<EmitKind> getEmitKinds() const override {
    static const EmitKind kinds[] = {{"ptx", "isa"}, {"cubin", "bin"}};
    return kinds;
  }
  std::string findToolkit() const override { return findCudaToolkit(); }
  StringRef getDefaultEmit(StringRef foundToolkit) const override {
    return foundToolkit.empty() ? "ptx" : "cubin";
  }
  StringRef getProgramFormat(StringRef foundToolkit) const override {
    // Executables embed cubin when ptxas is here, PTX (JIT-compiled by the
    // driver) otherwise.
    return foundToolkit.empty() ? "isa" : "bin";
  }
  FailureOr<Toolkit> prepareToolkit(StringRef format, StringRef foundToolkit,
                                    TargetErrorFn emitError) const override {
    if (format != "bin")
      return Toolkit();
    if (foundToolkit.empty()) {
      emitError("cubin needs ptxas from the CUDA toolkit; set "
                "SYMM_CUDA_PATH or use --emit=ptx");
      return failure();
    }
    return Toolkit::existing(foundToolkit.str());
  }

  void addSymmToTargetPasses(OpPassManager &pm,
                             const SymmPipelineOptions &o) const override {
    ConvertSymmToNVVMOptions nvvm;
    nvvm.checkRanks = o.checkRanks;
    nvvm.earlyLaunch =
        smVersion(o.chip.empty() ? getDefaultChip() : StringRef(o.chip)) >= 90;
    pm.addPass(createConvertSymmToNVVM(nvvm));
    // Hopper's TMA, mbarrier and warpgroup-MMA ops, before the memrefs they
    // take are lowered.
    pm.addNestedPass<gpu::GPUModuleOp>(createSymmConvertNVGPUToNVVM());
    addBf16OnCPUPasses(pm.nest<func::FuncOp>());
  }
  void addToLLVMPasses(OpPassManager &pm) const override {
    // NVVM operations that are inline PTX, here rather than with the other
    // NVVM passes: the PTX written depends on what is lowered before it
    // (earlier, some immediates become registers).
    pm.addPass(createConvertNVVMToLLVMPass());
  }
  void addAttachTargetPasses(OpPassManager &pm, const SymmPipelineOptions &o,
                             StringRef chip) const override {
    GpuNVVMAttachTargetOptions attach;
    attach.chip = chip.str();
    attach.features =
        o.features.empty() ? defaultFeatures(chip) : o.features.getValue();
    attach.optLevel = o.optLevel;
    // NVSHMEM's functions are resolved when the runtime links the module:
    // ptxas makes a relocatable object.
    if (o.remote != "direct")
      attach.cmdOptions = "-c";
    pm.addPass(createGpuNVVMAttachTarget(attach));
  }
  void addDeviceToLLVMPasses(OpPassManager &device,
                             const SymmPipelineOptions &o,
                             StringRef chip) const override {
    device.addPass(createConvertGpuOpsToNVVMOps());
  }

  void registerPasses() const override { registerSymmNVVMTargetPasses(); }
};

} // namespace

const SymmTarget &mlir::symm::getNVVMTarget() {
  static const NVVMTarget target;
  return target;
}
