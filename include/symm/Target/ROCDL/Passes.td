//===- Passes.td - Passes of the AMD target ----------------*- tablegen -*-===//

#ifndef SYMM_TARGET_ROCDL_PASSES_TD
#define SYMM_TARGET_ROCDL_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertSymmToAMDGPU : Pass<"convert-symm-to-amdgpu", "::mlir::ModuleOp"> {
  let summary = "Lower symm device operations for AMD GPUs";
  let description = [{
    Runs after `symm-translate-to-heap-base`. Translation and the context are
    as on NVIDIA (the context global lives in the constant address space 4);
    `#symm.heap` becomes global memory (address space 1). Scopes map to the
    AMDGPU syncscopes `workgroup`, `agent-one-as` and `one-as`: device and
    system synchronisation only needs to order global memory, since LDS is
    private to the workgroup. Atomics are LLVM atomics without
    `amdgpu.no.remote.memory`/`amdgpu.no.fine.grained.memory`, so the backend
    keeps them correct on peer memory (float atomics become CAS loops where the
    hardware instruction would not be). `symm.backoff N` is `s_sleep`.
    `gpu.block_dim` and `gpu.grid_dim` inside kernels are read from the HSA
    dispatch packet rather than through `__ockl_get_local_size` /
    `__ockl_get_num_groups`, and `gpu.global_id` is expanded over them, so
    that HSACO builds without the ROCm device libraries; for the same reason `gpu.all_reduce` is
    rewritten into shuffles here, before `convert-gpu-to-rocdl`.
  }];
  let options = [
    Option<"checkRanks", "check-ranks", "bool", /*default=*/"false",
           "Check every translation's peer against the world size and trap "
           "when it is out of range (unchecked, such a peer reads a heap base "
           "past the context's and faults or corrupts memory)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::ROCDL::ROCDLDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // SYMM_TARGET_ROCDL_PASSES_TD
