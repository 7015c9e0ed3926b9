// RUN: symm-opt %s -allow-unregistered-dialect -symm-translate-to-heap-base -symm-remote-to-nvshmem | FileCheck %s --check-prefix=NVSHMEM
// RUN: symm-opt %s -allow-unregistered-dialect -symm-translate-to-heap-base -symm-remote-to-nvshmem=mode=auto | FileCheck %s --check-prefix=AUTO

// Every remote access becomes an NVSHMEM call on this rank's address of the
// element and the peer; local accesses stay as they are.
// NVSHMEM-LABEL: gpu.func @values
// NVSHMEM: %[[ADDR:.*]] = llvm.inttoptr
// NVSHMEM: llvm.call @nvshmem_uint32_p(%[[ADDR]], %{{.*}}, %[[PEER:.*]]) : (!llvm.ptr, i32, i32) -> ()
// Two 64-bit pieces of an aligned 16-byte vector.
// NVSHMEM-COUNT-2: llvm.call @nvshmem_uint64_g(%{{.*}}, %[[PEER]]) : (!llvm.ptr, i32) -> i64
// NVSHMEM: llvm.bitcast %{{.*}} : vector<2xi64> to vector<4xf32>
// An f16 moves as 16 bits.
// NVSHMEM: llvm.bitcast %{{.*}} : f16 to i16
// NVSHMEM: llvm.call @nvshmem_uint16_p
// NVSHMEM: memref.load %{{.*}} : memref<?xf32, #symm.heap>
// NVSHMEM-NOT: nvshmem
// NVSHMEM: gpu.return
// --remote=auto asks nvshmem_ptr whether the peer's heap is mapped, of the
// memref's base (one answer per peer and memref), through a declaration that
// reads no memory and may be called speculatively, so that LLVM hoists and
// merges the calls.
// AUTO: llvm.func @nvshmem_ptr(!llvm.ptr, i32) -> !llvm.ptr attributes {memory_effects = #llvm.memory_effects<other = none, argMem = none, inaccessibleMem = none, errnoMem = none, targetMem0 = none, targetMem1 = none>, no_unwind, passthrough = ["speculatable"], will_return}
// AUTO-LABEL: gpu.func @values
// AUTO-SAME: (%[[BUF:[^:]*]]:
// AUTO: %[[VIEW:.*]] = symm.translate %[[BUF]] to %[[PEER:.*]] :
// AUTO: %[[ADDR:.*]] = llvm.inttoptr
// AUTO: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[BUF]] :
// AUTO-NEXT: %[[BITS:.*]] = arith.index_castui %[[BASE]] : index to i64
// AUTO-NEXT: %[[BASEPTR:.*]] = llvm.inttoptr %[[BITS]] : i64 to !llvm.ptr
// AUTO-NEXT: %[[MAPPED:.*]] = llvm.call @nvshmem_ptr(%[[BASEPTR]], %[[PEER]]) : (!llvm.ptr, i32) -> !llvm.ptr
// AUTO: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// AUTO: %[[YES:.*]] = llvm.icmp "ne" %[[MAPPED]], %[[NULL]] : !llvm.ptr
// AUTO: scf.if %[[YES]] {
// AUTO-NEXT: memref.store %{{.*}}, %[[VIEW]][%{{.*}}] : memref<?xi32, #symm.heap>
// AUTO: } else {
// AUTO:   llvm.call @nvshmem_uint32_p
// AUTO: }
// AUTO: scf.if %{{.*}} -> (vector<4xf32>) {
// AUTO:   vector.load
// AUTO: } else {
// AUTO-COUNT-2: llvm.call @nvshmem_uint64_g
gpu.module @m {
  gpu.func @values(%buf: memref<?xi32, #symm.heap>, %vbuf: memref<?xf32, #symm.heap>,
                   %hbuf: memref<?xf16, #symm.heap>, %p: i32, %x: i32, %h: f16) kernel {
    %c0 = arith.constant 0 : index
    symm.store %x, %buf[%c0] to %p : i32 -> memref<?xi32, #symm.heap>
    %v = symm.load %vbuf[%c0] from %p : memref<?xf32, #symm.heap> -> vector<4xf32>
    symm.store %h, %hbuf[%c0] to %p : f16 -> memref<?xf16, #symm.heap>
    %l = symm.load %vbuf[%c0] : memref<?xf32, #symm.heap> -> f32
    "test.use"(%v, %l) : (vector<4xf32>, f32) -> ()
    gpu.return
  }

  // A release store completes this thread's NVSHMEM operations first; an
  // acquire load fences after; kinds without an NVSHMEM atomic are a
  // compare-and-swap loop.
  // NVSHMEM-LABEL: gpu.func @ordered
  // NVSHMEM: symm.fence ordering(release) scope(system)
  // NVSHMEM-NEXT: llvm.call @nvshmem_quiet() : () -> ()
  // NVSHMEM: llvm.call @nvshmem_uint32_atomic_set
  // NVSHMEM: llvm.call @nvshmem_uint64_atomic_fetch({{.*}}) : (!llvm.ptr, i32) -> i64
  // NVSHMEM-NEXT: symm.fence ordering(acquire) scope(system)
  // NVSHMEM: llvm.call @nvshmem_uint32_atomic_fetch_add
  // NVSHMEM: %[[NEG:.*]] = arith.subi %{{.*}}, %{{.*}} : i32
  // NVSHMEM: llvm.call @nvshmem_uint32_atomic_fetch_add(%{{.*}}, %[[NEG]], %{{.*}})
  // NVSHMEM: llvm.call @nvshmem_uint32_atomic_swap
  // NVSHMEM: llvm.call @nvshmem_uint32_atomic_fetch(
  // NVSHMEM: scf.while
  // NVSHMEM: llvm.intr.smax
  // NVSHMEM: llvm.call @nvshmem_uint32_atomic_compare_swap
  // NVSHMEM: symm.fence ordering(release) scope(system)
  // NVSHMEM-NEXT: llvm.call @nvshmem_quiet()
  // NVSHMEM-NEXT: llvm.call @nvshmem_uint64_atomic_compare_swap
  // NVSHMEM-NEXT: symm.fence ordering(acquire) scope(system)
  // NVSHMEM: llvm.intr.maxnum
  // NVSHMEM: llvm.bitcast %{{.*}} : f32 to i32
  // NVSHMEM: llvm.call @nvshmem_uint32_atomic_compare_swap
  // A release fence of system scope completes NVSHMEM operations too.
  // NVSHMEM: symm.fence ordering(release) scope(system)
  // NVSHMEM-NEXT: llvm.call @nvshmem_quiet()
  // NVSHMEM: symm.fence ordering(release) scope(workgroup)
  // NVSHMEM-NEXT: "test.use"
  gpu.func @ordered(%buf: memref<?xi32, #symm.heap>, %wide: memref<?xi64, #symm.heap>,
                    %fbuf: memref<?xf32, #symm.heap>, %p: i32, %x: i32, %f: f32) kernel {
    %c0 = arith.constant 0 : index
    symm.store %x, %buf[%c0] to %p ordering(release) scope(system) : i32 -> memref<?xi32, #symm.heap>
    %w = symm.load %wide[%c0] from %p ordering(acquire) scope(system) : memref<?xi64, #symm.heap> -> i64
    %a = symm.atomic_rmw add %x, %buf[%c0] on %p ordering(relaxed) scope(system) : i32 -> memref<?xi32, #symm.heap>
    %s = symm.atomic_rmw sub %x, %buf[%c0] on %p ordering(relaxed) scope(system) : i32 -> memref<?xi32, #symm.heap>
    %e = symm.atomic_rmw xchg %x, %buf[%c0] on %p ordering(relaxed) scope(system) : i32 -> memref<?xi32, #symm.heap>
    %m = symm.atomic_rmw max %x, %buf[%c0] on %p ordering(relaxed) scope(system) : i32 -> memref<?xi32, #symm.heap>
    %c = symm.atomic_cas %w, %w, %wide[%c0] on %p ordering(acq_rel) scope(system) : i64 -> memref<?xi64, #symm.heap>
    %fm = symm.atomic_rmw fmax %f, %fbuf[%c0] on %p ordering(relaxed) scope(system) : f32 -> memref<?xf32, #symm.heap>
    symm.fence ordering(release) scope(system)
    symm.fence ordering(release) scope(workgroup)
    "test.use"(%w, %a, %s, %e, %m, %c, %fm) : (i64, i32, i32, i32, i32, i64, f32) -> ()
    gpu.return
  }

  // A signal is a release atomic, a wait on a peer's flag polls it with
  // NVSHMEM fetches, and a put's copy loop stores through NVSHMEM.
  // NVSHMEM-LABEL: gpu.func @sync
  // NVSHMEM: llvm.call @nvshmem_quiet()
  // NVSHMEM: llvm.call @nvshmem_uint32_atomic_fetch_add
  // NVSHMEM: scf.while
  // NVSHMEM: llvm.call @nvshmem_uint32_atomic_fetch(
  // NVSHMEM: symm.fence ordering(acquire) scope(system)
  // NVSHMEM: scf.for
  // NVSHMEM: llvm.call @nvshmem_uint64_p
  // NVSHMEM: llvm.call @nvshmem_quiet()
  // NVSHMEM: llvm.call @nvshmem_uint32_atomic_set
  gpu.func @sync(%flags: memref<?xi32, #symm.heap>, %tile: memref<64xf32>,
                 %dst: memref<64xf32, #symm.heap>, %p: i32, %x: i32) kernel {
    %c0 = arith.constant 0 : index
    symm.signal add %x, %flags[%c0] on %p scope(system) : i32 -> memref<?xi32, #symm.heap>
    %seen = symm.wait %flags[%c0] from %p ge %x scope(system) : memref<?xi32, #symm.heap> -> i32
    symm.put %tile to %dst on %p signal(set %x, %flags[%c0] : memref<?xi32, #symm.heap>) scope(system) : memref<64xf32> -> memref<64xf32, #symm.heap>
    gpu.return
  }
}
