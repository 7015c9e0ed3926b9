// Kernels written inline with gpu.launch are outlined before symm lowering.
// RUN: %symm_run -n 2 %s | FileCheck %s
// CHECK-DAG: [rank 0] 1
// CHECK-DAG: [rank 1] 0
module attributes {gpu.container_module} {
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %buf = symm.alloc(%c32) : memref<?xi32, #symm.heap>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
      %me = symm.rank : i32
      %n = symm.world_size : i32
      %one = arith.constant 1 : i32
      %up = arith.addi %me, %one : i32
      %next = arith.remsi %up, %n : i32
      symm.store %me, %buf[%tx] to %next : i32 -> memref<?xi32, #symm.heap>
      gpu.terminator
    }
    symm.barrier
    %h = gpu.alloc host_shared () : memref<32xi32>
    %hv = memref.cast %h : memref<32xi32> to memref<?xi32>
    gpu.memcpy %hv, %buf : memref<?xi32>, memref<?xi32, #symm.heap>
    %v = memref.load %h[%c0] : memref<32xi32>
    vector.print %v : i32
    symm.barrier
    return
  }
}
