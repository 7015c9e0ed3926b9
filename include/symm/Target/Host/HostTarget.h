//===- HostTarget.h - The CPU target of gpu-module-to-binary ----*- C++ -*-===//

#ifndef SYMM_TARGET_HOST_HOSTTARGET_H
#define SYMM_TARGET_HOST_HOSTTARGET_H

#include "mlir/IR/DialectRegistry.h"

#include <string>

namespace mlir::symm {

/// Makes #symm.host_target a gpu::TargetAttrInterface: gpu-module-to-binary
/// then turns gpu.modules carrying it into host shared objects.
void registerHostTargetInterfaceExternalModels(DialectRegistry &registry);

/// The ld.lld that links host kernels and HSACO: `$SYMM_LLD`, Debian's LLVM 22
/// one, or the first on PATH; empty when there is none.
std::string findLinker();

} // namespace mlir::symm

#endif // SYMM_TARGET_HOST_HOSTTARGET_H
