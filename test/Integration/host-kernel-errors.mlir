// A kernel that asks the CPU target for more than it provides fails its
// launch with a message naming the kernel and the rank, and the program exits
// non-zero instead of hanging in its exit handlers.
// REQUIRES: backend-host
// RUN: not %symm_run -n 2 %s 2>&1 | FileCheck %s
// CHECK: [rank {{[01]}}] symm: synchronising a stream failed: rank {{[01]}}: kernel 'big_shared' needs 80000 bytes of static workgroup memory; the CPU target provides 49152
// CHECK: symm-run: rank {{[01]}} exited with status 1
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @big_shared(%out: memref<1xi32>) workgroup(%sh: memref<20000xi32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %sh[%c0] : memref<20000xi32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%c0] : memref<1xi32>
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %out = gpu.alloc host_shared () : memref<1xi32>
    gpu.launch_func @kernels::@big_shared blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%out : memref<1xi32>)
    %zero = arith.constant 0 : i32
    return %zero : i32
  }
}
