// symm.copy between two other ranks, and symm.wait polling a flag on a peer:
// rank r copies rank r+1's source into rank r+2's destination, then waits on
// rank r+1's own flag remotely.
// RUN: %symm_run -n 3 %s | FileCheck %s
// RUN: %symm_run -n 4 %s | FileCheck %s
// CHECK-DAG: [rank 0] copy ok
// CHECK-DAG: [rank 1] copy ok
// CHECK-DAG: [rank 2] copy ok
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @fill(%src: memref<96xi32, #symm.heap>) kernel {
      %i = gpu.thread_id x
      %me = symm.rank : i32
      %c1000 = arith.constant 1000 : i32
      %base = arith.muli %me, %c1000 : i32
      %ii = arith.index_cast %i : index to i32
      %v = arith.addi %base, %ii : i32
      memref.store %v, %src[%i] : memref<96xi32, #symm.heap>
      gpu.return
    }
    gpu.func @third_party(%src: memref<96xi32, #symm.heap>, %dst: memref<96xi32, #symm.heap>, %flag: memref<1xi32, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %two = arith.constant 2 : i32
      %me = symm.rank : i32
      %n = symm.world_size : i32
      %p1 = arith.addi %me, %one : i32
      %from = arith.remsi %p1, %n : i32
      %p2 = arith.addi %me, %two : i32
      %to = arith.remsi %p2, %n : i32
      symm.copy %src from %from to %dst on %to : memref<96xi32, #symm.heap> -> memref<96xi32, #symm.heap>
      %t = gpu.thread_id x
      %first = arith.cmpi eq, %t, %c0 : index
      scf.if %first {
        // Raise my own flag, then watch the next rank's flag from here.
        symm.store %one, %flag[%c0] ordering(release) scope(system) : i32 -> memref<1xi32, #symm.heap>
        %s = symm.wait %flag[%c0] from %from ge %one scope(system) : memref<1xi32, #symm.heap> -> i32
      }
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c96 = arith.constant 96 : index
    %zero = arith.constant 0 : i32
    %src = symm.alloc() : memref<96xi32, #symm.heap>
    %dst = symm.alloc() : memref<96xi32, #symm.heap>
    %flag = symm.alloc() : memref<1xi32, #symm.heap>
    %z = gpu.alloc host_shared () : memref<1xi32>
    memref.store %zero, %z[%c0] : memref<1xi32>
    gpu.memcpy %flag, %z : memref<1xi32, #symm.heap>, memref<1xi32>
    gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1) threads in (%c96, %c1, %c1) args(%src : memref<96xi32, #symm.heap>)
    symm.barrier
    gpu.launch_func @kernels::@third_party blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%src : memref<96xi32, #symm.heap>, %dst : memref<96xi32, #symm.heap>, %flag : memref<1xi32, #symm.heap>)
    symm.barrier
    %host = gpu.alloc host_shared () : memref<96xi32>
    gpu.memcpy %host, %dst : memref<96xi32>, memref<96xi32, #symm.heap>
    %me = symm.rank : i32
    %n = symm.world_size : i32
    %one = arith.constant 1 : i32
    %d0 = arith.addi %me, %n : i32
    %d1 = arith.subi %d0, %one : i32
    %prev = arith.remsi %d1, %n : i32
    %c1000 = arith.constant 1000 : i32
    %base = arith.muli %prev, %c1000 : i32
    %errors = scf.for %i = %c0 to %c96 step %c1 iter_args(%e = %zero) -> (i32) {
      %ii = arith.index_cast %i : index to i32
      %w = arith.addi %base, %ii : i32
      %g = memref.load %host[%i] : memref<96xi32>
      %bad = arith.cmpi ne, %g, %w : i32
      %inc = arith.extui %bad : i1 to i32
      %e2 = arith.addi %e, %inc : i32
      scf.yield %e2 : i32
    }
    %ok = arith.cmpi eq, %errors, %zero : i32
    scf.if %ok {
      vector.print str "copy ok\n"
    } else {
      vector.print str "copy FAILED, wrong elements: "
      vector.print %errors : i32
    }
    symm.barrier
    return %errors : i32
  }
}
