// Every thread of every rank adds 1 (and its rank) into counters on rank 0
// with system-scope atomics; rank 0 checks the totals.
// RUN: %symm_run -n 2 %s | FileCheck %s
// RUN: %symm_run -n 4 %s | FileCheck %s
// CHECK: [rank 0] counter ok
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @add(%counter: memref<2xi64, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %root = arith.constant 0 : i32
      %one = arith.constant 1 : i64
      %me = symm.rank : i32
      %me64 = arith.extsi %me : i32 to i64
      %a = symm.atomic_rmw add %one, %counter[%c0] on %root ordering(relaxed) scope(system) : i64 -> memref<2xi64, #symm.heap>
      %b = symm.atomic_rmw add %me64, %counter[%c1] on %root ordering(acq_rel) scope(system) : i64 -> memref<2xi64, #symm.heap>
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c16 = arith.constant 16 : index
    %counter = symm.alloc() : memref<2xi64, #symm.heap>
    %zero = arith.constant 0 : i64
    %init = gpu.alloc host_shared () : memref<2xi64>
    memref.store %zero, %init[%c0] : memref<2xi64>
    memref.store %zero, %init[%c1] : memref<2xi64>
    gpu.memcpy %counter, %init : memref<2xi64, #symm.heap>, memref<2xi64>
    symm.barrier
    gpu.launch_func @kernels::@add blocks in (%c3, %c1, %c1) threads in (%c16, %c1, %c1) args(%counter : memref<2xi64, #symm.heap>)
    symm.barrier
    %me = symm.rank : i32
    %root = arith.constant 0 : i32
    %isRoot = arith.cmpi eq, %me, %root : i32
    %result = scf.if %isRoot -> (i32) {
      gpu.memcpy %init, %counter : memref<2xi64>, memref<2xi64, #symm.heap>
      %n = symm.world_size : i32
      %n64 = arith.extsi %n : i32 to i64
      %per = arith.constant 48 : i64
      %want0 = arith.muli %n64, %per : i64
      // sum of ranks 0..n-1, times 48 threads
      %one64 = arith.constant 1 : i64
      %nm1 = arith.subi %n64, %one64 : i64
      %tri0 = arith.muli %n64, %nm1 : i64
      %two = arith.constant 2 : i64
      %tri = arith.divsi %tri0, %two : i64
      %want1 = arith.muli %tri, %per : i64
      %got0 = memref.load %init[%c0] : memref<2xi64>
      %got1 = memref.load %init[%c1] : memref<2xi64>
      %ok0 = arith.cmpi eq, %got0, %want0 : i64
      %ok1 = arith.cmpi eq, %got1, %want1 : i64
      %ok = arith.andi %ok0, %ok1 : i1
      %r = scf.if %ok -> (i32) {
        vector.print str "counter ok\n"
        %z = arith.constant 0 : i32
        scf.yield %z : i32
      } else {
        vector.print str "counter FAILED: "
        vector.print %got0 : i64
        vector.print %got1 : i64
        %f = arith.constant 1 : i32
        scf.yield %f : i32
      }
      scf.yield %r : i32
    } else {
      %z = arith.constant 0 : i32
      scf.yield %z : i32
    }
    symm.barrier
    return %result : i32
  }
}
