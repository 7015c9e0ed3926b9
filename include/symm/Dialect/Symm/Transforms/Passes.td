//===- Passes.td - Symm dialect transformations ------------*- tablegen -*-===//

#ifndef SYMM_DIALECT_SYMM_TRANSFORMS_PASSES_TD
#define SYMM_DIALECT_SYMM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SymmTranslateToHeapBase : Pass<"symm-translate-to-heap-base", "ModuleOp"> {
  let summary = "Make heap-base translation explicit and lower composite symm ops";
  let description = [{
    Rewrites device code so that targets only see `symm.translate`, the rank
    queries and local ordered accesses. It runs, in this order,
    `symm-lower-tile-copies`, `symm-lower-sync`, `symm-lower-peer-access`,
    `symm-hoist-translations` and, with `kernel-context=argument`,
    `symm-kernel-context-argument`:

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

def SymmLowerTileCopies : Pass<"symm-lower-tile-copies", "ModuleOp"> {
  let summary = "Lower symm.put/get/copy into cooperative copy loops";
  let description = [{
    `symm.put`/`get`/`copy` become workgroup-cooperative copy loops that use
    16-byte vector accesses where the tiles are aligned and contiguous, and
    scalar tails; `put ... signal` fences every thread's stores at the
    signal's scope, synchronises the workgroup, then raises the flag from one
    thread with a release access. `get` ends with a workgroup barrier. A tile
    op outside a GPU kernel is an error.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def SymmLowerSync : Pass<"symm-lower-sync", "ModuleOp"> {
  let summary = "Lower symm.signal and symm.wait into ordered accesses";
  let description = [{
    `symm.signal` becomes a release atomic store (`set`) or add (`add`);
    `symm.wait` becomes an acquire spin loop with a `symm.backoff`. A peer
    flag is reached through `symm.translate`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
  ];
}

def SymmLowerPeerAccess : Pass<"symm-lower-peer-access", "ModuleOp"> {
  let summary = "Rewrite peer accesses into symm.translate plus local accesses";
  let description = [{
    A load, store or atomic with a peer operand becomes `symm.translate` plus
    its local form; plain (unordered) loads and stores become
    `memref`/`vector` accesses, so they vectorise like any other access.
    Ordered accesses on this rank are left as they are.
  }];
  let dependentDialects = [
    "::mlir::memref::MemRefDialect", "::mlir::vector::VectorDialect",
  ];
}

def SymmHoistTranslations : Pass<"symm-hoist-translations", "ModuleOp"> {
  let summary = "Hoist symm.translate out of loops and de-duplicate it";
  let description = [{
    Translations are usually loop-invariant and each costs kernel-context
    loads: they are hoisted out of loops, with the pure computations of their
    operands, and equal translations are merged. Nothing else moves and no
    other op is merged: that is left to `canonicalize` and `cse`.
  }];
}

def SymmKernelContextArgument
    : Pass<"symm-kernel-context-argument", "ModuleOp"> {
  let summary = "Pass the kernel context as a trailing kernel argument";
  let description = [{
    Kernels that need the kernel context (rank, world size, heap bases) take
    it as a trailing `!llvm.ptr<1>` argument, marked by the
    `symm.context_argument` attribute, instead of reading the module's
    `__symm_context` global. A device function that is not a kernel cannot
    receive it: using the context there is an error.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // SYMM_DIALECT_SYMM_TRANSFORMS_PASSES_TD
