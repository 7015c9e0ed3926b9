//===- SymmAttrs.td - Symm attributes and enums ------------*- tablegen -*-===//
//
// The `#symm.heap` memory space and the enums of the `symm` dialect.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_DIALECT_SYMM_IR_SYMMATTRS_TD
#define SYMM_DIALECT_SYMM_IR_SYMMATTRS_TD

include "symm/Dialect/Symm/IR/SymmDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Memory space
//===----------------------------------------------------------------------===//

def Symm_HeapAttr : AttrDef<Symm_Dialect, "Heap"> {
  let mnemonic = "heap";
  let summary = "Memory space of the symmetric heap";
  let description = [{
    A memref in the `#symm.heap` memory space points into this rank's symmetric
    heap. Its peers hold an object of the same size at the same offset of their
    own heaps, which `symm.translate` and the peer forms of the value and tile
    operations reach. Lowerings map it to global memory.

    ```mlir
    %buf = symm.alloc(%n) : memref<?xf32, #symm.heap>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// The CPU target
//===----------------------------------------------------------------------===//

def Symm_HostTargetAttr : AttrDef<Symm_Dialect, "HostTarget"> {
  let mnemonic = "host_target";
  let summary = "GPU target attribute of the CPU emulation target";
  let description = [{
    On a `gpu.module`, makes `gpu-module-to-binary` compile the module (lowered
    to LLVM by `symm-convert-gpu-to-host`) into a shared object for this
    machine, which the Symm runtime's host backend loads and runs with one OS
    thread per GPU thread. `O` is the LLVM optimisation level, 0 to 3.

    ```mlir
    gpu.module @kernels [#symm.host_target<O = 2>] { ... }
    ```
  }];
  let parameters = (ins DefaultValuedParameter<"int", "2">:$O);
  let assemblyFormat = "(`<` struct($O)^ `>`)?";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Symm_Scope : I32EnumAttr<"MemoryScope",
    "set of threads an ordered access synchronises with", [
      I32EnumAttrCase<"workgroup", 0>,
      I32EnumAttrCase<"device", 1>,
      I32EnumAttrCase<"system", 2>,
    ]> {
  let cppNamespace = "::mlir::symm";
}

def Symm_Ordering : I32EnumAttr<"MemoryOrdering",
    "memory ordering of an atomic access or fence", [
      I32EnumAttrCase<"relaxed", 0>,
      I32EnumAttrCase<"acquire", 1>,
      I32EnumAttrCase<"release", 2>,
      I32EnumAttrCase<"acq_rel", 3>,
      I32EnumAttrCase<"seq_cst", 4>,
    ]> {
  let cppNamespace = "::mlir::symm";
}

def Symm_AtomicKind : I32EnumAttr<"AtomicKind",
    "read-modify-write operation of symm.atomic_rmw", [
      I32EnumAttrCase<"add", 0>,
      I32EnumAttrCase<"fadd", 1>,
      I32EnumAttrCase<"sub", 2>,
      I32EnumAttrCase<"and_", 3, "and">,
      I32EnumAttrCase<"or_", 4, "or">,
      I32EnumAttrCase<"xor_", 5, "xor">,
      I32EnumAttrCase<"max", 6>,
      I32EnumAttrCase<"min", 7>,
      I32EnumAttrCase<"umax", 8>,
      I32EnumAttrCase<"umin", 9>,
      I32EnumAttrCase<"fmax", 10>,
      I32EnumAttrCase<"fmin", 11>,
      I32EnumAttrCase<"xchg", 12>,
    ]> {
  let cppNamespace = "::mlir::symm";
}

def Symm_WaitPredicate : I32EnumAttr<"WaitPredicate",
    "comparison symm.wait spins on (signed for integers; reached: the signed "
    "difference element - value is at least 0, so counters may wrap)", [
      I32EnumAttrCase<"eq", 0>,
      I32EnumAttrCase<"ne", 1>,
      I32EnumAttrCase<"lt", 2>,
      I32EnumAttrCase<"le", 3>,
      I32EnumAttrCase<"gt", 4>,
      I32EnumAttrCase<"ge", 5>,
      I32EnumAttrCase<"reached", 6>,
    ]> {
  let cppNamespace = "::mlir::symm";
}

def Symm_SignalKind : I32EnumAttr<"SignalKind",
    "how symm.signal updates a flag", [
      I32EnumAttrCase<"set", 0>,
      I32EnumAttrCase<"add", 1>,
    ]> {
  let cppNamespace = "::mlir::symm";
}

def Symm_TraceEventKind : I32EnumAttr<"TraceEventKind",
    "event of a trace (the values of symm_trace_kind in symm/abi.h)", [
      I32EnumAttrCase<"kernel_begin", 0>,
      I32EnumAttrCase<"kernel_end", 1>,
      I32EnumAttrCase<"range_begin", 2>,
      I32EnumAttrCase<"range_end", 3>,
      I32EnumAttrCase<"wait_begin", 4>,
      I32EnumAttrCase<"wait_end", 5>,
      I32EnumAttrCase<"signal", 6>,
      I32EnumAttrCase<"put_begin", 7>,
      I32EnumAttrCase<"put_end", 8>,
      I32EnumAttrCase<"get_begin", 9>,
      I32EnumAttrCase<"get_end", 10>,
    ]> {
  let cppNamespace = "::mlir::symm";
}

#endif // SYMM_DIALECT_SYMM_IR_SYMMATTRS_TD
