// Ring exchange: every thread stores into the next rank's buffer with
// symm.store; each rank checks what its predecessor wrote.
// RUN: %symm_run -n 2 %s | FileCheck %s
// RUN: %symm_run -n 3 %s | FileCheck %s
// RUN: %symm_run -n 4 %s | FileCheck %s
// CHECK-DAG: [rank 0] ring ok
// CHECK-DAG: [rank 1] ring ok
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @ring(%buf: memref<?xi32, #symm.heap>) kernel {
      %t = gpu.thread_id x
      %b = gpu.block_id x
      %bs = gpu.block_dim x
      %i0 = arith.muli %b, %bs : index
      %i = arith.addi %i0, %t : index
      %me = symm.rank : i32
      %n = symm.world_size : i32
      %one = arith.constant 1 : i32
      %next = arith.addi %me, %one : i32
      %peer = arith.remsi %next, %n : i32
      %ii = arith.index_cast %i : index to i32
      %c1000 = arith.constant 1000 : i32
      %v0 = arith.muli %me, %c1000 : i32
      %v = arith.addi %v0, %ii : i32
      symm.store %v, %buf[%i] to %peer : i32 -> memref<?xi32, #symm.heap>
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %buf = symm.alloc(%c64) : memref<?xi32, #symm.heap>
    gpu.launch_func @kernels::@ring blocks in (%c2, %c1, %c1) threads in (%c32, %c1, %c1) args(%buf : memref<?xi32, #symm.heap>)
    symm.barrier
    %host = gpu.alloc host_shared (%c64) : memref<?xi32>
    gpu.memcpy %host, %buf : memref<?xi32>, memref<?xi32, #symm.heap>
    %me = symm.rank : i32
    %n = symm.world_size : i32
    %c1i = arith.constant 1 : i32
    %c1000 = arith.constant 1000 : i32
    %p0 = arith.addi %me, %n : i32
    %p1 = arith.subi %p0, %c1i : i32
    %prev = arith.remsi %p1, %n : i32
    %base = arith.muli %prev, %c1000 : i32
    %zero = arith.constant 0 : i32
    %errors = scf.for %i = %c0 to %c64 step %c1 iter_args(%e = %zero) -> (i32) {
      %got = memref.load %host[%i] : memref<?xi32>
      %ii = arith.index_cast %i : index to i32
      %want = arith.addi %base, %ii : i32
      %bad = arith.cmpi ne, %got, %want : i32
      %inc = arith.extui %bad : i1 to i32
      %e2 = arith.addi %e, %inc : i32
      scf.yield %e2 : i32
    }
    %ok = arith.cmpi eq, %errors, %zero : i32
    scf.if %ok {
      vector.print str "ring ok\n"
    } else {
      vector.print str "ring FAILED, wrong values: "
      vector.print %errors : i32
    }
    symm.barrier
    symm.dealloc %buf : memref<?xi32, #symm.heap>
    return %errors : i32
  }
}
