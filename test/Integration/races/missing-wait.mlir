// A consumer that reads a tile without waiting for the producer's signal:
// the race detector reports the producer's remote store and the consumer's
// load, with their ranks, blocks, threads, operations and lines. The same
// exchange with the wait (@with_wait, first) is race-free.
// REQUIRES: backend-host
// RUN: not %symm_run --check-races -n 2 %s 2>&1 | FileCheck %s
// CHECK-NOT: with_wait
// CHECK: data race on rank 0's heap at offset {{[0-9]+}}: element {{[0-9]+}} of 4 bytes of heap allocation #0
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @with_wait(%data: memref<64xi32, #symm.heap>, %flag: memref<1xi32, #symm.heap>, %out: memref<64xi32, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %me = symm.rank : i32
      %t = gpu.thread_id x
      %first = arith.cmpi eq, %t, %c0 : index
      %producer = arith.cmpi eq, %me, %one : i32
      scf.if %producer {
        %v = arith.index_cast %t : index to i32
        %zero = arith.constant 0 : i32
        symm.store %v, %data[%t] to %zero : i32 -> memref<64xi32, #symm.heap>
        symm.fence ordering(release) scope(system)
        gpu.barrier
        scf.if %first {
          symm.signal add %one, %flag[%c0] on %zero scope(system) : i32 -> memref<1xi32, #symm.heap>
        }
      } else {
        scf.if %first {
          %seen = symm.wait %flag[%c0] ge %one scope(system) : memref<1xi32, #symm.heap> -> i32
        }
        gpu.barrier
        %v = symm.load %data[%t] : memref<64xi32, #symm.heap> -> i32
        memref.store %v, %out[%t] : memref<64xi32, #symm.heap>
      }
      gpu.return
    }
    gpu.func @without_wait(%data: memref<64xi32, #symm.heap>, %flag: memref<1xi32, #symm.heap>, %out: memref<64xi32, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %me = symm.rank : i32
      %t = gpu.thread_id x
      %first = arith.cmpi eq, %t, %c0 : index
      %producer = arith.cmpi eq, %me, %one : i32
      scf.if %producer {
        %v = arith.index_cast %t : index to i32
        %zero = arith.constant 0 : i32
        // CHECK-DAG: write of 4 bytes by rank 1, block (0, 0, 0), thread ({{[0-9]+}}, 0, 0) of kernel 'without_wait': symm.store at {{.*}}missing-wait.mlir:[[#@LINE+1]]:
        symm.store %v, %data[%t] to %zero : i32 -> memref<64xi32, #symm.heap>
        symm.fence ordering(release) scope(system)
        gpu.barrier
        scf.if %first {
          symm.signal add %one, %flag[%c0] on %zero scope(system) : i32 -> memref<1xi32, #symm.heap>
        }
      } else {
        gpu.barrier
        // CHECK-DAG: read of 4 bytes by rank 0, block (0, 0, 0), thread ({{[0-9]+}}, 0, 0) of kernel 'without_wait': symm.load at {{.*}}missing-wait.mlir:[[#@LINE+1]]:
        %v = symm.load %data[%t] : memref<64xi32, #symm.heap> -> i32
        memref.store %v, %out[%t] : memref<64xi32, #symm.heap>
      }
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %data = symm.alloc() : memref<64xi32, #symm.heap>
    %flag = symm.alloc() : memref<1xi32, #symm.heap>
    %out = symm.alloc() : memref<64xi32, #symm.heap>
    symm.barrier
    gpu.launch_func @kernels::@with_wait blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%data : memref<64xi32, #symm.heap>, %flag : memref<1xi32, #symm.heap>, %out : memref<64xi32, #symm.heap>)
    symm.barrier
    // CHECK: kernel 'without_wait': {{[0-9]+}} racing accesses (reported above)
    gpu.launch_func @kernels::@without_wait blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%data : memref<64xi32, #symm.heap>, %flag : memref<1xi32, #symm.heap>, %out : memref<64xi32, #symm.heap>)
    symm.barrier
    return
  }
}
