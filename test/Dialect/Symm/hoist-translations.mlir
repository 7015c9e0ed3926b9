// RUN: symm-opt %s -allow-unregistered-dialect -symm-hoist-translations -split-input-file | FileCheck %s

// Translations leave loops with the rank arithmetic of their peer, and equal
// translations are merged.
// CHECK-LABEL: gpu.func @hoist
// CHECK: %[[ME:.*]] = symm.rank
// CHECK: %[[PEER:.*]] = arith.addi %[[ME]]
// CHECK: %[[T:.*]] = symm.translate %{{.*}} to %[[PEER]]
// CHECK-NOT: symm.translate
// CHECK: scf.for
// CHECK: memref.load %[[T]]
// CHECK: memref.store %{{.*}}, %[[T]]
gpu.module @m {
  gpu.func @hoist(%buf: memref<?xf32, #symm.heap>, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      %me = symm.rank : i32
      %one = arith.constant 1 : i32
      %p = arith.addi %me, %one : i32
      %t = symm.translate %buf to %p : memref<?xf32, #symm.heap>
      %v = memref.load %t[%i] : memref<?xf32, #symm.heap>
      %u = symm.translate %buf to %p : memref<?xf32, #symm.heap>
      memref.store %v, %u[%i] : memref<?xf32, #symm.heap>
    }
    gpu.return
  }
}

// -----

// Only translations and what they use leave the loop: other loop-invariant
// code stays, and equal constants are not merged.
// CHECK-LABEL: gpu.func @only_translations
// CHECK: scf.for
// CHECK: arith.constant 2 : index
// CHECK: arith.constant 2 : index
// CHECK: arith.muli
// CHECK: memref.store
gpu.module @m {
  gpu.func @only_translations(%buf: memref<?xindex>, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      %a = arith.constant 2 : index
      %b = arith.constant 2 : index
      %y = arith.muli %a, %b : index
      memref.store %y, %buf[%i] : memref<?xindex>
    }
    gpu.return
  }
}
