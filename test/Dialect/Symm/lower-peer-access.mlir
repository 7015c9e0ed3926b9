// RUN: symm-opt %s -allow-unregistered-dialect -symm-lower-peer-access | FileCheck %s

// Peer accesses become translate + local access; synchronisation and tile
// copies are left to their own passes, and nothing is hoisted.
// CHECK-LABEL: gpu.func @peer
// CHECK-SAME: (%[[BUF:.*]]: memref<?xf32, #symm.heap>, %[[FLAGS:.*]]: memref<?xi32, #symm.heap>, %[[I:.*]]: index, %[[P:.*]]: i32, %[[X:.*]]: i32)
// CHECK: %[[TB:.*]] = symm.translate %[[BUF]] to %[[P]]
// CHECK: %[[V:.*]] = memref.load %[[TB]][%[[I]]]
// CHECK: %[[TB2:.*]] = symm.translate %[[BUF]] to %[[P]]
// CHECK: memref.store %[[V]], %[[TB2]][%[[I]]]
// CHECK: %[[TF:.*]] = symm.translate %[[FLAGS]] to %[[P]]
// CHECK: symm.atomic_rmw add %[[X]], %[[TF]][%[[I]]] ordering(acq_rel) scope(system) : i32 -> memref
// CHECK: symm.wait %[[FLAGS]][%[[I]]] from %[[P]]
// CHECK: symm.put
gpu.module @m {
  gpu.func @peer(%buf: memref<?xf32, #symm.heap>, %flags: memref<?xi32, #symm.heap>, %i: index, %p: i32, %x: i32) kernel {
    %v = symm.load %buf[%i] from %p : memref<?xf32, #symm.heap> -> f32
    symm.store %v, %buf[%i] to %p : f32 -> memref<?xf32, #symm.heap>
    %o = symm.atomic_rmw add %x, %flags[%i] on %p ordering(acq_rel) scope(system) : i32 -> memref<?xi32, #symm.heap>
    %w = symm.wait %flags[%i] from %p eq %x scope(system) : memref<?xi32, #symm.heap> -> i32
    symm.put %buf to %buf on %p : memref<?xf32, #symm.heap> -> memref<?xf32, #symm.heap>
    gpu.return
  }
}
