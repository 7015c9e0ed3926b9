//===- Passes.td - Passes of the CPU target ----------------*- tablegen -*-===//

#ifndef SYMM_TARGET_HOST_PASSES_TD
#define SYMM_TARGET_HOST_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertSymmToHost : Pass<"convert-symm-to-host", "::mlir::ModuleOp"> {
  let summary = "Lower symm device operations for the CPU target";
  let description = [{
    Runs after `symm-translate-to-heap-base`. Translation is the same as on
    GPUs, against the heaps the host runtime mapped; every scope is the system
    syncscope and `#symm.heap` is the default address space. `symm.backoff`
    calls the runtime's `_symm_host_yield`, which switches to the other GPU
    threads (fibers) so that the one being waited for runs. A bf16 `fadd`,
    `fmax` or `fmin` is a compare-and-swap loop whose arithmetic is `arith` on
    f32 (CPUs have no bf16 arithmetic); the `symm-to-host` pipeline then
    expands the bf16 rounding into integer operations.

    Every translation checks its peer: one outside [0, world size) calls the
    runtime's `_symm_peer_out_of_range`, which prints the rank, the operation
    with its location and the valid range, and ends the process with status 1.

    With `check-races`, atomics carry their symm scope in their syncscope
    (`symm-workgroup`, `symm-device`, system) for `symm-instrument-races`.
  }];
  let options = [
    Option<"checkRaces", "check-races", "bool", /*default=*/"false",
           "Keep each atomic's scope in its syncscope for "
           "symm-instrument-races">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect"];
}

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
