// Blocks that wait for a flag another rank raises late are not reported as
// needing more co-resident blocks: rank 0 runs 3 blocks, 2 resident, that all
// wait for rank 1, which first computes for a while (far longer than the
// deadlock timeout) in a kernel of its own, then raises the flag.
// REQUIRES: backend-host
// RUN: env SYMM_HOST_RESIDENT_BLOCKS=2 SYMM_HOST_DEADLOCK_SECONDS=0.1 %symm_run -n 2 %s | FileCheck %s
// CHECK-DAG: [rank 0] late flag ok
// CHECK-DAG: [rank 1] late flag ok
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @waiter(%flag: memref<1xi32, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %seen = symm.wait %flag[%c0] ge %one scope(system) : memref<1xi32, #symm.heap> -> i32
      gpu.return
    }
    // `iters` atomic additions (which the compiler keeps), then the flag on
    // rank 0.
    gpu.func @late(%flag: memref<1xi32, #symm.heap>, %iters: i64, %out: memref<1xi64>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %zero = arith.constant 0 : i32
      %i0 = arith.constant 0 : i64
      %i1 = arith.constant 1 : i64
      scf.for %i = %i0 to %iters step %i1 : i64 {
        %old = memref.atomic_rmw addi %i1, %out[%c0] : (i64, memref<1xi64>) -> i64
      }
      symm.signal set %one, %flag[%c0] on %zero scope(system) : i32 -> memref<1xi32, #symm.heap>
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0 : i32
    %flag = symm.alloc() : memref<1xi32, #symm.heap>
    %init = gpu.alloc host_shared () : memref<1xi32>
    memref.store %zero, %init[%c0] : memref<1xi32>
    gpu.memcpy %flag, %init : memref<1xi32, #symm.heap>, memref<1xi32>
    symm.barrier
    %me = symm.rank : i32
    %root = arith.cmpi eq, %me, %zero : i32
    scf.if %root {
      gpu.launch_func @kernels::@waiter blocks in (%c3, %c1, %c1) threads in (%c32, %c1, %c1) args(%flag : memref<1xi32, #symm.heap>)
    } else {
      %iters = arith.constant 40000000 : i64
      %out = gpu.alloc host_shared () : memref<1xi64>
      gpu.launch_func @kernels::@late blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%flag : memref<1xi32, #symm.heap>, %iters : i64, %out : memref<1xi64>)
    }
    symm.barrier
    vector.print str "late flag ok\n"
    return %zero : i32
  }
}
