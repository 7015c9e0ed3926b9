// A kernel that recurses deeper than its thread's stack faults in the guard
// page below the stack, and the CPU target says which thread of which kernel
// overflowed before the rank ends like any crash.
// REQUIRES: backend-host
// RUN: not %symm_run -n 2 %s 2>&1 | FileCheck %s
// CHECK: [rank {{[01]}}] symm: rank {{[01]}}: thread (0, 0, 0) of block (1, 0, 0) of kernel 'recurse' overflowed its 512 KiB stack
// CHECK: symm-run: rank {{[01]}} was killed by signal 11
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // Each call keeps 1 KiB on the stack, which the next call reads (so it
    // stays in memory), until the recursion returns.
    func.func @deep(%n: i32, %parent: memref<256xi32>) -> i32 {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %buf = memref.alloca() : memref<256xi32>
      %up = memref.load %parent[%c0] : memref<256xi32>
      %mine = arith.addi %up, %n : i32
      memref.store %mine, %buf[%c0] : memref<256xi32>
      %done = arith.cmpi eq, %n, %zero : i32
      %r = scf.if %done -> (i32) {
        scf.yield %mine : i32
      } else {
        %m = arith.subi %n, %one : i32
        %below = func.call @deep(%m, %buf) : (i32, memref<256xi32>) -> i32
        %s = arith.subi %below, %mine : i32
        scf.yield %s : i32
      }
      return %r : i32
    }
    gpu.func @recurse(%out: memref<2xi32>) kernel {
      %c0 = arith.constant 0 : index
      %b = gpu.block_id x
      %t = gpu.thread_id x
      %first = arith.cmpi eq, %t, %c0 : index
      %bi = arith.index_cast %b : index to i32
      %c100 = arith.constant 100 : i32
      %c100000 = arith.constant 100000 : i32
      // Block 0 stays well within its stack; block 1 does not.
      %one = arith.constant 1 : i32
      %isB1 = arith.cmpi eq, %bi, %one : i32
      %depth = arith.select %isB1, %c100000, %c100 : i32
      scf.if %first {
        %root = memref.alloca() : memref<256xi32>
        %zero = arith.constant 0 : i32
        memref.store %zero, %root[%c0] : memref<256xi32>
        %r = func.call @deep(%depth, %root) : (i32, memref<256xi32>) -> i32
        memref.store %r, %out[%b] : memref<2xi32>
      }
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %out = gpu.alloc host_shared () : memref<2xi32>
    gpu.launch_func @kernels::@recurse blocks in (%c2, %c1, %c1) threads in (%c32, %c1, %c1) args(%out : memref<2xi32>)
    %zero = arith.constant 0 : i32
    return %zero : i32
  }
}
