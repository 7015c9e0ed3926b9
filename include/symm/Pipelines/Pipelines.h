//===- Pipelines.h - End-to-end Symm lowering pipelines ---------*- C++ -*-===//
//
// One pipeline per target, from symm + gpu + host IR to a module whose kernels
// are gpu.binary objects and whose host code is LLVM dialect. symm-opt exposes
// them as `symm-to-nvvm`, `symm-to-rocdl` and `symm-to-host`; symm-compile
// runs them.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_PIPELINES_PIPELINES_H
#define SYMM_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>

namespace mlir::symm {

enum class TargetKind { NVVM, ROCDL, Host };

struct SymmPipelineOptions : public PassPipelineOptions<SymmPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("GPU to compile for (sm_90, gfx942, ...); ignored for "
                     "the host"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> features{
      *this, "features", llvm::cl::desc("Target features (e.g. +ptx80)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("gpu-module-to-binary format: llvm (LLVM bitcode), "
                     "isa (PTX / AMDGPU assembly), bin (cubin / HSACO / host "
                     "shared object) or fatbin"),
      llvm::cl::init("bin")};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("Toolkit path for gpu-module-to-binary (CUDA for ptxas; "
                     "a folder with llvm/bin/ld.lld for ROCDL)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> kernelContext{
      *this, "kernel-context",
      llvm::cl::desc("'global' (default) or 'argument'"),
      llvm::cl::init("global")};
  PassOptions::Option<bool> checkRanks{
      *this, "check-ranks",
      llvm::cl::desc("Check every peer rank against the world size on GPUs "
                     "(the CPU target always does)"),
      llvm::cl::init(false)};
  PassOptions::ListOption<std::string> library{
      *this, "library",
      llvm::cl::desc("Device libraries (.mlir files or folders of them) "
                     "searched after the one installed with Symm")};
  PassOptions::Option<std::string> remote{
      *this, "remote",
      llvm::cl::desc("How kernels reach peers on NVIDIA GPUs: 'direct' "
                     "(loads and stores through the mapped heaps), "
                     "'nvshmem' (NVSHMEM's device API for every peer) or "
                     "'auto' (NVSHMEM where a peer's heap is not mapped)"),
      llvm::cl::init("direct")};
  PassOptions::Option<bool> checkHostAccess{
      *this, "check-host-access",
      llvm::cl::desc("Reject host code that reads or writes #symm.heap or "
                     "gpu.alloc memory on the CPU target too (GPU targets "
                     "always do)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> checkRaces{
      *this, "check-races",
      llvm::cl::desc("CPU target: report every access of the kernels to the "
                     "runtime's race detector (SYMM_HOST_CHECK_RACES=1)"),
      llvm::cl::init(false)};
  PassOptions::Option<int> optLevel{*this, "O",
                                    llvm::cl::desc("Device optimisation level"),
                                    llvm::cl::init(2)};
};

/// Which passes of a pipeline: all of them, the lowering up to the point where
/// device code is LLVM dialect, or the serialisation that follows.
enum class PipelinePart { All, Lowering, Serialization };

/// The phases of every target's pipeline, for callers that look at the module
/// in between (the driver describes the lowered kernels there): symm + gpu +
/// host IR to LLVM dialect, device code as the target's LLVM dialect...
void buildSymmLoweringPipeline(OpPassManager &pm, TargetKind kind,
                               const SymmPipelineOptions &options);
/// ... then gpu.modules serialised into gpu.binary objects.
void buildSymmSerializationPipeline(OpPassManager &pm,
                                    const SymmPipelineOptions &options);

/// Adds the pipeline for `kind`, or a part of it, to `pm` (anchored on
/// builtin.module). `options` must have passed validateSymmPipelineOptions.
void buildSymmPipeline(OpPassManager &pm, TargetKind kind,
                       const SymmPipelineOptions &options,
                       PipelinePart part = PipelinePart::All);

/// The whole pipeline of one target: `symm-to-nvvm`, `symm-to-rocdl`,
/// `symm-to-host`.
void buildSymmToNVVMPipeline(OpPassManager &pm,
                             const SymmPipelineOptions &options);
void buildSymmToROCDLPipeline(OpPassManager &pm,
                              const SymmPipelineOptions &options);
void buildSymmToHostPipeline(OpPassManager &pm,
                             const SymmPipelineOptions &options);

/// The textual form of the pipeline for `kind`, as the pass manager prints
/// it: what symm-compile runs and what `symm-opt --pass-pipeline` accepts.
std::string getPipelineString(TargetKind kind,
                              const SymmPipelineOptions &options);

/// Checks `options` for `kind` before anything runs: a chip the target's LLVM
/// backend knows (NVIDIA: sm_70 or newer), an optimisation level of 0 to 3, a
/// known format, kernel context and remote path (NVSHMEM's on NVIDIA only),
/// and for AMD binaries a toolkit with
/// llvm/bin/ld.lld. Reports the first problem in one line to `emitError`.
LogicalResult
validateSymmPipelineOptions(TargetKind kind, const SymmPipelineOptions &options,
                            llvm::function_ref<void(const Twine &)> emitError);

/// Registers `symm-to-nvvm`, `symm-to-rocdl` and `symm-to-host`.
void registerSymmPipelines();

/// The default chip of a target kind, and the kind of a `--target` name
/// (sm_*, gfx*, host).
std::string getDefaultChip(TargetKind kind);
std::optional<TargetKind> getTargetKind(StringRef target);

} // namespace mlir::symm

#endif // SYMM_PIPELINES_PIPELINES_H
