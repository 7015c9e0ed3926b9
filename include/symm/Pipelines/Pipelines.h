//===- Pipelines.h - End-to-end Symm lowering pipelines ---------*- C++ -*-===//
//
// One pipeline per target, from symm + gpu + host IR to a module whose kernels
// are gpu.binary objects and whose host code is LLVM dialect: the phases every
// target shares, around each target's own (symm/Target/Target.h). symm-opt
// exposes them as `symm-to-<target>` (`symm-to-nvvm`, `symm-to-rocdl`,
// `symm-to-host`); symm-compile runs them.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_PIPELINES_PIPELINES_H
#define SYMM_PIPELINES_PIPELINES_H

#include "symm/Pipelines/PipelineOptions.h"
#include "symm/Target/Target.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>

namespace mlir::symm {

/// The phases of a target's pipeline, for callers that look at the module in
/// between (the driver describes the lowered kernels there): symm + gpu +
/// host IR to LLVM dialect, device code as the target's LLVM dialect...
void buildSymmLoweringPipeline(OpPassManager &pm, const SymmTarget &target,
                               const SymmPipelineOptions &options);
/// ... then gpu.modules serialised into gpu.binary objects.
void buildSymmSerializationPipeline(OpPassManager &pm,
                                    const SymmPipelineOptions &options);

/// Adds the whole pipeline of `target` to `pm` (anchored on builtin.module).
/// `options` must have passed validateSymmPipelineOptions.
void buildSymmPipeline(OpPassManager &pm, const SymmTarget &target,
                       const SymmPipelineOptions &options);

/// The textual form of the pipeline of `target`, as the pass manager prints
/// it: what symm-compile runs and what `symm-opt --pass-pipeline` accepts.
std::string getPipelineString(const SymmTarget &target,
                              const SymmPipelineOptions &options);

/// Checks `options` for `target` before anything runs: a chip the target's
/// LLVM backend knows (NVIDIA: sm_70 or newer), an optimisation level of 0 to
/// 3, a known format, kernel context and remote path, checks and remote paths
/// the target has, and the target's own options (for AMD binaries a toolkit
/// with llvm/bin/ld.lld). Reports the first problem in one line to
/// `emitError`.
LogicalResult
validateSymmPipelineOptions(const SymmTarget &target,
                            const SymmPipelineOptions &options,
                            llvm::function_ref<void(const Twine &)> emitError);

/// Registers `symm-to-<target>` for every target.
void registerSymmPipelines();

} // namespace mlir::symm

#endif // SYMM_PIPELINES_PIPELINES_H
