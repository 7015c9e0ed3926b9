//===- NVVMTarget.h - The NVIDIA target -------------------------*- C++ -*-===//

#ifndef SYMM_TARGET_NVVM_NVVMTARGET_H
#define SYMM_TARGET_NVVM_NVVMTARGET_H

#include "symm/Conversion/TargetInfo.h"
#include "symm/Target/Target.h"

namespace mlir::symm {

/// NVIDIA's lowering decisions: block/device/system syncscopes, inline PTX
/// for read-modify-writes (LLVM 22's NVPTX backend drops their ordering and
/// scope), nanosleep.
SymmTargetInfo getNVVMTargetInfo(const GPUTargetOptions &options);

/// The NVVM row of the target table: sm_<N> chips, PTX and cubin.
const SymmTarget &getNVVMTarget();

} // namespace mlir::symm

#endif // SYMM_TARGET_NVVM_NVVMTARGET_H
