// A kernel whose thread needs a 4 MiB private array, more than its 512 KiB
// stack, faults in the guard page below the stack (kernels probe their
// frames page by page) and the CPU target names the thread and the kernel,
// instead of writing over another thread's stack.
// REQUIRES: backend-host
// RUN: not %symm_run -n 1 %s 2>&1 | FileCheck %s
// CHECK: [rank 0] symm: rank 0: thread (0, 0, 0) of block (0, 0, 0) of kernel 'big_private' overflowed its 512 KiB stack
// CHECK-NOT: stored
// CHECK: symm-run: rank 0 was killed by signal 11
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @big_private(%out: memref<1xi32>) kernel {
      %c0 = arith.constant 0 : index
      %top = arith.constant 1048575 : index
      %one = arith.constant 1 : i32
      // Indices and values the compiler cannot fold, so the array stays.
      %t = gpu.thread_id x
      %far = arith.subi %top, %t : index
      %ti = arith.index_cast %t : index to i32
      %tj = arith.addi %ti, %one : i32
      %buf = memref.alloca() : memref<1048576xi32>
      memref.store %ti, %buf[%t] : memref<1048576xi32>
      memref.store %tj, %buf[%far] : memref<1048576xi32>
      %a = memref.load %buf[%t] : memref<1048576xi32>
      %b = memref.load %buf[%far] : memref<1048576xi32>
      %s = arith.addi %a, %b : i32
      memref.store %s, %out[%c0] : memref<1xi32>
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c1 = arith.constant 1 : index
    %out = gpu.alloc host_shared () : memref<1xi32>
    gpu.launch_func @kernels::@big_private blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%out : memref<1xi32>)
    vector.print str "stored\n"
    %zero = arith.constant 0 : i32
    return %zero : i32
  }
}
