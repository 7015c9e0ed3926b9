//===- Target.h - A target: what it compiles and how ------------*- C++ -*-===//
//
// A target (NVVM, ROCDL, Host) is one folder under lib/Target/ holding a
// SymmTarget: the --target names it takes and its default chip, the device
// objects it writes, where it finds the tools that serialise them, the
// passes of its pipeline phases and its lowering decisions (SymmTargetInfo).
// getTargets() is the one table of them (lib/Target/Targets.cpp) that the
// pipeline builder, the driver and the registration read: adding a target is
// adding a folder and a row there.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_TARGET_TARGET_H
#define SYMM_TARGET_TARGET_H

#include "symm/Pipelines/PipelineOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>

namespace mlir::symm {

/// Reports an error that has no location in the input (a chip, a tool).
using TargetErrorFn = llvm::function_ref<void(const Twine &)>;

/// A device object a target writes: the name --emit takes for it and the
/// gpu-module-to-binary format it is serialised in.
struct EmitKind {
  StringRef name;
  StringRef format;
};

/// The folder gpu-module-to-binary finds a target's tools in, for one
/// compilation; a scratch folder the target made for it is removed with this
/// object.
class Toolkit {
public:
  Toolkit() = default;
  /// An existing folder (a CUDA install), or none when `path` is empty.
  static Toolkit existing(std::string path);
  /// A folder made for this compilation.
  static Toolkit scratch(std::string path);
  Toolkit(Toolkit &&other);
  Toolkit &operator=(Toolkit &&other);
  Toolkit(const Toolkit &) = delete;
  Toolkit &operator=(const Toolkit &) = delete;
  ~Toolkit();

  const std::string &getPath() const { return path; }

private:
  Toolkit(std::string path, bool remove)
      : path(std::move(path)), remove(remove) {}

  std::string path;
  bool remove = false;
};

class SymmTarget {
public:
  virtual ~SymmTarget();

  /// The name of the target's whole pipeline (`symm-to-nvvm`), and what it
  /// does, for --help.
  virtual StringRef getPipelineName() const = 0;
  virtual StringRef getPipelineDescription() const = 0;
  /// How --target names it ("sm_<N>"), and whose it is ("NVIDIA"), in help
  /// and errors.
  virtual StringRef getSpelling() const = 0;
  virtual StringRef getDisplayName() const = 0;
  /// The target in a sentence ("an NVIDIA target (sm_<N>)").
  virtual StringRef getDescription() const = 0;
  /// Whether --target=`target` names this target or one of its chips.
  virtual bool matches(StringRef target) const = 0;
  /// The chip compiled for when none is named: a fact shared with the
  /// runtime's backends (symm/abi.h).
  virtual StringRef getDefaultChip() const = 0;
  /// The chip a compilation for --target=`target` passes to the pipeline.
  virtual std::string getChip(StringRef target) const { return target.str(); }
  /// Checks `chip` against what the target's LLVM backend knows.
  virtual LogicalResult checkChip(StringRef chip,
                                  TargetErrorFn emitError) const = 0;

  /// The device objects the target writes, and their formats.
  virtual ArrayRef<EmitKind> getEmitKinds() const = 0;
  /// Looks for the tools that make binaries (format=bin); run once per
  /// compilation. Returns where they are, or "" when they are not here.
  virtual std::string findToolkit() const { return ""; }
  /// The device object a module of kernels compiles to when no --emit is
  /// given, knowing what findToolkit found.
  virtual StringRef getDefaultEmit(StringRef foundToolkit) const = 0;
  /// The format of the device code a whole program embeds.
  virtual StringRef getProgramFormat(StringRef foundToolkit) const {
    return "bin";
  }
  /// The toolkit gpu-module-to-binary takes for `format`, from what
  /// findToolkit found; none where the format needs none.
  virtual FailureOr<Toolkit> prepareToolkit(StringRef format,
                                            StringRef foundToolkit,
                                            TargetErrorFn emitError) const {
    return Toolkit();
  }

  /// Rejects, at the operation, what the target cannot lower, before the
  /// conversion would only fail to legalize it; `target` is the --target.
  virtual LogicalResult checkModule(ModuleOp module, StringRef target) const {
    return success();
  }
  /// Whether host code can read and write device memory (the CPU target's
  /// can: there, rejecting it is an option that keeps programs portable).
  virtual bool hostReachesDeviceMemory() const { return false; }
  /// Whether its kernels can report their accesses to the race detector.
  virtual bool canCheckRaces() const { return false; }
  /// Whether its kernels can reach peers through NVSHMEM (remote=).
  virtual bool canReachPeersThroughNVSHMEM() const { return false; }
  /// Checks the target's own pipeline options (the AMD linker for HSACO).
  virtual LogicalResult checkOptions(const SymmPipelineOptions &options,
                                     TargetErrorFn emitError) const {
    return success();
  }

  /// The target's phases of a pipeline (lib/Pipelines/Pipelines.cpp runs
  /// them in order). Symm and GPU operations to the target's dialects...
  virtual void
  addSymmToTargetPasses(OpPassManager &pm,
                        const SymmPipelineOptions &options) const = 0;
  /// ... its own part of lowering control flow and functions to LLVM, before
  /// func-to-llvm...
  virtual void addToLLVMPasses(OpPassManager &pm) const {}
  /// ... the target attached to every gpu.module, for gpu-module-to-binary
  /// (after host code is LLVM)...
  virtual void addAttachTargetPasses(OpPassManager &pm,
                                     const SymmPipelineOptions &options,
                                     StringRef chip) const = 0;
  /// ... and device code to the target's LLVM dialect (nested on
  /// gpu.module).
  virtual void addDeviceToLLVMPasses(OpPassManager &device,
                                     const SymmPipelineOptions &options,
                                     StringRef chip) const = 0;

  /// Adds the target's dialects and interfaces to `registry`.
  virtual void registerDialects(DialectRegistry &registry) const {}
  /// Registers the target's passes with the global registry.
  virtual void registerPasses() const = 0;
};

/// Every target, in the order of the table in lib/Target/Targets.cpp.
ArrayRef<const SymmTarget *> getTargets();

/// The target --target=`target` names, or failure after reporting it in one
/// line ("unknown target ...; expected host, sm_<N> (NVIDIA) or ...").
FailureOr<const SymmTarget *> lookupTarget(StringRef target,
                                           TargetErrorFn emitError);

/// The targets as --target takes them: "host, sm_<N> (NVIDIA) or gfx<N>
/// (AMD)".
std::string describeTargets();

/// CPU code computes bf16 in f32 and rounds with integer operations (CPUs have
/// no bf16 arithmetic, and libgcc before GCC 13 lacks __truncsfbf2): host code
/// on every target, kernels too on the CPU target.
void addBf16OnCPUPasses(OpPassManager &pm);

/// Checks that the LLVM backend for `triple` knows `chip`.
LogicalResult checkBackendChip(StringRef triple, StringRef chip,
                               TargetErrorFn emitError);

/// The ld.lld that links host kernels and HSACO: `$SYMM_LLD`, Debian's LLVM 22
/// one, or the first on PATH; empty when there is none.
std::string findLinker();

} // namespace mlir::symm

#endif // SYMM_TARGET_TARGET_H
