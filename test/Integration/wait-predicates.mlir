// Every symm.wait predicate, on flags a partner rank sets with symm.signal.
// RUN: %symm_run -n 2 %s | FileCheck %s
// RUN: %symm_run -n 4 %s | FileCheck %s
// CHECK-DAG: [rank 0] waits ok
// CHECK-DAG: [rank 1] waits ok
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @waits(%flags: memref<6xi32, #symm.heap>, %seen: memref<6xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %one = arith.constant 1 : i32
      %me = symm.rank : i32
      %n = symm.world_size : i32
      %up = arith.addi %me, %one : i32
      %next = arith.remsi %up, %n : i32
      // Signal the next rank: eq 5, ne 0 (7), lt 0 (-3), le 2 (2), gt 8 (9), ge 4 (add 4).
      %v5 = arith.constant 5 : i32
      %v7 = arith.constant 7 : i32
      %vm3 = arith.constant -3 : i32
      %v2 = arith.constant 2 : i32
      %v9 = arith.constant 9 : i32
      %v4 = arith.constant 4 : i32
      symm.signal set %v5, %flags[%c0] on %next scope(system) : i32 -> memref<6xi32, #symm.heap>
      symm.signal set %v7, %flags[%c1] on %next scope(system) : i32 -> memref<6xi32, #symm.heap>
      symm.signal set %vm3, %flags[%c2] on %next scope(system) : i32 -> memref<6xi32, #symm.heap>
      symm.signal set %v2, %flags[%c3] on %next scope(system) : i32 -> memref<6xi32, #symm.heap>
      symm.signal set %v9, %flags[%c4] on %next scope(system) : i32 -> memref<6xi32, #symm.heap>
      symm.signal add %v4, %flags[%c5] on %next scope(system) : i32 -> memref<6xi32, #symm.heap>
      // Flags start at 100 except the lt/le ones, which start at 50.
      %zero = arith.constant 0 : i32
      %v8 = arith.constant 8 : i32
      %s0 = symm.wait %flags[%c0] eq %v5 scope(system) : memref<6xi32, #symm.heap> -> i32
      %s1 = symm.wait %flags[%c1] ne %zero scope(system) : memref<6xi32, #symm.heap> -> i32
      %s2 = symm.wait %flags[%c2] lt %zero scope(system) backoff(50) : memref<6xi32, #symm.heap> -> i32
      %s3 = symm.wait %flags[%c3] le %v2 scope(device) : memref<6xi32, #symm.heap> -> i32
      %s4 = symm.wait %flags[%c4] gt %v8 scope(system) : memref<6xi32, #symm.heap> -> i32
      %s5 = symm.wait %flags[%c5] ge %v4 scope(system) : memref<6xi32, #symm.heap> -> i32
      memref.store %s0, %seen[%c0] : memref<6xi32>
      memref.store %s1, %seen[%c1] : memref<6xi32>
      memref.store %s2, %seen[%c2] : memref<6xi32>
      memref.store %s3, %seen[%c3] : memref<6xi32>
      memref.store %s4, %seen[%c4] : memref<6xi32>
      memref.store %s5, %seen[%c5] : memref<6xi32>
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c6 = arith.constant 6 : index
    %flags = symm.alloc() : memref<6xi32, #symm.heap>
    %init = gpu.alloc host_shared () : memref<6xi32>
    // ne 0 needs a start of 0; eq/gt/ge need starts that do not hold yet.
    %start = arith.constant dense<[100, 0, 50, 50, 0, 0]> : vector<6xi32>
    vector.store %start, %init[%c0] : memref<6xi32>, vector<6xi32>
    gpu.memcpy %flags, %init : memref<6xi32, #symm.heap>, memref<6xi32>
    symm.barrier
    %seen = gpu.alloc host_shared () : memref<6xi32>
    gpu.launch_func @kernels::@waits blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%flags : memref<6xi32, #symm.heap>, %seen : memref<6xi32>)
    symm.barrier
    %got = vector.load %seen[%c0] : memref<6xi32>, vector<6xi32>
    %want = arith.constant dense<[5, 7, -3, 2, 9, 4]> : vector<6xi32>
    %same = arith.cmpi eq, %got, %want : vector<6xi32>
    %all = vector.reduction <and>, %same : vector<6xi1> into i1
    %result = scf.if %all -> (i32) {
      vector.print str "waits ok\n"
      %z = arith.constant 0 : i32
      scf.yield %z : i32
    } else {
      vector.print str "waits FAILED: "
      vector.print %got : vector<6xi32>
      %f = arith.constant 1 : i32
      scf.yield %f : i32
    }
    symm.barrier
    return %result : i32
  }
}
