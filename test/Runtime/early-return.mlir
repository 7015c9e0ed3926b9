// A rank that returns from main while its peer's kernel waits for a flag it
// would have raised: its finalize times out (SYMM_TIMEOUT) and fails, the
// rank exits with status 1, and the waiting rank ends well within the test's
// bound instead of hanging: symm-run ends it, or, when its own stalled-wait
// report (the same 10 s) comes first, it sees rank 1 is gone and exits itself.
// Rank 1's finalize names the rank it waited for; symm-run names the first
// exit it reaps, which is rank 0 where both have exited by then (on a loaded
// machine both deadlines pass within the same instant).
// RUN: symm-compile --target=host %s -o %t.exe
// RUN: timeout 120 symm-run -n 2 --timeout 10 %t.exe > %t.out 2>&1; echo "status $?" >> %t.out
// RUN: FileCheck %s < %t.out
// CHECK: [rank 1] symm: finalize failed: rank 1: waited 10 s for rank 0 without an answer (SYMM_TIMEOUT)
// CHECK: symm-run: rank {{[01]}} exited with status 1{{$|; ended the other ranks$}}
// CHECK: status 1
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @await(%flags: memref<1xi32, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %seen = symm.wait %flags[%c0] ge %one scope(system) : memref<1xi32, #symm.heap> -> i32
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %flags = symm.alloc() : memref<1xi32, #symm.heap>
    %init = gpu.alloc host_shared () : memref<1xi32>
    %zero = arith.constant 0 : i32
    memref.store %zero, %init[%c0] : memref<1xi32>
    gpu.memcpy %flags, %init : memref<1xi32, #symm.heap>, memref<1xi32>
    symm.barrier
    %me = symm.rank : i32
    %first = arith.cmpi eq, %me, %zero : i32
    // Rank 0 waits for rank 1's signal; rank 1 returns without sending it.
    scf.if %first {
      gpu.launch_func @kernels::@await blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%flags : memref<1xi32, #symm.heap>)
      symm.barrier
    }
    return
  }
}
