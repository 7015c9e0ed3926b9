// A producer that raises its flag with a relaxed atomic instead of a release:
// the consumer's acquire then orders nothing, and the race detector reports
// the data's store and load. With the release (@released, first) it is
// race-free.
// REQUIRES: backend-host
// RUN: not %symm_run --check-races -n 2 %s 2>&1 | FileCheck %s
// CHECK-NOT: released
// CHECK: data race on rank 1's heap at offset {{[0-9]+}}: element {{[0-9]+}} of 4 bytes of heap allocation #0
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // Rank 0 writes 32 elements into rank 1's `data`, then raises rank 1's
    // flag; rank 1 waits for it and reads them.
    gpu.func @released(%data: memref<32xi32, #symm.heap>, %flag: memref<1xi32, #symm.heap>, %sum: memref<1xi32, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %zero = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %me = symm.rank : i32
      %producer = arith.cmpi eq, %me, %zero : i32
      scf.if %producer {
        scf.for %i = %c0 to %c32 step %c1 {
          %v = arith.index_cast %i : index to i32
          symm.store %v, %data[%i] to %one : i32 -> memref<32xi32, #symm.heap>
        }
        symm.signal add %one, %flag[%c0] on %one scope(system) : i32 -> memref<1xi32, #symm.heap>
      } else {
        %seen = symm.wait %flag[%c0] ge %one scope(system) : memref<1xi32, #symm.heap> -> i32
        %s = scf.for %i = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (i32) {
          %v = symm.load %data[%i] : memref<32xi32, #symm.heap> -> i32
          %a = arith.addi %acc, %v : i32
          scf.yield %a : i32
        }
        memref.store %s, %sum[%c0] : memref<1xi32, #symm.heap>
      }
      gpu.return
    }
    gpu.func @relaxed(%data: memref<32xi32, #symm.heap>, %flag: memref<1xi32, #symm.heap>, %sum: memref<1xi32, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %zero = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %two = arith.constant 2 : i32
      %me = symm.rank : i32
      %producer = arith.cmpi eq, %me, %zero : i32
      scf.if %producer {
        scf.for %i = %c0 to %c32 step %c1 {
          %v = arith.index_cast %i : index to i32
          // CHECK-DAG: write of 4 bytes by rank 0, block (0, 0, 0), thread (0, 0, 0) of kernel 'relaxed': symm.store at {{.*}}relaxed-signal.mlir:[[#@LINE+1]]:
          symm.store %v, %data[%i] to %one : i32 -> memref<32xi32, #symm.heap>
        }
        %old = symm.atomic_rmw add %one, %flag[%c0] on %one ordering(relaxed) scope(system) : i32 -> memref<1xi32, #symm.heap>
      } else {
        %seen = symm.wait %flag[%c0] ge %two scope(system) : memref<1xi32, #symm.heap> -> i32
        %s = scf.for %i = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (i32) {
          // CHECK-DAG: read of 4 bytes by rank 1, block (0, 0, 0), thread (0, 0, 0) of kernel 'relaxed': symm.load at {{.*}}relaxed-signal.mlir:[[#@LINE+1]]:
          %v = symm.load %data[%i] : memref<32xi32, #symm.heap> -> i32
          %a = arith.addi %acc, %v : i32
          scf.yield %a : i32
        }
        memref.store %s, %sum[%c0] : memref<1xi32, #symm.heap>
      }
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %data = symm.alloc() : memref<32xi32, #symm.heap>
    %flag = symm.alloc() : memref<1xi32, #symm.heap>
    %sum = symm.alloc() : memref<1xi32, #symm.heap>
    symm.barrier
    gpu.launch_func @kernels::@released blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%data : memref<32xi32, #symm.heap>, %flag : memref<1xi32, #symm.heap>, %sum : memref<1xi32, #symm.heap>)
    symm.barrier
    // CHECK: kernel 'relaxed': {{[0-9]+}} racing accesses (reported above)
    gpu.launch_func @kernels::@relaxed blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%data : memref<32xi32, #symm.heap>, %flag : memref<1xi32, #symm.heap>, %sum : memref<1xi32, #symm.heap>)
    symm.barrier
    return
  }
}
