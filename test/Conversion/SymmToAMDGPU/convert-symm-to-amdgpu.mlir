// RUN: symm-opt %s -allow-unregistered-dialect -convert-symm-to-amdgpu | FileCheck %s

// The context is a protected, dso_local global in the constant address space;
// the heap is global memory; scopes are workgroup / agent-one-as / one-as, and
// nothing marks an atomic as not touching remote or fine-grained memory.
// CHECK: llvm.mlir.global external protected @__symm_context() {addr_space = 4 : i32, alignment = 8 : i64, dso_local} : !llvm.struct<(i32, i32, array<64 x i64>)>
// CHECK-LABEL: gpu.func @k
// CHECK-SAME: (%[[BUF:.*]]: memref<?xi32>, %[[P:.*]]: i32, %[[X:.*]]: i32) kernel
// CHECK: %[[G:.*]] = memref.memory_space_cast %[[BUF]] : memref<?xi32> to memref<?xi32, 1>
// CHECK: %[[DESC:.*]] = builtin.unrealized_conversion_cast %[[G]]
// translate: heap_bases[p] - heap_bases[rank], added to both pointers.
// CHECK: %[[CTX:.*]] = llvm.mlir.addressof @__symm_context : !llvm.ptr<4>
// CHECK: %[[RANKP:.*]] = llvm.getelementptr %[[CTX]][0, 0]
// CHECK: %[[RANK:.*]] = llvm.load %[[RANKP]] invariant : !llvm.ptr<4> -> i32
// CHECK: %[[MINEP:.*]] = llvm.getelementptr %{{.*}}[0, 2, %[[RANK]]]
// CHECK: %[[MINE:.*]] = llvm.load %[[MINEP]] invariant : !llvm.ptr<4> -> i64
// CHECK: %[[THEIRSP:.*]] = llvm.getelementptr %{{.*}}[0, 2, %[[P]]]
// CHECK: %[[THEIRS:.*]] = llvm.load %[[THEIRSP]] invariant : !llvm.ptr<4> -> i64
// CHECK: %[[DELTA:.*]] = llvm.sub %[[THEIRS]], %[[MINE]] : i64
// CHECK: %[[A0:.*]] = llvm.extractvalue %[[DESC]][0]
// CHECK: llvm.getelementptr %[[A0]][%[[DELTA]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK: %[[A1:.*]] = llvm.extractvalue %{{.*}}[1]
// CHECK: llvm.getelementptr %[[A1]][%[[DELTA]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// rank and world_size read fields 0 and 1.
// CHECK: llvm.getelementptr %{{.*}}[0, 1] : (!llvm.ptr<4>) -> !llvm.ptr<4>
// CHECK: llvm.load %{{.*}} atomic syncscope("workgroup") acquire {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK: llvm.store %[[X]], %{{.*}} atomic syncscope("agent-one-as") release {alignment = 4 : i64}
// CHECK: llvm.atomicrmw max %{{.*}}, %[[X]] syncscope("one-as") acq_rel {alignment = 4 : i64}
// CHECK-NOT: amdgpu.no
// CHECK: llvm.cmpxchg %{{.*}} syncscope("agent-one-as") release monotonic
// CHECK: llvm.fence syncscope("one-as") seq_cst
// 64 ns is two 64-cycle s_sleep units at ~2 GHz.
// CHECK: rocdl.s.sleep 2
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
