// RUN: symm-opt %s -allow-unregistered-dialect -convert-symm-to-nvvm | FileCheck %s

// Scopes are block / device / system; read-modify-writes are inline PTX with
// their ordering and scope spelled out; back-off is nanosleep.
// CHECK: llvm.mlir.global external protected @__symm_context() {addr_space = 4 : i32
// CHECK-LABEL: gpu.func @k
// CHECK: memref.memory_space_cast %{{.*}} : memref<?xi32> to memref<?xi32, 1>
// CHECK: llvm.sub
// CHECK: llvm.load %{{.*}} atomic syncscope("block") acquire {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK: llvm.store %{{.*}} atomic syncscope("device") release {alignment = 4 : i64}
// CHECK-NOT: llvm.atomicrmw
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "atom.acq_rel.sys.global.max.s32 $0, [$1], $2;", "=r,l,r,~{memory}"
// CHECK: llvm.cmpxchg %{{.*}} syncscope("device") release monotonic
// CHECK: llvm.fence seq_cst
// CHECK: %[[NS:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK: nvvm.nanosleep %[[NS]]
gpu.module @m {
  gpu.func @k(%buf: memref<?xi32, #symm.heap>, %p: i32, %x: i32) kernel {
    %c0 = arith.constant 0 : index
    %t = symm.translate %buf to %p : memref<?xi32, #symm.heap>
    %r = symm.rank : i32
    %n = symm.world_size : i32
    %a = symm.load %t[%c0] ordering(acquire) scope(workgroup) : memref<?xi32, #symm.heap> -> i32
    symm.store %x, %t[%c0] ordering(release) scope(device) : i32 -> memref<?xi32, #symm.heap>
    %o = symm.atomic_rmw max %x, %t[%c0] ordering(acq_rel) scope(system) : i32 -> memref<?xi32, #symm.heap>
    %c = symm.atomic_cas %x, %a, %t[%c0] ordering(release) scope(device) : i32 -> memref<?xi32, #symm.heap>
    symm.fence ordering(seq_cst) scope(system)
    symm.backoff 64
    "test.use"(%r, %n, %o, %c) : (i32, i32, i32, i32) -> ()
    gpu.return
  }
}
