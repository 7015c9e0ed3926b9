// RUN: symm-opt %s -allow-unregistered-dialect -symm-lower-sync | FileCheck %s

// Signals become release accesses and waits acquire spin loops with back-off;
// plain peer accesses are left to symm-lower-peer-access.
// CHECK-LABEL: gpu.func @sync
// CHECK-SAME: (%[[BUF:.*]]: memref<?xf32, #symm.heap>, %[[F:.*]]: memref<?xi32, #symm.heap>, %[[I:.*]]: index, %[[P:.*]]: i32, %[[X:.*]]: i32)
// CHECK: %[[T:.*]] = symm.translate %[[F]] to %[[P]]
// CHECK: symm.store %[[X]], %[[T]][%[[I]]] ordering(release) scope(system)
// CHECK: symm.atomic_rmw add %[[X]], %[[F]][%[[I]]] ordering(release) scope(device)
// CHECK: scf.while
// CHECK: %[[SEEN:.*]] = symm.load %[[F]][%[[I]]] ordering(acquire) scope(system)
// CHECK: arith.cmpi sge, %[[SEEN]], %[[X]]
// CHECK: symm.backoff 200
// CHECK: symm.load %[[BUF]][%[[I]]] from %[[P]]
gpu.module @m {
  gpu.func @sync(%buf: memref<?xf32, #symm.heap>, %f: memref<?xi32, #symm.heap>, %i: index, %p: i32, %x: i32) kernel {
    symm.signal set %x, %f[%i] on %p scope(system) : i32 -> memref<?xi32, #symm.heap>
    symm.signal add %x, %f[%i] scope(device) : i32 -> memref<?xi32, #symm.heap>
    %r = symm.wait %f[%i] ge %x scope(system) backoff(200) : memref<?xi32, #symm.heap> -> i32
    %v = symm.load %buf[%i] from %p : memref<?xf32, #symm.heap> -> f32
    "test.use"(%r, %v) : (i32, f32) -> ()
    gpu.return
  }
}

// `reached` waits on the wrapping difference: a counter that wrapped past the
// largest i32 still counts as later.
// CHECK-LABEL: gpu.func @reached
// CHECK-SAME: (%[[F:.*]]: memref<?xi32, #symm.heap>, %[[I:.*]]: index, %[[E:.*]]: i32)
// CHECK: scf.while
// CHECK: %[[SEEN:.*]] = symm.load %[[F]][%[[I]]] ordering(acquire) scope(system)
// CHECK: %[[D:.*]] = arith.subi %[[SEEN]], %[[E]] : i32
// CHECK: %[[Z:.*]] = arith.constant 0 : i32
// CHECK: arith.cmpi sge, %[[D]], %[[Z]]
gpu.module @w {
  gpu.func @reached(%f: memref<?xi32, #symm.heap>, %i: index, %e: i32) kernel {
    %r = symm.wait %f[%i] reached %e scope(system) : memref<?xi32, #symm.heap> -> i32
    "test.use"(%r) : (i32) -> ()
    gpu.return
  }
}
