//===- Passes.td - Symm dialect transformations ------------*- tablegen -*-===//

#ifndef SYMM_DIALECT_SYMM_TRANSFORMS_PASSES_TD
#define SYMM_DIALECT_SYMM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SymmTranslateToHeapBase : Pass<"symm-translate-to-heap-base", "ModuleOp"> {
  let summary = "Make heap-base translation explicit and lower composite symm ops";
  let description = [{
    Rewrites device code so that targets only see `symm.translate`, the rank
    queries and local ordered accesses:

    - an op with a peer operand becomes `symm.translate` plus its local form;
      plain (unordered) loads and stores become `memref`/`vector` accesses on
      the translated memref, so they vectorise like any other access;
    - `symm.signal` becomes a release atomic store (`set`) or add (`add`);
    - `symm.wait` becomes an acquire spin loop with a `symm.backoff`;
    - `symm.put`/`get`/`copy` become workgroup-cooperative copy loops that use
      16-byte vector accesses where the tiles are aligned and contiguous, and
      scalar tails; `put ... signal` fences every thread's stores at the
      signal's scope, synchronises the workgroup, then raises the flag from
      one thread;
    - translations are hoisted out of loops and de-duplicated.

    With `kernel-context=argument`, kernels that need the kernel context
    (rank, world size, heap bases) take it as a trailing `!llvm.ptr<1>`
    argument instead of reading the module's `__symm_context` global.
  }];
  let options = [
    Option<"kernelContext", "kernel-context", "std::string",
           /*default=*/"\"global\"",
           "Where kernels find the kernel context: 'global' (a module "
           "global the runtime writes) or 'argument' (a trailing kernel "
           "argument)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect",
  ];
}

#endif // SYMM_DIALECT_SYMM_TRANSFORMS_PASSES_TD
