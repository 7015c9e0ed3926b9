// A release at workgroup scope does not reach a thread of another rank: the
// consumer's acquire of the flag orders nothing, and the race detector
// reports the data's store and load. At system scope (@system, first) it is
// race-free.
// REQUIRES: backend-host
// RUN: not %symm_run --check-races -n 2 %s 2>&1 | FileCheck %s
// CHECK-NOT: 'system'
// CHECK: data race on rank 1's heap at offset {{[0-9]+}}: element 0 of 4 bytes of heap allocation #0
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @system(%data: memref<1xi32, #symm.heap>, %flag: memref<1xi32, #symm.heap>, %out: memref<1xi32, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %me = symm.rank : i32
      %producer = arith.cmpi eq, %me, %zero : i32
      scf.if %producer {
        symm.store %one, %data[%c0] to %one : i32 -> memref<1xi32, #symm.heap>
        symm.store %one, %flag[%c0] to %one ordering(release) scope(system) : i32 -> memref<1xi32, #symm.heap>
      } else {
        %seen = symm.wait %flag[%c0] ge %one scope(system) : memref<1xi32, #symm.heap> -> i32
        %v = symm.load %data[%c0] : memref<1xi32, #symm.heap> -> i32
        symm.store %v, %out[%c0] : i32 -> memref<1xi32, #symm.heap>
      }
      gpu.return
    }
    gpu.func @workgroup(%data: memref<1xi32, #symm.heap>, %flag: memref<1xi32, #symm.heap>, %out: memref<1xi32, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %two = arith.constant 2 : i32
      %me = symm.rank : i32
      %producer = arith.cmpi eq, %me, %zero : i32
      scf.if %producer {
        // CHECK-DAG: write of 4 bytes by rank 0, block (0, 0, 0), thread (0, 0, 0) of kernel 'workgroup': symm.store at {{.*}}narrow-scope.mlir:[[#@LINE+1]]:
        symm.store %two, %data[%c0] to %one : i32 -> memref<1xi32, #symm.heap>
        symm.store %two, %flag[%c0] to %one ordering(release) scope(workgroup) : i32 -> memref<1xi32, #symm.heap>
      } else {
        %seen = symm.wait %flag[%c0] ge %two scope(system) : memref<1xi32, #symm.heap> -> i32
        // CHECK-DAG: read of 4 bytes by rank 1, block (0, 0, 0), thread (0, 0, 0) of kernel 'workgroup': symm.load at {{.*}}narrow-scope.mlir:[[#@LINE+1]]:
        %v = symm.load %data[%c0] : memref<1xi32, #symm.heap> -> i32
        symm.store %v, %out[%c0] : i32 -> memref<1xi32, #symm.heap>
      }
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %data = symm.alloc() : memref<1xi32, #symm.heap>
    %flag = symm.alloc() : memref<1xi32, #symm.heap>
    %out = symm.alloc() : memref<1xi32, #symm.heap>
    symm.barrier
    gpu.launch_func @kernels::@system blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%data : memref<1xi32, #symm.heap>, %flag : memref<1xi32, #symm.heap>, %out : memref<1xi32, #symm.heap>)
    symm.barrier
    // CHECK: kernel 'workgroup': {{[0-9]+}} racing access (reported above)
    gpu.launch_func @kernels::@workgroup blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%data : memref<1xi32, #symm.heap>, %flag : memref<1xi32, #symm.heap>, %out : memref<1xi32, #symm.heap>)
    symm.barrier
    return
  }
}
