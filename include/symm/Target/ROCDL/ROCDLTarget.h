//===- ROCDLTarget.h - The AMD target ---------------------------*- C++ -*-===//

#ifndef SYMM_TARGET_ROCDL_ROCDLTARGET_H
#define SYMM_TARGET_ROCDL_ROCDLTARGET_H

#include "symm/Conversion/TargetInfo.h"
#include "symm/Target/Target.h"

namespace mlir::symm {

/// AMD's lowering decisions: AMDGPU syncscopes, the context in the constant
/// address space, s_sleep.
SymmTargetInfo getAMDGPUTargetInfo(const GPUTargetOptions &options);

/// The ROCDL row of the target table: gfx<N> chips, AMDGPU assembly and
/// HSACO.
const SymmTarget &getROCDLTarget();

} // namespace mlir::symm

#endif // SYMM_TARGET_ROCDL_ROCDLTARGET_H
