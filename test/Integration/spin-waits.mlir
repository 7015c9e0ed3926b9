// Spin waits between the blocks of one kernel and across ranks, every thread
// of a block waiting. `chain`: block b waits for block b + 1 before raising
// its own flag, so block 0 finishes last and every block must be resident at
// once, as on a GPU. `relay`: for 10 epochs, block b of rank 0 raises flag b
// on rank 1, which passes it on to the next rank, and the last rank back to
// rank 0. The host checks every flag.
// RUN: %symm_run -n 2 %s | FileCheck %s
// RUN: %symm_run -n 4 %s | FileCheck %s
// CHECK-DAG: [rank 0] spin waits ok
// CHECK-DAG: [rank 1] spin waits ok
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @chain(%flags: memref<17xi32, #symm.heap>) kernel {
      %c1 = arith.constant 1 : index
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %b = gpu.block_id x
      %b1 = arith.addi %b, %c1 : index
      %seen = symm.wait %flags[%b1] ge %one scope(device) : memref<17xi32, #symm.heap> -> i32
      %t = gpu.thread_id x
      %first = arith.cmpi eq, %t, %c0 : index
      scf.if %first {
        symm.signal set %one, %flags[%b] scope(device) : i32 -> memref<17xi32, #symm.heap>
      }
      gpu.return
    }
    gpu.func @relay(%recv: memref<16xi32, #symm.heap>, %epochs: i32) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %zero = arith.constant 0 : i32
      %me = symm.rank : i32
      %n = symm.world_size : i32
      %up = arith.addi %me, %one : i32
      %next = arith.remsi %up, %n : i32
      %b = gpu.block_id x
      %t = gpu.thread_id x
      %first = arith.cmpi eq, %t, %c0 : index
      %isRoot = arith.cmpi eq, %me, %zero : i32
      %end = arith.addi %epochs, %one : i32
      scf.for %e = %one to %end step %one : i32 {
        scf.if %isRoot {
          scf.if %first {
            symm.signal set %e, %recv[%b] on %next scope(system) : i32 -> memref<16xi32, #symm.heap>
          }
          %back = symm.wait %recv[%b] ge %e scope(system) : memref<16xi32, #symm.heap> -> i32
        } else {
          %got = symm.wait %recv[%b] ge %e scope(system) : memref<16xi32, #symm.heap> -> i32
          scf.if %first {
            symm.signal set %e, %recv[%b] on %next scope(system) : i32 -> memref<16xi32, #symm.heap>
          }
        }
      }
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c17 = arith.constant 17 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %flags = symm.alloc() : memref<17xi32, #symm.heap>
    %recv = symm.alloc() : memref<16xi32, #symm.heap>
    %init = gpu.alloc host_shared () : memref<17xi32>
    linalg.fill ins(%zero : i32) outs(%init : memref<17xi32>)
    // The flag past the last block is raised from the start.
    memref.store %one, %init[%c16] : memref<17xi32>
    gpu.memcpy %flags, %init : memref<17xi32, #symm.heap>, memref<17xi32>
    %init16 = gpu.alloc host_shared () : memref<16xi32>
    linalg.fill ins(%zero : i32) outs(%init16 : memref<16xi32>)
    gpu.memcpy %recv, %init16 : memref<16xi32, #symm.heap>, memref<16xi32>
    symm.barrier
    gpu.launch_func @kernels::@chain blocks in (%c16, %c1, %c1) threads in (%c64, %c1, %c1) args(%flags : memref<17xi32, #symm.heap>)
    %epochs = arith.constant 10 : i32
    gpu.launch_func @kernels::@relay blocks in (%c16, %c1, %c1) threads in (%c64, %c1, %c1) args(%recv : memref<16xi32, #symm.heap>, %epochs : i32)
    symm.barrier
    gpu.memcpy %init, %flags : memref<17xi32>, memref<17xi32, #symm.heap>
    gpu.memcpy %init16, %recv : memref<16xi32>, memref<16xi32, #symm.heap>
    %bad = scf.for %i = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> i32 {
      %f = memref.load %init[%i] : memref<17xi32>
      %r = memref.load %init16[%i] : memref<16xi32>
      %fbad = arith.cmpi ne, %f, %one : i32
      %rbad = arith.cmpi ne, %r, %epochs : i32
      %either = arith.ori %fbad, %rbad : i1
      %inc = arith.extui %either : i1 to i32
      %acc1 = arith.addi %acc, %inc : i32
      scf.yield %acc1 : i32
    }
    %ok = arith.cmpi eq, %bad, %zero : i32
    %result = scf.if %ok -> (i32) {
      vector.print str "spin waits ok\n"
      scf.yield %zero : i32
    } else {
      vector.print str "spin waits FAILED, wrong flags: "
      vector.print %bad : i32
      scf.yield %one : i32
    }
    return %result : i32
  }
}
