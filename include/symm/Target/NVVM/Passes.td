//===- Passes.td - Passes of the NVIDIA target -------------*- tablegen -*-===//

#ifndef SYMM_TARGET_NVVM_PASSES_TD
#define SYMM_TARGET_NVVM_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertSymmToNVVM : Pass<"convert-symm-to-nvvm", "::mlir::ModuleOp"> {
  let summary = "Lower symm device operations for NVIDIA GPUs";
  let description = [{
    Runs after `symm-translate-to-heap-base`. `symm.translate` rebases the
    memref descriptor's pointers with the heap bases of the kernel context (a
    `__symm_context` global in constant memory, address space 4, or the
    kernel's context argument); `#symm.heap` becomes global memory (address
    space 1). Scopes map to PTX `.cta`/`.gpu`/`.sys` (LLVM syncscopes `block`,
    `device`, system). Atomic loads, stores, compare-and-swap and fences are
    LLVM atomics, which the NVPTX backend prints with their ordering and scope.
    Read-modify-writes are inline PTX `atom.<sem>.<scope>.<space>.<op>.<type>`
    (`red` when the result is unused), because LLVM 22 prints every
    `atomicrmw` as a relaxed `.gpu` atom; `seq_cst` is `fence.sc.<scope>`
    followed by an acquire `atom`. What PTX has no `atom` for (`fmax`,
    `fmin`, 8- and 16-bit integers) is a compare-and-swap loop, whose
    `atom.cas` keeps the ordering and scope. `symm.backoff N` is
    `nanosleep.u32 N`.

    Like every target pass it also lowers the host side of the module (see
    `convert-symm-to-llvm`) in the same step, so that kernel signatures and
    `gpu.launch_func` operands keep agreeing: kernels take heap memrefs in
    the default memory space and cast them to address space 1 on entry.
    `gpu.subgroup_size`, which `convert-gpu-to-nvvm` does not lower, is 32.
    A kernel marked `symm.early_launch` begins with `griddepcontrol.wait`
    and `griddepcontrol.launch_dependents` under `early-launch` (the
    pipeline sets it for sm_90 and newer); otherwise it loses the attribute.
  }];
  let options = [
    Option<"checkRanks", "check-ranks", "bool", /*default=*/"false",
           "Check every translation's peer against the world size; one out "
           "of range prints the rank, the operation and the peer, then "
           "traps (unchecked, it reads a heap base past the context's and "
           "faults or corrupts memory)">,
    Option<"earlyLaunch", "early-launch", "bool", /*default=*/"false",
           "Lower `symm.early_launch` kernels for programmatic dependent "
           "launch: `griddepcontrol.wait`, then `.launch_dependents`, first "
           "in the kernel (sm_90 and newer); off, the attribute is dropped">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // SYMM_TARGET_NVVM_PASSES_TD
