// Threads that fill workgroup memory and read their neighbour's element
// without a barrier between: the race detector reports both accesses, in
// workgroup memory. With the barrier (@with_barrier, first) it is race-free.
// REQUIRES: backend-host
// RUN: not %symm_run --check-races -n 1 %s 2>&1 | FileCheck %s
// CHECK-NOT: with_barrier
// CHECK: data race on byte {{[0-9]+}} of the workgroup memory of block ([[B:[01]]], 0, 0) of rank 0:
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @with_barrier(%out: memref<128xi32, #symm.heap>) workgroup(%tile: memref<64xi32, #gpu.address_space<workgroup>>) kernel {
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %b = gpu.block_id x
      %t = gpu.thread_id x
      %v = arith.index_cast %t : index to i32
      memref.store %v, %tile[%t] : memref<64xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %n0 = arith.addi %t, %c1 : index
      %n = arith.remui %n0, %c64 : index
      %w = memref.load %tile[%n] : memref<64xi32, #gpu.address_space<workgroup>>
      %base = arith.muli %b, %c64 : index
      %at = arith.addi %base, %t : index
      memref.store %w, %out[%at] : memref<128xi32, #symm.heap>
      gpu.return
    }
    gpu.func @without_barrier(%out: memref<128xi32, #symm.heap>) workgroup(%tile: memref<64xi32, #gpu.address_space<workgroup>>) kernel {
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %b = gpu.block_id x
      %t = gpu.thread_id x
      %v = arith.index_cast %t : index to i32
      // CHECK-DAG: write of 4 bytes by rank 0, block ([[B]], 0, 0), thread ({{[0-9]+}}, 0, 0) of kernel 'without_barrier': memref.store at {{.*}}missing-barrier.mlir:[[#@LINE+1]]:
      memref.store %v, %tile[%t] : memref<64xi32, #gpu.address_space<workgroup>>
      %n0 = arith.addi %t, %c1 : index
      %n = arith.remui %n0, %c64 : index
      // CHECK-DAG: read of 4 bytes by rank 0, block ([[B]], 0, 0), thread ({{[0-9]+}}, 0, 0) of kernel 'without_barrier': memref.load at {{.*}}missing-barrier.mlir:[[#@LINE+1]]:
      %w = memref.load %tile[%n] : memref<64xi32, #gpu.address_space<workgroup>>
      %base = arith.muli %b, %c64 : index
      %at = arith.addi %base, %t : index
      memref.store %w, %out[%at] : memref<128xi32, #symm.heap>
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %out = symm.alloc() : memref<128xi32, #symm.heap>
    gpu.launch_func @kernels::@with_barrier blocks in (%c2, %c1, %c1) threads in (%c64, %c1, %c1) args(%out : memref<128xi32, #symm.heap>)
    // CHECK: kernel 'without_barrier': {{[0-9]+}} racing accesses (reported above)
    gpu.launch_func @kernels::@without_barrier blocks in (%c2, %c1, %c1) threads in (%c64, %c1, %c1) args(%out : memref<128xi32, #symm.heap>)
    symm.barrier
    return
  }
}
