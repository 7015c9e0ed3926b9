//===- Passes.td - Passes of the CPU target ----------------*- tablegen -*-===//

#ifndef SYMM_TARGET_HOST_PASSES_TD
#define SYMM_TARGET_HOST_PASSES_TD

include "mlir/Pass/PassBase.td"

def SymmHostAttachTarget : Pass<"symm-host-attach-target", "::mlir::ModuleOp"> {
  let summary = "Attach #symm.host_target to every gpu.module";
  let description = [{
    The CPU target's counterpart of `nvvm-attach-target` and
    `rocdl-attach-target`: `gpu-module-to-binary` then serialises every
    gpu.module into a host shared object. Other targets already on a module
    stay; an earlier `#symm.host_target` is replaced.
  }];
  let options = [
    Option<"optLevel", "O", "int", /*default=*/"2",
           "LLVM optimisation level of the host kernels">,
  ];
  // #symm.host_target is the symm dialect's: a module without symm ops has
  // not loaded it.
  let dependentDialects = ["::mlir::symm::SymmDialect"];
}

#endif // SYMM_TARGET_HOST_PASSES_TD
