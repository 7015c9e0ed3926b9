// A compare-and-swap spin lock on rank 0 protects a plain read-modify-write of
// a counter on rank 0 by every thread of every rank.
// RUN: %symm_run -n 2 %s | FileCheck %s
// RUN: %symm_run -n 3 %s | FileCheck %s
// CHECK: [rank 0] lock ok
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @critical(%lock: memref<1xi32, #symm.heap>, %counter: memref<1xi32, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c10 = arith.constant 10 : index
      %root = arith.constant 0 : i32
      %free = arith.constant 0 : i32
      %held = arith.constant 1 : i32
      scf.for %k = %c0 to %c10 step %c1 {
        // Acquire: swap 0 -> 1, retrying with a back-off.
        scf.while : () -> () {
          %old = symm.atomic_cas %free, %held, %lock[%c0] on %root ordering(acquire) scope(system) : i32 -> memref<1xi32, #symm.heap>
          %busy = arith.cmpi ne, %old, %free : i32
          scf.condition(%busy)
        } do {
          symm.backoff 100
          scf.yield
        }
        %v = symm.load %counter[%c0] from %root : memref<1xi32, #symm.heap> -> i32
        %v1 = arith.addi %v, %held : i32
        symm.store %v1, %counter[%c0] to %root : i32 -> memref<1xi32, #symm.heap>
        symm.store %free, %lock[%c0] to %root ordering(release) scope(system) : i32 -> memref<1xi32, #symm.heap>
      }
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %lock = symm.alloc() : memref<1xi32, #symm.heap>
    %counter = symm.alloc() : memref<1xi32, #symm.heap>
    %init = gpu.alloc host_shared () : memref<1xi32>
    %zero = arith.constant 0 : i32
    memref.store %zero, %init[%c0] : memref<1xi32>
    gpu.memcpy %lock, %init : memref<1xi32, #symm.heap>, memref<1xi32>
    gpu.memcpy %counter, %init : memref<1xi32, #symm.heap>, memref<1xi32>
    symm.barrier
    gpu.launch_func @kernels::@critical blocks in (%c2, %c1, %c1) threads in (%c4, %c1, %c1) args(%lock : memref<1xi32, #symm.heap>, %counter : memref<1xi32, #symm.heap>)
    symm.barrier
    %me = symm.rank : i32
    %isRoot = arith.cmpi eq, %me, %zero : i32
    %result = scf.if %isRoot -> (i32) {
      gpu.memcpy %init, %counter : memref<1xi32>, memref<1xi32, #symm.heap>
      %got = memref.load %init[%c0] : memref<1xi32>
      %n = symm.world_size : i32
      %per = arith.constant 80 : i32
      %want = arith.muli %n, %per : i32
      %ok = arith.cmpi eq, %got, %want : i32
      %r = scf.if %ok -> (i32) {
        vector.print str "lock ok\n"
        scf.yield %zero : i32
      } else {
        vector.print str "lock FAILED, counter: "
        vector.print %got : i32
        %f = arith.constant 1 : i32
        scf.yield %f : i32
      }
      scf.yield %r : i32
    } else {
      scf.yield %zero : i32
    }
    symm.barrier
    return %result : i32
  }
}
