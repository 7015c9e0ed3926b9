//===- SymmOps.td - Symm operations ------------------------*- tablegen -*-===//
//
// Operations of the `symm` dialect. The textual forms are a contract: external
// tests parse the spellings documented in docs/Dialects/SymmDialect.md
// (generated from this file).
//
//===----------------------------------------------------------------------===//

#ifndef SYMM_DIALECT_SYMM_IR_SYMMOPS_TD
#define SYMM_DIALECT_SYMM_IR_SYMMOPS_TD

include "symm/Dialect/Symm/IR/SymmAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

def Symm_RankOp : Symm_Op<"rank", [Pure]> {
  let summary = "Rank of the executing process";
  let description = [{
    The rank of this process among `symm.world_size` ranks, on the host and in
    kernels alike. A kernel reads it from the module's kernel context.

    ```mlir
    %me = symm.rank : i32
    ```
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Symm_WorldSizeOp : Symm_Op<"world_size", [Pure]> {
  let summary = "Number of ranks";
  let description = [{
    ```mlir
    %n = symm.world_size : i32
    ```
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Symm_TranslateOp : Symm_Op<"translate",
    [Pure, AllTypesMatch<["memref", "result"]>]> {
  let summary = "The peer's view of a symmetric memref";
  let description = [{
    Returns a memref that addresses `%peer`'s copy of the symmetric object that
    `%memref` addresses on this rank. Sizes, strides and layout are unchanged;
    only the base pointer moves:

        remote(p, peer) = heap_bases[peer] + (p - heap_bases[rank])

    The operation is pure, so CSE and LICM hoist and merge translations. A
    translate of a translate addresses the same object and folds to one
    translate; a translate to `symm.rank` is the identity.

    ```mlir
    %peer_buf = symm.translate %buf to %peer : memref<?xf32, #symm.heap>
    ```
  }];
  let arguments = (ins AnyMemRef:$memref, I32:$peer);
  let results = (outs AnyMemRef:$result);
  let assemblyFormat = "$memref `to` $peer attr-dict `:` type($memref)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Value operations
//===----------------------------------------------------------------------===//

def Symm_LoadOp : Symm_Op<"load", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Load from this rank's or a peer's memory";
  let description = [{
    Without `ordering`, a plain load: the result is either the element type or
    a vector of it, which reads contiguous elements along the innermost
    dimension like `vector.load`. Like CUDA's vector types, a vector access is
    aligned to its size in bytes (at most 16) unless an `alignment` attribute
    says otherwise (`{alignment = 4}` for an access only element-aligned). With `ordering` and `scope`, an atomic load of
    a scalar (`relaxed`, `acquire` or `seq_cst`). With `from %peer`, the access
    goes to the peer's copy of the `#symm.heap` memref.

    ```mlir
    %v = symm.load %buf[%i] from %peer : memref<?xf32, #symm.heap> -> vector<4xf32>
    %f = symm.load %flags[%i] from %peer ordering(acquire) scope(system) : memref<?xi32, #symm.heap> -> i32
    ```
  }];
  let arguments = (ins AnyMemRef:$memref, Variadic<Index>:$indices,
                       Optional<I32>:$peer,
                       OptionalAttr<Symm_Ordering>:$ordering,
                       OptionalAttr<Symm_Scope>:$scope,
                       OptionalAttr<IntValidAlignment<I64Attr>>:$alignment);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $memref `[` $indices `]` (`from` $peer^)?
    (`ordering` `(` $ordering^ `)` `scope` `(` $scope `)`)?
    attr-dict `:` type($memref) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MemRefType getMemRefType() { return getMemref().getType(); }
  }];
}

def Symm_StoreOp : Symm_Op<"store", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Store to this rank's or a peer's memory";
  let description = [{
    The store counterpart of `symm.load`: plain (scalar or vector) without
    `ordering`, an atomic scalar store (`relaxed`, `release` or `seq_cst`) with
    it, to the peer's copy with `to %peer`.

    ```mlir
    symm.store %v, %buf[%i] to %peer : vector<4xf32> -> memref<?xf32, #symm.heap>
    symm.store %c1, %flags[%i] to %peer ordering(release) scope(system) : i32 -> memref<?xi32, #symm.heap>
    ```
  }];
  let arguments = (ins AnyType:$value, AnyMemRef:$memref,
                       Variadic<Index>:$indices, Optional<I32>:$peer,
                       OptionalAttr<Symm_Ordering>:$ordering,
                       OptionalAttr<Symm_Scope>:$scope,
                       OptionalAttr<IntValidAlignment<I64Attr>>:$alignment);
  let assemblyFormat = [{
    $value `,` $memref `[` $indices `]` (`to` $peer^)?
    (`ordering` `(` $ordering^ `)` `scope` `(` $scope `)`)?
    attr-dict `:` type($value) `->` type($memref)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MemRefType getMemRefType() { return getMemref().getType(); }
  }];
}

def Symm_LineStoreOp : Symm_Op<"line_store", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "One lane's part of a flagged 128-byte line, stored whole";
  let description = [{
    A line is 16 `i64` words at a 128-byte aligned address of a `#symm.heap`
    memref; its last word is its flag. Eight lanes store a line together:
    lane `8g + p` of a subgroup stores piece `p` (words `2p` and `2p + 1`),
    and `%i` is the first word of that lane's piece. Piece 7 stores the first
    element of `%value` into word 14 and `%flag` into word 15 (its second
    element is not stored). A `symm.line_load` that finds `%flag` in the flag
    word reads every word of this store: the line is published whole, with
    no fence and no separate flag, so data and readiness travel together
    (the LL128 protocol). A flag must differ from every flag the line held
    before (an epoch), and be below 2^59.

    ```mlir
    symm.line_store %x, %ll[%i] flag %epoch to %peer : vector<2xi64>, i64 -> memref<?xi64, #symm.heap>
    ```

    The eight lanes of a line run the operation together, once per line,
    with the same `%flag`. NVIDIA stores each piece with one 16-byte
    volatile store, so that the eight lanes' stores are one warp
    instruction, which NVLink and the GPU's memory deliver whole (a property
    of the hardware that the PTX memory model does not state: the litmus
    test `line-delivery` checks it on the GPUs at hand). The CPU and AMD
    targets store the data with relaxed atomics, then count the line's
    pieces into its flag word with a release read-modify-write; their
    flag word holds `16 * flag + pieces`, which only `symm.line_load`
    reads.
  }];
  let arguments = (ins VectorOfLengthAndType<[2], [I64]>:$value,
                       Arg<AnyMemRef, "", [MemRead, MemWrite]>:$memref,
                       Variadic<Index>:$indices, I64:$flag,
                       Optional<I32>:$peer);
  let assemblyFormat = [{
    $value `,` $memref `[` $indices `]` `flag` $flag (`to` $peer^)?
    attr-dict `:` type($value) `,` type($flag) `->` type($memref)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MemRefType getMemRefType() { return getMemref().getType(); }
  }];
}

def Symm_LineLoadOp : Symm_Op<"line_load", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "One lane's part of a flagged 128-byte line, if the line is "
                "whole";
  let description = [{
    The load counterpart of `symm.line_store`: lane `8g + p` loads piece `p`
    of a line (`%i` its first word), and `%ready` says whether the line's
    flag word holds `%flag`; when it does, `%value` is that store's piece
    (piece 7: word 14 in the first element, the second unspecified). The
    eight lanes of the line run it together and get the same `%ready`.
    Nothing waits: a reader polls until the line is ready, with
    `symm.backoff` in the loop.

    ```mlir
    %x, %ready = symm.line_load %ll[%i] flag %epoch : memref<?xi64, #symm.heap> -> vector<2xi64>, i1
    ```

    NVIDIA loads each piece with one 16-byte volatile load (one warp
    instruction for the line) and shuffles piece 7's flag to the line's
    lanes; the CPU and AMD targets load the flag word with acquire ordering,
    then the piece with relaxed atomics.
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead, MemWrite]>:$memref,
                       Variadic<Index>:$indices, I64:$flag,
                       Optional<I32>:$peer);
  let results = (outs VectorOfLengthAndType<[2], [I64]>:$value, I1:$ready);
  let assemblyFormat = [{
    $memref `[` $indices `]` `flag` $flag (`from` $peer^)?
    attr-dict `:` type($memref) `->` type($value) `,` type($ready)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MemRefType getMemRefType() { return getMemref().getType(); }
  }];
}

def Symm_AtomicRMWOp : Symm_Op<"atomic_rmw", [AttrSizedOperandSegments,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "Atomic read-modify-write, returning the old value";
  let description = [{
    Integer kinds: `add sub and or xor max min umax umin`; float kinds:
    `fadd fmax fmin`; `xchg` takes either.

    ```mlir
    %old = symm.atomic_rmw add %c1, %flags[%i] on %peer ordering(acq_rel) scope(system) : i32 -> memref<?xi32, #symm.heap>
    ```
  }];
  let arguments = (ins Symm_AtomicKind:$kind, AnyType:$value,
                       Arg<AnyMemRef, "", [MemRead, MemWrite]>:$memref,
                       Variadic<Index>:$indices, Optional<I32>:$peer,
                       Symm_Ordering:$ordering, Symm_Scope:$scope);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $kind $value `,` $memref `[` $indices `]` (`on` $peer^)?
    `ordering` `(` $ordering `)` `scope` `(` $scope `)`
    attr-dict `:` type($value) `->` type($memref)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MemRefType getMemRefType() { return getMemref().getType(); }
  }];
}

def Symm_AtomicCASOp : Symm_Op<"atomic_cas", [AttrSizedOperandSegments,
    AllTypesMatch<["expected", "desired", "result"]>]> {
  let summary = "Atomic compare-and-swap, returning the old value";
  let description = [{
    Stores `%desired` if the element equals `%expected`; returns the value seen.
    The failure ordering is the strongest load ordering in `ordering`
    (`release` fails `relaxed`, `acq_rel` fails `acquire`).

    ```mlir
    %prev = symm.atomic_cas %expected, %desired, %flags[%i] on %peer ordering(acq_rel) scope(device) : i32 -> memref<?xi32, #symm.heap>
    ```
  }];
  let arguments = (ins AnyType:$expected, AnyType:$desired,
                       Arg<AnyMemRef, "", [MemRead, MemWrite]>:$memref,
                       Variadic<Index>:$indices, Optional<I32>:$peer,
                       Symm_Ordering:$ordering, Symm_Scope:$scope);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $expected `,` $desired `,` $memref `[` $indices `]` (`on` $peer^)?
    `ordering` `(` $ordering `)` `scope` `(` $scope `)`
    attr-dict `:` type($expected) `->` type($memref)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MemRefType getMemRefType() { return getMemref().getType(); }
  }];
}

def Symm_FenceOp : Symm_Op<"fence", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Memory fence at a scope";
  let description = [{
    ```mlir
    symm.fence ordering(release) scope(system)
    ```
  }];
  let arguments = (ins Symm_Ordering:$ordering, Symm_Scope:$scope);
  let assemblyFormat = [{
    `ordering` `(` $ordering `)` `scope` `(` $scope `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Symm_ReleaseBarrierOp : Symm_Op<"release_barrier",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Workgroup barrier whose accesses a later release at a scope "
                "releases";
  let description = [{
    ```mlir
    symm.release_barrier scope(system)
    scf.if %first {
      symm.store %epoch, %flags[%i] to %peer ordering(release) scope(system) : i32 -> memref<?xi32, #symm.heap>
    }
    ```

    A workgroup barrier (`gpu.barrier`) after which a release at `scope` by
    any thread of the workgroup (a release store, atomic or fence, a signal)
    also releases every thread's memory accesses before the barrier: one
    thread can then announce what the whole workgroup wrote. Each target
    lowers it to what makes that hold: on NVIDIA the barrier alone (bar.sync
    and a release are cumulative in the PTX memory model), on the CPU the
    barrier alone, on AMD a release fence at `scope` in every thread, then
    the barrier (a wave's release waits only for that wave's own stores).
    A release fence in every thread before a barrier says the same on every
    target, but NVIDIA then runs a system-scope fence per warp: a one-shot
    all-reduce of 8 KB took 12.9 us on 2 H100s that way and 8.1 with this.
  }];
  let arguments = (ins Symm_Scope:$scope);
  let assemblyFormat = [{
    `scope` `(` $scope `)` attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Point-to-point synchronisation
//===----------------------------------------------------------------------===//

def Symm_WaitOp : Symm_Op<"wait", [AttrSizedOperandSegments,
    TypesMatchWith<"value type matches the element type", "memref", "value",
                   "::llvm::cast<::mlir::MemRefType>($_self).getElementType()">]> {
  let summary = "Spin with acquire ordering until a predicate on a flag holds";
  let description = [{
    Repeatedly loads the integer element with acquire ordering at `scope` until
    `element <predicate> %value` holds (signed comparison) and returns the value
    it saw. `backoff(N)` asks the target to sleep about N nanoseconds between
    polls (`s_sleep` on AMD, `nanosleep` on NVIDIA, a pause on the CPU).

    `reached` is for counters that only grow and may wrap around (epochs,
    sequence numbers): it holds when `element - %value`, computed modulo
    2^width and read as signed, is at least 0, so a flag that has wrapped
    past the largest value still counts as later, as long as the two are
    less than 2^(width-1) apart. `ge` would wait forever there.

    ```mlir
    %seen = symm.wait %flags[%i] ge %c1 scope(system) : memref<?xi32, #symm.heap> -> i32
    %now = symm.wait %flags[%i] reached %epoch scope(system) : memref<?xi32, #symm.heap> -> i32
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead, MemWrite]>:$memref,
                       Variadic<Index>:$indices, Optional<I32>:$peer,
                       Symm_WaitPredicate:$predicate, AnyType:$value,
                       Symm_Scope:$scope,
                       OptionalAttr<ConfinedAttr<I64Attr,
                                                 [IntMinValue<1>]>>:$backoff);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $memref `[` $indices `]` (`from` $peer^)? $predicate $value
    `scope` `(` $scope `)` (`backoff` `(` $backoff^ `)`)?
    attr-dict `:` type($memref) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MemRefType getMemRefType() { return getMemref().getType(); }
  }];
}

def Symm_BackoffOp : Symm_Op<"backoff", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Polling pause of a spin loop";
  let description = [{
    Produced by `symm-translate-to-heap-base` inside the spin loop of
    `symm.wait`. With `ns`, the thread sleeps about that many nanoseconds
    (`nanosleep` on NVIDIA, `s_sleep` on AMD); without it, GPU targets emit
    nothing and the CPU target switches to other GPU threads so that the
    thread it waits for can run.

    ```mlir
    symm.backoff 100
    ```
  }];
  let arguments = (ins OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<1>]>>:$ns);
  let assemblyFormat = "($ns^)? attr-dict";
}

def Symm_SignalOp : Symm_Op<"signal", [AttrSizedOperandSegments]> {
  let summary = "Release-ordered update of a flag";
  let description = [{
    Atomically sets or adds `%value` to an integer flag with release ordering at
    `scope`: everything this thread wrote before is visible to whoever observes
    the new value with acquire ordering at that scope.

    ```mlir
    symm.signal add %c1, %flags[%i] on %peer scope(system) : i32 -> memref<?xi32, #symm.heap>
    ```
  }];
  let arguments = (ins Symm_SignalKind:$kind, AnyType:$value,
                       Arg<AnyMemRef, "", [MemRead, MemWrite]>:$memref,
                       Variadic<Index>:$indices, Optional<I32>:$peer,
                       Symm_Scope:$scope);
  let assemblyFormat = [{
    $kind $value `,` $memref `[` $indices `]` (`on` $peer^)?
    `scope` `(` $scope `)` attr-dict `:` type($value) `->` type($memref)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MemRefType getMemRefType() { return getMemref().getType(); }
  }];
}

//===----------------------------------------------------------------------===//
// Tile operations (workgroup-cooperative)
//===----------------------------------------------------------------------===//

def Symm_PutOp : Symm_Op<"put", [AttrSizedOperandSegments]> {
  let summary = "Workgroup-cooperative copy of a tile into a peer's memory";
  let description = [{
    Every thread of the workgroup must reach the operation. The tile `%src`
    (any memory space) is copied to the peer's copy of `%dst` (`#symm.heap`).
    With `signal(...)`, one flag update on the same peer is made once per
    workgroup, after every thread's part of the tile is visible at `scope`.

    The put reads `%src` as it stands when each thread reaches it: it does not
    begin with a barrier. A tile that other threads of the workgroup wrote
    into workgroup memory needs a `gpu.barrier` between those writes and the
    put. (`symm.get` is the mirror: it ends with a barrier, so the workgroup
    may read the tile it fetched right after it.)

    ```mlir
    symm.put %src to %dst on %peer : memref<64x64xf16, strided<[?, 1], offset: ?>> -> memref<64x64xf16, strided<[?, 1], offset: ?>, #symm.heap>
    symm.put %src to %dst on %peer signal(add %c1, %flags[%t] : memref<?xi32, #symm.heap>) scope(system) : memref<64xf32> -> memref<64xf32, #symm.heap>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead]>:$src,
                       Arg<AnyMemRef, "", [MemWrite]>:$dst, I32:$peer,
                       OptionalAttr<Symm_SignalKind>:$signal_kind,
                       Optional<AnyType>:$signal_value,
                       Arg<Optional<AnyMemRef>, "", [MemRead, MemWrite]>:$signal_flags,
                       Variadic<Index>:$signal_indices,
                       OptionalAttr<Symm_Scope>:$scope);
  let assemblyFormat = [{
    $src `to` $dst
    custom<PeerAndSignal>($peer, $signal_kind, $signal_value, $signal_flags,
                          $signal_indices, type($signal_value),
                          type($signal_flags), $scope)
    attr-dict `:` type($src) `->` type($dst)
  }];
  let hasVerifier = 1;
}

def Symm_GetOp : Symm_Op<"get", []> {
  let summary = "Workgroup-cooperative copy of a tile from a peer's memory";
  let description = [{
    Every thread of the workgroup must reach the operation. Copies the peer's
    copy of `%src` (`#symm.heap`) into `%dst` (any memory space). It ends
    with a workgroup barrier, so every thread may read any part of `%dst`
    right after it; see `symm.put` for the rule at a put's start.

    ```mlir
    symm.get %src from %peer to %dst : memref<64xf32, #symm.heap> -> memref<64xf32>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead]>:$src, I32:$peer,
                       Arg<AnyMemRef, "", [MemWrite]>:$dst);
  let assemblyFormat = [{
    $src `from` $peer `to` $dst attr-dict `:` type($src) `->` type($dst)
  }];
  let hasVerifier = 1;
}

def Symm_CopyOp : Symm_Op<"copy", []> {
  let summary = "Workgroup-cooperative tile copy between two arbitrary ranks";
  let description = [{
    Copies `%src_peer`'s copy of `%src` to `%dst_peer`'s copy of `%dst`; both
    memrefs are in `#symm.heap`. Every thread of the workgroup must reach it.

    ```mlir
    symm.copy %src from %a to %dst on %b : memref<64xf32, #symm.heap> -> memref<64xf32, #symm.heap>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead]>:$src, I32:$src_peer,
                       Arg<AnyMemRef, "", [MemWrite]>:$dst, I32:$dst_peer);
  let assemblyFormat = [{
    $src `from` $src_peer `to` $dst `on` $dst_peer attr-dict
    `:` type($src) `->` type($dst)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Traces
//===----------------------------------------------------------------------===//

class Symm_TraceRangeOp<string mnemonic>
    : Symm_Op<mnemonic, [MemoryEffects<[MemWrite]>]> {
  let arguments = (ins StrAttr:$name, Optional<Index>:$id);
  let assemblyFormat = "$name (`(` $id^ `)`)? attr-dict";
  let hasVerifier = 1;
}

def Symm_TraceBeginOp : Symm_TraceRangeOp<"trace.begin"> {
  let summary = "Begin a named range of a kernel's trace";
  let description = [{
    With `symm-compile --trace`, the first lane of each subgroup that
    reaches it records the beginning of a range called `name` (with `id`,
    a tile's number say, when given), which the matching `symm.trace.end`
    of the same name ends; the trace shows it on the subgroup's track.
    Without `--trace` both are removed and the code is what it would be
    without them. The function must contain a `symm.trace.end` of the
    same name.

    ```mlir
    symm.trace.begin "tile" (%tile)
    // ... compute and store the tile ...
    symm.trace.end "tile"
    ```
  }];
}

def Symm_TraceEndOp : Symm_TraceRangeOp<"trace.end"> {
  let summary = "End a named range of a kernel's trace";
  let description = [{
    Ends the innermost range called `name` that `symm.trace.begin` began on
    this subgroup (see there). `id`, when given, is recorded too.

    ```mlir
    symm.trace.end "tile"
    ```
  }];
}

def Symm_TraceRecordOp : Symm_Op<"trace.record", [MemoryEffects<[MemWrite]>]> {
  let summary = "Record one event of a kernel's trace";
  let description = [{
    Produced by `symm-trace` when kernels are traced, lowered by each
    target: the first lane of the subgroup writes the event with the
    device's clock into the trace buffer (symm/abi.h). Kernel and range
    events take their `name` and one argument (the range's id, -1 without);
    the others take two (symm_trace_event's `a` and `b`).

    ```mlir
    symm.trace.record range_begin "tile" (%id) : i64
    symm.trace.record signal (%address, %peer_value) : i64, i64
    ```
  }];
  let arguments = (ins Symm_TraceEventKind:$kind, OptionalAttr<StrAttr>:$name,
                       Variadic<I64>:$args);
  let assemblyFormat = [{
    $kind ($name^)? `(` $args `)` attr-dict `:` type($args)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether events of `kind` name a kernel or a range.
    static bool isNamed(TraceEventKind kind);
  }];
}

//===----------------------------------------------------------------------===//
// Host-side collective operations
//===----------------------------------------------------------------------===//

def Symm_AllocOp : Symm_Op<"alloc", [MemoryEffects<[MemWrite]>]> {
  let summary = "Collective allocation on the symmetric heap";
  let description = [{
    Every rank must make the same allocations, in the same order, with the same
    sizes; the runtime checks it. One index operand per dynamic dimension.

    ```mlir
    %buf = symm.alloc(%n) : memref<?xf32, #symm.heap>
    ```
  }];
  let arguments = (ins Variadic<Index>:$dynamicSizes);
  let results = (outs Res<AnyMemRef, "", [MemAlloc<DefaultResource>]>:$memref);
  let assemblyFormat = "`(` $dynamicSizes `)` attr-dict `:` type($memref)";
  let hasVerifier = 1;
}

def Symm_DeallocOp : Symm_Op<"dealloc", [MemoryEffects<[MemWrite]>]> {
  let summary = "Collective release of a symmetric allocation";
  let description = [{
    ```mlir
    symm.dealloc %buf : memref<?xf32, #symm.heap>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemFree]>:$memref);
  let assemblyFormat = "$memref attr-dict `:` type($memref)";
  let hasVerifier = 1;
}

def Symm_BarrierOp : Symm_Op<"barrier", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Complete this rank's device work, then wait for every rank";
  let description = [{
    ```mlir
    symm.barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

#endif // SYMM_DIALECT_SYMM_IR_SYMMOPS_TD
