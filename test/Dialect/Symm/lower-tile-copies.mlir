// RUN: symm-opt %s -allow-unregistered-dialect -symm-lower-tile-copies -split-input-file -verify-diagnostics | FileCheck %s

// A get becomes cooperative copy loops on the translated source, ending with a
// workgroup barrier; a put's signal is raised by one thread after a
// symm.release_barrier at the signal's scope (whose release then covers every
// thread's stores). Waits are left to symm-lower-sync.
// CHECK-LABEL: gpu.func @tiles
// CHECK-SAME: (%[[SRC:.*]]: memref<4x10xf32, #symm.heap>, %[[DST:.*]]: memref<4x10xf32, #gpu.address_space<workgroup>>, %[[F:.*]]: memref<?xi32, #symm.heap>, %[[I:.*]]: index, %[[P:.*]]: i32, %[[X:.*]]: i32)
// CHECK: %[[TS:.*]] = symm.translate %[[SRC]] to %[[P]]
// CHECK: scf.for
// CHECK: vector.load %[[TS]]{{.*}} vector<4xf32>
// CHECK: gpu.barrier
// CHECK-NOT: symm.fence
// CHECK: symm.release_barrier scope(system)
// CHECK-NOT: symm.fence
// CHECK: scf.if
// CHECK: %[[TF:.*]] = symm.translate %[[F]] to %[[P]]
// CHECK-NEXT: symm.atomic_rmw add %[[X]], %[[TF]][%[[I]]] ordering(release) scope(system)
// CHECK: symm.wait %[[F]][%[[I]]] eq %[[X]]
gpu.module @m {
  gpu.func @tiles(%src: memref<4x10xf32, #symm.heap>, %dst: memref<4x10xf32, #gpu.address_space<workgroup>>, %f: memref<?xi32, #symm.heap>, %i: index, %p: i32, %x: i32) kernel {
    symm.get %src from %p to %dst : memref<4x10xf32, #symm.heap> -> memref<4x10xf32, #gpu.address_space<workgroup>>
    symm.put %dst to %src on %p signal(add %x, %f[%i] : memref<?xi32, #symm.heap>) scope(system) : memref<4x10xf32, #gpu.address_space<workgroup>> -> memref<4x10xf32, #symm.heap>
    %r = symm.wait %f[%i] eq %x scope(system) : memref<?xi32, #symm.heap> -> i32
    "test.use"(%r) : (i32) -> ()
    gpu.return
  }
}

// -----

gpu.module @m {
  func.func @outside_kernel(%s: memref<4xf32>, %d: memref<4xf32, #symm.heap>, %p: i32) {
    // expected-error @+1 {{'symm.put' op is workgroup-cooperative and must be inside a GPU kernel (gpu.func or gpu.launch)}}
    symm.put %s to %d on %p : memref<4xf32> -> memref<4xf32, #symm.heap>
    return
  }
}
