// A kernel whose blocks wait for its last block needs every block resident at
// once. With 3 resident blocks it runs; with 2, the last block never starts,
// as on a GPU with room for 2 blocks, and the CPU target reports it instead
// of hanging.
// REQUIRES: backend-host
// RUN: env SYMM_HOST_RESIDENT_BLOCKS=3 %symm_run -n 2 %s | FileCheck %s --check-prefix=OK
// RUN: env SYMM_HOST_RESIDENT_BLOCKS=2 SYMM_HOST_DEADLOCK_SECONDS=0.5 not %symm_run -n 2 %s 2>&1 | FileCheck %s --check-prefix=DEADLOCK
// OK-DAG: [rank 0] coresidency ok
// OK-DAG: [rank 1] coresidency ok
// DEADLOCK: rank {{[01]}}: kernel 'needs_all' needs more than 2 co-resident blocks: its 2 resident blocks have waited {{.*}} s without progress on any rank while 1 of its 3 blocks could not start
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @needs_all(%flag: memref<1xi32, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %one = arith.constant 1 : i32
      %b = gpu.block_id x
      %g = gpu.grid_dim x
      %lastIndex = arith.subi %g, %c1 : index
      %last = arith.cmpi eq, %b, %lastIndex : index
      scf.if %last {
        symm.signal set %one, %flag[%c0] scope(device) : i32 -> memref<1xi32, #symm.heap>
      } else {
        %seen = symm.wait %flag[%c0] ge %one scope(device) : memref<1xi32, #symm.heap> -> i32
      }
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
    gpu.launch_func @kernels::@needs_all blocks in (%c3, %c1, %c1) threads in (%c32, %c1, %c1) args(%flag : memref<1xi32, #symm.heap>)
    vector.print str "coresidency ok\n"
    return %zero : i32
  }
}
