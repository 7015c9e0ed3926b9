// symm.release_barrier as a user writes it: every thread of a workgroup of
// an odd size stores its element into the next rank's buffer (a symmetric
// allocation of a dynamic size), then the release barrier, then thread 0's
// release signal; the next rank's thread 0 waits for it, a barrier, and every
// thread checks its element. One rank sends to itself; 3 ranks form a ring.
// Under the race detector (the race-checked suite runs this file too) the
// signal must cover the other threads' stores. The kernel is named `send`,
// like the C library's function: on CPU ranks a module exports only its
// entries, so the race-checked kernel's entry calls it, not libc's send().
// RUN: %symm_run -n 1 %s | FileCheck %s
// RUN: %symm_run -n 3 %s | FileCheck %s
// CHECK: [rank 0] release barrier ok
// CHECK-NOT: FAILED
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @send(%data: memref<?xi32, #symm.heap>, %flag: memref<1xi32, #symm.heap>, %bad: memref<1xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c1_i32 = arith.constant 1 : i32
      %c100 = arith.constant 100 : i32
      %t = gpu.thread_id x
      %ti = arith.index_cast %t : index to i32
      %me = symm.rank : i32
      %n = symm.world_size : i32
      %next0 = arith.addi %me, %c1_i32 : i32
      %next = arith.remui %next0, %n : i32
      %base = arith.muli %me, %c100 : i32
      %v0 = arith.addi %base, %ti : i32
      %v = arith.addi %v0, %c1_i32 : i32
      symm.store %v, %data[%t] to %next : i32 -> memref<?xi32, #symm.heap>
      symm.release_barrier scope(system)
      %first = arith.cmpi eq, %t, %c0 : index
      scf.if %first {
        symm.signal set %c1_i32, %flag[%c0] on %next scope(system) : i32 -> memref<1xi32, #symm.heap>
      }
      // This rank's buffer, from the previous rank.
      scf.if %first {
        %seen = symm.wait %flag[%c0] ge %c1_i32 scope(system) : memref<1xi32, #symm.heap> -> i32
      }
      gpu.barrier
      %prev0 = arith.addi %me, %n : i32
      %prev1 = arith.subi %prev0, %c1_i32 : i32
      %prev = arith.remui %prev1, %n : i32
      %pbase = arith.muli %prev, %c100 : i32
      %w0 = arith.addi %pbase, %ti : i32
      %want = arith.addi %w0, %c1_i32 : i32
      %got = memref.load %data[%t] : memref<?xi32, #symm.heap>
      %wrong = arith.cmpi ne, %got, %want : i32
      scf.if %wrong {
        %old = memref.atomic_rmw addi %c1_i32, %bad[%c0] : (i32, memref<1xi32>) -> i32
      }
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c37 = arith.constant 37 : index
    %zero = arith.constant 0 : i32
    %data = symm.alloc(%c37) : memref<?xi32, #symm.heap>
    %flag = symm.alloc() : memref<1xi32, #symm.heap>
    %init = gpu.alloc host_shared () : memref<1xi32>
    memref.store %zero, %init[%c0] : memref<1xi32>
    gpu.memcpy %flag, %init : memref<1xi32, #symm.heap>, memref<1xi32>
    %bad = gpu.alloc host_shared () : memref<1xi32>
    memref.store %zero, %bad[%c0] : memref<1xi32>
    symm.barrier
    gpu.launch_func @kernels::@send blocks in (%c1, %c1, %c1) threads in (%c37, %c1, %c1) args(%data : memref<?xi32, #symm.heap>, %flag : memref<1xi32, #symm.heap>, %bad : memref<1xi32>)
    gpu.wait
    symm.barrier
    %wrong = memref.load %bad[%c0] : memref<1xi32>
    %ok = arith.cmpi eq, %wrong, %zero : i32
    %r = scf.if %ok -> (i32) {
      vector.print str "release barrier ok\n"
      scf.yield %zero : i32
    } else {
      vector.print str "release barrier FAILED: "
      vector.print %wrong : i32
      %one = arith.constant 1 : i32
      scf.yield %one : i32
    }
    return %r : i32
  }
}
