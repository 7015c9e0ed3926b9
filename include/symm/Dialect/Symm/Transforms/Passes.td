//===- Passes.td - Symm dialect transformations ------------*- tablegen -*-===//

#ifndef SYMM_DIALECT_SYMM_TRANSFORMS_PASSES_TD
#define SYMM_DIALECT_SYMM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SymmLinkLibrary : Pass<"symm-link-library", "ModuleOp"> {
  let summary = "Link device-library functions into the gpu.modules that call them";
  let description = [{
    Device code calls Symm's device library (and a user's own libraries) by
    name: a `gpu.module` declares the function it needs
    (`func.func private @symm_gemm_hopper_consume(...)`) and calls it. This
    pass parses the library files (every `.mlir` file of the folders in
    `paths`, or the files named there; the library installed with Symm
    unless `builtin=false`), replaces each declaration a library defines by a
    private copy of the definition, and copies the functions and globals
    those definitions use in turn, so each `gpu.module` receives exactly what
    it needs. The copies are ordinary IR: the inliner, translate-to-heap-base
    and the target's lowering treat them like the user's code.

    Errors, each one line at the call (or the declaration): a declaration
    whose type differs from the library's definition (naming the file and
    both types); a declared `symm_*` function no library defines (naming the
    folders searched); a library file that does not parse; a name defined in
    two library files. Declarations of other names (libdevice, runtime
    builtins) are left for later stages.
  }];
  let options = [
    ListOption<"paths", "paths", "std::string",
               "Library files or folders of .mlir files, searched in order "
               "after the built-in library">,
    Option<"builtin", "builtin", "bool", /*default=*/"true",
           "Search the library installed with Symm (share/symm/library "
           "beside the program or shared library that holds this pass)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect",
    "::mlir::nvgpu::NVGPUDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::math::MathDialect",
    "::mlir::symm::SymmDialect",
  ];
}

def SymmInlineDeviceCalls : Pass<"symm-inline-device-calls", "gpu::GPUModuleOp"> {
  let summary = "Inline every call between functions of a gpu.module";
  let description = [{
    Device code is compiled as one function per kernel, as GPU compilers do:
    every `func.call` whose callee the `gpu.module` defines is replaced by
    the callee's body, into kernels (`gpu.func`) as into other functions, and
    private functions left without calls are erased. Values that only lower
    inside one function (warpgroup accumulators, mbarrier groups) may then
    cross the calls of the device library's functions. Upstream's `inline`
    pass does not inline into `gpu.func`. Recursive calls are left as they
    are.
  }];
  let dependentDialects = ["::mlir::cf::ControlFlowDialect"];
}

def SymmCheckHostAccess : Pass<"symm-check-host-access", "ModuleOp"> {
  let summary = "Reject host code that reads or writes GPU memory";
  let description = [{
    On GPUs, `#symm.heap` memory and `gpu.alloc` memory without `host_shared`
    are device memory, which host code (everything outside `gpu.module` and
    `gpu.launch` bodies) cannot load or store: such a program runs on CPU
    ranks but is killed by SIGSEGV on a GPU. The first host operation that
    reads or writes such memory (`memref.load`, `memref.store`,
    `memref.copy`, `vector.transfer_read`, a `symm` access, any operation
    whose memory effects name it), or passes it to a function with no body in
    the module (`printMemrefF32`), is an error naming the fix: copy the data
    with `gpu.memcpy` to or from a `gpu.alloc host_shared` buffer.

    Device memory is followed through views and casts (`memref.subview`,
    `memref.cast`, `memref.memory_space_cast`, ...), branches, region
    arguments and results (`scf.for` iteration arguments) and calls of
    functions in the module, into their arguments and out of their results.
    GPU operations (`gpu.memcpy`, `gpu.memset`, `gpu.launch_func`) are
    carried out by the runtime and may take device memory.

    The GPU pipelines run this check first; the CPU target's runs it with
    `check-host-access` (`symm-compile --check-host-access`).

    ```mlir
    %buf = symm.alloc() : memref<64xi32, #symm.heap>
    // error: 'memref.load' op reads #symm.heap memory in host code, ...
    %v = memref.load %buf[%i] : memref<64xi32, #symm.heap>
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

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
           /*default=*/"SYMM_MANIFEST_CONTEXT_GLOBAL",
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

def SymmNameMemoryOps : Pass<"symm-name-memory-ops", "ModuleOp"> {
  let summary = "Name device operations that touch memory in their locations";
  let description = [{
    Wraps the location of every operation in a `gpu.module` that reads or
    writes memory (by its memory effects) in a `NameLoc` with the operation's
    name, unless it has one: the LLVM operations it is lowered to keep it, so
    that what reports on them after lowering (the race detector, see
    `symm-instrument-races`) names the source operation, such as `symm.put`,
    with its file, line and column.
  }];
}

def SymmTrace : Pass<"symm-trace", "ModuleOp"> {
  let summary = "Record kernel events for traces, or remove trace ranges";
  let description = [{
    With `record` (`symm-compile --trace`), every kernel of a `gpu.module`
    records its events in the trace buffer (docs/Tracing.md) through
    `symm.trace.record`: the kernel's beginning and end, each
    `symm.trace.begin` and `symm.trace.end`, the beginning of each
    `symm.wait` and the moment it is satisfied (with the flag and the value
    seen), each `symm.signal` before it is made (with the flag, its peer
    and value) and each `symm.put`, `symm.get` and `symm.copy` (begin and
    end, with the peer; a put's signal as a signal at its beginning).
    Plain loads and stores, to peers too, are not recorded: kernels make
    them by the million. Without `record`, `symm.trace.begin` and
    `symm.trace.end` are removed and nothing else changes.
    Runs on outlined kernels, before `symm-translate-to-heap-base` lowers
    the operations it records.
  }];
  let options = [
    Option<"record", "record", "bool", /*default=*/"false",
           "Record events (else only remove trace ranges)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
  ];
}

#endif // SYMM_DIALECT_SYMM_TRANSFORMS_PASSES_TD
