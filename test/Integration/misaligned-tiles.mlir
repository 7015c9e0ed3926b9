// Tiles that do not start on 16-byte boundaries: when source and destination
// share the misalignment the put peels to the boundary and uses 16-byte
// accesses for the rest; when they differ it copies element by element. Both
// must deliver every element.
// RUN: %symm_run -n 2 %s | FileCheck %s
// RUN: %symm_run -n 3 %s | FileCheck %s
// CHECK-DAG: [rank 0] misaligned ok
// CHECK-DAG: [rank 1] misaligned ok
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @fill(%src: memref<128xf32, #symm.heap>) kernel {
      %i = gpu.thread_id x
      %me = symm.rank : i32
      %c1000 = arith.constant 1000 : i32
      %base = arith.muli %me, %c1000 : i32
      %ii = arith.index_cast %i : index to i32
      %v = arith.addi %base, %ii : i32
      %f = arith.sitofp %v : i32 to f32
      memref.store %f, %src[%i] : memref<128xf32, #symm.heap>
      gpu.return
    }
    gpu.func @push(%src: memref<128xf32, #symm.heap>, %same: memref<128xf32, #symm.heap>, %other: memref<128xf32, #symm.heap>) kernel {
      %one = arith.constant 1 : i32
      %me = symm.rank : i32
      %n = symm.world_size : i32
      %up = arith.addi %me, %one : i32
      %next = arith.remsi %up, %n : i32
      // Same phase: both start one element past a 16-byte boundary.
      %a = memref.subview %src[1] [61] [1] : memref<128xf32, #symm.heap> to memref<61xf32, strided<[1], offset: 1>, #symm.heap>
      %b = memref.subview %same[5] [61] [1] : memref<128xf32, #symm.heap> to memref<61xf32, strided<[1], offset: 5>, #symm.heap>
      symm.put %a to %b on %next : memref<61xf32, strided<[1], offset: 1>, #symm.heap> -> memref<61xf32, strided<[1], offset: 5>, #symm.heap>
      // Different phases: two elements past versus one.
      %c = memref.subview %src[2] [61] [1] : memref<128xf32, #symm.heap> to memref<61xf32, strided<[1], offset: 2>, #symm.heap>
      %d = memref.subview %other[1] [61] [1] : memref<128xf32, #symm.heap> to memref<61xf32, strided<[1], offset: 1>, #symm.heap>
      symm.put %c to %d on %next : memref<61xf32, strided<[1], offset: 2>, #symm.heap> -> memref<61xf32, strided<[1], offset: 1>, #symm.heap>
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c5 = arith.constant 5 : index
    %c16 = arith.constant 16 : index
    %c61 = arith.constant 61 : index
    %c128 = arith.constant 128 : index
    %src = symm.alloc() : memref<128xf32, #symm.heap>
    %same = symm.alloc() : memref<128xf32, #symm.heap>
    %other = symm.alloc() : memref<128xf32, #symm.heap>
    gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1) args(%src : memref<128xf32, #symm.heap>)
    symm.barrier
    gpu.launch_func @kernels::@push blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%src : memref<128xf32, #symm.heap>, %same : memref<128xf32, #symm.heap>, %other : memref<128xf32, #symm.heap>)
    symm.barrier
    %hs = gpu.alloc host_shared () : memref<128xf32>
    %ho = gpu.alloc host_shared () : memref<128xf32>
    gpu.memcpy %hs, %same : memref<128xf32>, memref<128xf32, #symm.heap>
    gpu.memcpy %ho, %other : memref<128xf32>, memref<128xf32, #symm.heap>
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %me = symm.rank : i32
    %n = symm.world_size : i32
    %d0 = arith.addi %me, %n : i32
    %d1 = arith.subi %d0, %one : i32
    %prev = arith.remsi %d1, %n : i32
    %c1000 = arith.constant 1000 : i32
    %base = arith.muli %prev, %c1000 : i32
    %errors = scf.for %k = %c0 to %c61 step %c1 iter_args(%e = %zero) -> (i32) {
      // same[5 + k] = prev's src[1 + k]; other[1 + k] = prev's src[2 + k].
      %ki = arith.index_cast %k : index to i32
      %w1 = arith.addi %base, %ki : i32
      %w1b = arith.addi %w1, %one : i32
      %w2 = arith.addi %w1b, %one : i32
      %f1 = arith.sitofp %w1b : i32 to f32
      %f2 = arith.sitofp %w2 : i32 to f32
      %i1 = arith.addi %k, %c5 : index
      %i2 = arith.addi %k, %c1 : index
      %g1 = memref.load %hs[%i1] : memref<128xf32>
      %g2 = memref.load %ho[%i2] : memref<128xf32>
      %b1 = arith.cmpf une, %g1, %f1 : f32
      %b2 = arith.cmpf une, %g2, %f2 : f32
      %bad = arith.ori %b1, %b2 : i1
      %inc = arith.extui %bad : i1 to i32
      %e2 = arith.addi %e, %inc : i32
      scf.yield %e2 : i32
    }
    %ok = arith.cmpi eq, %errors, %zero : i32
    scf.if %ok {
      vector.print str "misaligned ok\n"
    } else {
      vector.print str "misaligned FAILED, wrong elements: "
      vector.print %errors : i32
    }
    symm.barrier
    return %errors : i32
  }
}
