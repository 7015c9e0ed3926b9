// RUN: symm-opt %s -canonicalize -split-input-file | FileCheck %s
// RUN: symm-opt %s -cse -split-input-file | FileCheck %s --check-prefix=CSE
// RUN: symm-opt %s -loop-invariant-code-motion -split-input-file | FileCheck %s --check-prefix=LICM

// CHECK-LABEL: func.func @translate_to_self
// CHECK-SAME: (%[[BUF:.*]]: memref<?xf32, #symm.heap>)
// CHECK-NOT: symm.translate
// CHECK: return %[[BUF]]
gpu.module @m {
  func.func @translate_to_self(%buf: memref<?xf32, #symm.heap>) -> memref<?xf32, #symm.heap> {
    %me = symm.rank : i32
    %t = symm.translate %buf to %me : memref<?xf32, #symm.heap>
    return %t : memref<?xf32, #symm.heap>
  }
}

// -----

// CHECK-LABEL: func.func @translate_of_translate
// CHECK-SAME: (%[[BUF:.*]]: memref<?xf32, #symm.heap>, %[[P:.*]]: i32, %[[Q:.*]]: i32)
// CHECK: %[[A:.*]] = symm.translate %[[BUF]] to %[[P]]
// CHECK-NEXT: %[[B:.*]] = symm.translate %[[BUF]] to %[[P]]
// CHECK-NEXT: %[[C:.*]] = symm.translate %[[BUF]] to %[[Q]]
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]]
gpu.module @m {
  func.func @translate_of_translate(%buf: memref<?xf32, #symm.heap>, %p: i32, %q: i32)
      -> (memref<?xf32, #symm.heap>, memref<?xf32, #symm.heap>, memref<?xf32, #symm.heap>) {
    %a = symm.translate %buf to %p : memref<?xf32, #symm.heap>
    %b = symm.translate %a to %p : memref<?xf32, #symm.heap>
    %c = symm.translate %a to %q : memref<?xf32, #symm.heap>
    return %a, %b, %c : memref<?xf32, #symm.heap>, memref<?xf32, #symm.heap>, memref<?xf32, #symm.heap>
  }
}

// -----

// A translate of a translate back to this rank is the original view.
// CHECK-LABEL: func.func @round_trip
// CHECK-SAME: (%[[BUF:.*]]: memref<?xf32, #symm.heap>, %{{.*}}: i32)
// CHECK-NOT: symm.translate
// CHECK: return %[[BUF]]
gpu.module @m {
  func.func @round_trip(%buf: memref<?xf32, #symm.heap>, %p: i32) -> memref<?xf32, #symm.heap> {
    %me = symm.rank : i32
    %a = symm.translate %buf to %p : memref<?xf32, #symm.heap>
    %b = symm.translate %a to %me : memref<?xf32, #symm.heap>
    return %b : memref<?xf32, #symm.heap>
  }
}

// -----

// Pure queries and translations are merged; unused ones are dropped. Plain
// loads merge, ordered loads never do.
// CSE-LABEL: func.func @cse
// CSE-COUNT-1: symm.rank
// CSE-COUNT-1: symm.translate
// CSE: symm.load %{{.*}}[%{{.*}}] : memref<?xf32, #symm.heap> -> f32
// CSE-NOT: symm.load %{{.*}}[%{{.*}}] : memref<?xf32, #symm.heap> -> f32
// CSE-COUNT-2: ordering(acquire)
gpu.module @m {
  func.func @cse(%buf: memref<?xf32, #symm.heap>, %f: memref<?xi32, #symm.heap>, %p: i32, %i: index) -> (i32, i32, memref<?xf32, #symm.heap>, memref<?xf32, #symm.heap>, f32, f32, i32, i32) {
    %r0 = symm.rank : i32
    %r1 = symm.rank : i32
    %t0 = symm.translate %buf to %p : memref<?xf32, #symm.heap>
    %t1 = symm.translate %buf to %p : memref<?xf32, #symm.heap>
    %l0 = symm.load %buf[%i] : memref<?xf32, #symm.heap> -> f32
    %l1 = symm.load %buf[%i] : memref<?xf32, #symm.heap> -> f32
    %a0 = symm.load %f[%i] ordering(acquire) scope(system) : memref<?xi32, #symm.heap> -> i32
    %a1 = symm.load %f[%i] ordering(acquire) scope(system) : memref<?xi32, #symm.heap> -> i32
    return %r0, %r1, %t0, %t1, %l0, %l1, %a0, %a1 : i32, i32, memref<?xf32, #symm.heap>, memref<?xf32, #symm.heap>, f32, f32, i32, i32
  }
}

// -----

// Translations leave loops; a polling acquire load stays inside.
// LICM-LABEL: func.func @licm
// LICM: symm.translate
// LICM: scf.for
// LICM: symm.load {{.*}} ordering(acquire)
gpu.module @m {
  func.func @licm(%buf: memref<?xi32, #symm.heap>, %p: i32, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %k = %c0 to %n step %c1 {
      %t = symm.translate %buf to %p : memref<?xi32, #symm.heap>
      %v = symm.load %t[%c0] ordering(acquire) scope(system) : memref<?xi32, #symm.heap> -> i32
    }
    return
  }
}
