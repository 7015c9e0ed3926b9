//===- SymmDialect.td - Symm dialect definition ------------*- tablegen -*-===//
//
// The `symm` dialect: tile-level communication over a symmetric heap.
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_DIALECT_SYMM_IR_SYMMDIALECT_TD
#define SYMM_DIALECT_SYMM_IR_SYMMDIALECT_TD

include "mlir/IR/OpBase.td"

def Symm_Dialect : Dialect {
  let name = "symm";
  let cppNamespace = "::mlir::symm";
  let summary = "One-sided communication over a symmetric heap";
  let description = [{
    The `symm` dialect expresses loads, stores, atomics, point-to-point
    synchronisation and tile copies on memory owned by other ranks (GPUs). Every
    rank allocates a heap of the same size and makes the same allocations in the
    same order, so a symmetric object lives at the same offset in every heap.
    Symmetric memory is a memref in the `#symm.heap` memory space; an operation
    with a peer operand accesses the peer's copy of the object.

    Value operations are per thread (SIMT, like `memref.load`); tile operations
    (`put`, `get`, `copy`) are executed cooperatively by the whole workgroup.
    Host-side operations (`alloc`, `dealloc`, `barrier`) are collective across
    ranks and live outside `gpu.module`s.

    Device operations live in device code (a `gpu.module` or a `gpu.launch`
    body): `translate`, any access with a peer operand, ordered loads and
    stores, `atomic_rmw`, `atomic_cas`, `fence`, `wait`, `signal` and the tile
    operations. The verifier rejects them in host code, which has no kernel
    context to translate with; host code may use `rank`, `world_size` and
    plain local `load`/`store`, and copies symmetric memory with `gpu.memcpy`.

    A kernel (`gpu.func ... kernel`) may carry the unit attribute
    `symm.early_launch`: it may then be launched while the kernel before it
    on its stream still runs, and waits for that kernel to end, and for its
    memory to be visible, before its first instruction; the next kernel
    marked so may launch once every workgroup of this one has started. Only
    the launch overlaps, so the kernel sees what stream order gives. On NVIDIA
    from sm_90 that is a programmatic dependent launch (`griddepcontrol`);
    elsewhere the attribute is dropped and the kernel launches as any other.

    A kernel may also carry the unit attribute `symm.co_resident`: its
    workgroups wait on each other (a persistent kernel whose workgroups
    exchange flags), so every workgroup of a launch must be resident at once.
    The runtime then refuses a launch whose grid exceeds what the device can
    hold of that kernel (`symm_kernel_max_resident`) instead of letting it
    hang.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect"];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 0;
  let hasOperationAttrVerify = 1;
}

class Symm_Op<string mnemonic, list<Trait> traits = []>
    : Op<Symm_Dialect, mnemonic, traits>;

#endif // SYMM_DIALECT_SYMM_IR_SYMMDIALECT_TD
