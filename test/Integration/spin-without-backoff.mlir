// A spin loop without back-off: thread 0 of each block waits, with plain
// acquire loads, for a flag that thread 63 of its block raises. On a GPU the
// warps of a block run independently; on the CPU target thread 0 runs first
// and does not switch by itself, so it must be preempted for thread 63 to run.
// RUN: %symm_run -n 2 %s | FileCheck %s
// CHECK-DAG: [rank 0] spin without back-off ok
// CHECK-DAG: [rank 1] spin without back-off ok
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @spin(%flags: memref<4xi32, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %c63 = arith.constant 63 : index
      %one = arith.constant 1 : i32
      %b = gpu.block_id x
      %t = gpu.thread_id x
      %first = arith.cmpi eq, %t, %c0 : index
      %last = arith.cmpi eq, %t, %c63 : index
      scf.if %first {
        scf.while : () -> () {
          %v = symm.load %flags[%b] ordering(acquire) scope(workgroup) : memref<4xi32, #symm.heap> -> i32
          %waiting = arith.cmpi ne, %v, %one : i32
          scf.condition(%waiting)
        } do {
          scf.yield
        }
      }
      scf.if %last {
        symm.store %one, %flags[%b] ordering(release) scope(workgroup) : i32 -> memref<4xi32, #symm.heap>
      }
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0 : i32
    %flags = symm.alloc() : memref<4xi32, #symm.heap>
    %init = gpu.alloc host_shared () : memref<4xi32>
    linalg.fill ins(%zero : i32) outs(%init : memref<4xi32>)
    gpu.memcpy %flags, %init : memref<4xi32, #symm.heap>, memref<4xi32>
    gpu.launch_func @kernels::@spin blocks in (%c4, %c1, %c1) threads in (%c64, %c1, %c1) args(%flags : memref<4xi32, #symm.heap>)
    vector.print str "spin without back-off ok\n"
    return %zero : i32
  }
}
