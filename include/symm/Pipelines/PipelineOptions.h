//===- PipelineOptions.h - Options of Symm's pipelines ----------*- C++ -*-===//
//
// The options of `symm-to-<target>`, which the pipeline builder and each
// target's phases (symm/Target/Target.h) read; the driver sets them from its
// compile options.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_PIPELINES_PIPELINEOPTIONS_H
#define SYMM_PIPELINES_PIPELINEOPTIONS_H

#include "symm/manifest.h"

#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir::symm {

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
      llvm::cl::desc("'" SYMM_MANIFEST_CONTEXT_GLOBAL
                     "' (default) or '" SYMM_MANIFEST_CONTEXT_ARGUMENT "'"),
      llvm::cl::init(SYMM_MANIFEST_CONTEXT_GLOBAL)};
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
  PassOptions::Option<bool> trace{
      *this, "trace",
      llvm::cl::desc("Kernels record their events in the trace buffer "
                     "(docs/Tracing.md)"),
      llvm::cl::init(false)};
  PassOptions::Option<int> optLevel{*this, "O",
                                    llvm::cl::desc("Device optimisation level"),
                                    llvm::cl::init(2)};
};

} // namespace mlir::symm

#endif // SYMM_PIPELINES_PIPELINEOPTIONS_H
