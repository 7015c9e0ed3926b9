//===- HostTarget.h - The CPU target ----------------------------*- C++ -*-===//

#ifndef SYMM_TARGET_HOST_HOSTTARGET_H
#define SYMM_TARGET_HOST_HOSTTARGET_H

#include "symm/Conversion/TargetInfo.h"
#include "symm/Target/Target.h"

#include "mlir/IR/DialectRegistry.h"

namespace mlir::symm {

/// Makes #symm.host_target a gpu::TargetAttrInterface: gpu-module-to-binary
/// then turns gpu.modules carrying it into host shared objects.
void registerHostTargetInterfaceExternalModels(DialectRegistry &registry);

/// The CPU's lowering decisions: one address space, system scope, a runtime
/// call in spin loops, and every peer checked. With `raceScopes`, atomics
/// keep their symm scope in their syncscope (kHostRaceSyncScopes) for
/// `symm-instrument-races`, which reads it and sets it back to system.
SymmTargetInfo getHostTargetInfo(bool raceScopes = false);

/// The Host row of the target table: kernels as host shared objects.
const SymmTarget &getHostTarget();

} // namespace mlir::symm

#endif // SYMM_TARGET_HOST_HOSTTARGET_H
