// The detector's bounds are reported, not exceeded: a thread that makes more
// than 65535 releases between two barriers (its clock's limit) fails its
// launch with a message saying so.
// REQUIRES: backend-host
// RUN: not %symm_run --check-races -n 1 %s 2>&1 | FileCheck %s
// CHECK: kernel 'releases': the race detector stopped: a thread of kernel 'releases' made more than 65535 releases between two barriers
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @releases(%flag: memref<1xi32, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %n = arith.constant 70000 : index
      scf.for %i = %c0 to %n step %c1 {
        %v = arith.index_cast %i : index to i32
        symm.store %v, %flag[%c0] ordering(release) scope(device) : i32 -> memref<1xi32, #symm.heap>
      }
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %flag = symm.alloc() : memref<1xi32, #symm.heap>
    gpu.launch_func @kernels::@releases blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%flag : memref<1xi32, #symm.heap>)
    symm.barrier
    return
  }
}
